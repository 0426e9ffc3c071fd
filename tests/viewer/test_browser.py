"""The viewer pages in headless Chromium: boards drawn, stepping shows the right position."""

from __future__ import annotations

import importlib
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.games import State, game_folder
from arena.logs.matchlog import read_log
from arena.viewer.page import write_match_page
from arena.viewer.report import write_report
from tests.helpers import ROOT
from tests.viewer.browser import Watched
from tests.viewer.matches import GAMES, play, snapshots

READ_BOARD = """() => Array.from(document.querySelectorAll('#board [data-%s]'),
  e => [e.getAttribute('data-%s'), e.getAttribute('data-%s')])"""


def attrs(page: Any, key: str, value: str) -> list[list[str]]:
    """[data-key, data-value] of every board element that has data-key."""
    return page.evaluate(READ_BOARD % (key, key, value))


def drawing(game: str) -> Any:
    """The game's read-back of its drawing (its folder's tests/drawing.py), or None."""
    try:
        return importlib.import_module(f"{game_folder(game).module}.tests.drawing")
    except ModuleNotFoundError:
        return None


def at_ply(page: Any, ply: int) -> None:
    page.wait_for_selector(f"body[data-ply='{ply}']", timeout=5000)


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    """Poll condition (the page's policy forbids the string evaluation wait_for_function uses)."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def check(page: Any, game: str, states: list[State], ply: int) -> None:
    at_ply(page, ply)
    assert page.get_attribute("#board", "data-ply") == str(ply)
    assert page.get_attribute("#drawing-note", "hidden") is not None, page.inner_text("#drawing-note")
    read_back = drawing(game)
    if read_back is not None:
        shown = read_back.board_of(page, lambda key, value: attrs(page, key, value))
        assert shown == read_back.expected(states[ply]), f"{game} ply {ply}"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    directory = tmp_path_factory.mktemp("pages")
    out = {}
    for game in GAMES:
        log = play(game, directory)
        out[game] = (log, write_match_page(log, directory / f"{game}.html"))
    return out


def clean(watched: Watched) -> None:
    assert watched.errors == []
    assert watched.network() == []


@pytest.mark.parametrize("game", GAMES)
def test_board_renders_and_steps_to_the_right_positions(
    pages: dict[str, tuple[Path, Path]], open_page: Callable[..., Watched], game: str, tmp_path: Path
) -> None:
    log_path, html = pages[game]
    log = read_log(log_path)
    states = snapshots(log)
    last = len(states) - 1
    watched = open_page(html)
    page = watched.page
    check(page, game, states, 0)
    page.click("#forward")
    check(page, game, states, 1)
    page.keyboard.press("ArrowRight")
    check(page, game, states, 2)
    page.keyboard.press("ArrowLeft")
    check(page, game, states, 1)
    page.click("#back")
    check(page, game, states, 0)
    page.keyboard.press("End")
    check(page, game, states, last)
    assert "final" in page.get_attribute("#result", "class")
    page.keyboard.press("Home")
    check(page, game, states, 0)
    middle = last // 2
    page.eval_on_selector("#slider", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", middle)
    check(page, game, states, middle)
    page.click(f"#moves li[data-ply='{last}']")
    check(page, game, states, last)
    page.click("#first")
    page.click("#play")
    wait_until(lambda: int(page.get_attribute("body", "data-ply")) >= 2)
    page.click("#play")  # pause
    paused = int(page.get_attribute("body", "data-ply"))
    page.wait_for_timeout(600)
    assert int(page.get_attribute("body", "data-ply")) == paused
    check(page, game, states, paused)
    # Clocks, move list and result are shown.
    assert page.locator("#clocks tr").count() == log.header["players"]
    assert page.locator("#moves li").count() == last + 1
    assert log.result is not None and log.result["reason"] in page.inner_text("#result")
    assert "verified" in page.inner_text("#verdict")
    page.screenshot(path=str(tmp_path / f"{game}.png"), full_page=True)
    clean(watched)


@pytest.mark.parametrize("game", GAMES)
def test_fragment_opens_a_ply(
    pages: dict[str, tuple[Path, Path]], open_page: Callable[..., Watched], game: str
) -> None:
    log_path, html = pages[game]
    states = snapshots(read_log(log_path))
    watched = open_page(html, "#ply=2")
    check(watched.page, game, states, 2)
    clean(watched)


def test_tampered_log_page_says_so(tmp_path: Path, open_page: Callable[..., Watched]) -> None:
    log = read_log(play("blocking", tmp_path))
    assert log.result is not None
    log.result["scores"] = list(reversed(log.result["scores"]))
    html = write_match_page(log, tmp_path / "tampered.html")
    watched = open_page(html)
    at_ply(watched.page, 0)
    assert "result: scores" in watched.page.inner_text("#verdict")
    clean(watched)


@pytest.fixture(scope="module")
def tournament(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("tournament")
    config = directory / "t.toml"
    config.write_text('name = "viewer-test"\ngame = "blocking"\nseed = 3\ngames_per_pairing = 2\n'
                      '[[bots]]\nspec = "random"\n[[bots]]\nspec = "maxblock"\n[[bots]]\nspec = "sequential"\n'
                      '[setups.random]\ncount = 1\nrows = 5\ncols = 6\n')
    done = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", str(config), "--out",
                           str(directory / "out"), "--workers", "2", "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return directory / "out"


def test_report_links_open_the_right_match(tournament: Path, tmp_path: Path,
                                           open_page: Callable[..., Watched]) -> None:
    out, written = write_report(tournament, tmp_path / "site" / "index.html")
    assert written == 6
    watched = open_page(out)
    page = watched.page
    page.wait_for_selector("#standings tbody tr")
    assert page.locator("#standings tbody tr").count() == 3
    assert page.locator("#standings svg").count() == 3  # an interval per bot
    assert page.locator("#crosstable tbody tr").count() == 3
    assert page.locator("#seats table").count() >= 1
    links = page.locator("a[data-match]")
    assert links.count() == 6
    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    for index in (0, 5):
        link = links.nth(index)
        match = link.get_attribute("data-match")
        link.click()
        page.wait_for_selector("body[data-ply='0']")
        assert f"match {match} " in page.inner_text("header .meta")
        log = read_log(tournament / "logs" / f"{match}.msgpack")
        states = snapshots(log)
        page.keyboard.press("End")
        check(page, "blocking", states, len(states) - 1)
        page.click("#back-link")
        page.wait_for_selector("#standings")
    assert all(url.startswith("file://") for url in watched.requests)
    clean(watched)


def test_report_from_logs_only(tmp_path: Path, open_page: Callable[..., Watched]) -> None:
    logs = tmp_path / "bare"
    logs.mkdir()
    for game in ("blocking", "tiles"):
        play(game, logs)
    out, written = write_report(logs, tmp_path / "bare.html")
    assert written == 2
    watched = open_page(out)
    assert watched.page.locator("a[data-match]").count() == 2
    assert watched.page.locator("#standings tbody tr").count() >= 2
    clean(watched)
