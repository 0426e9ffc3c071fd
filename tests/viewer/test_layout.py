"""The match page in real Chromium keeps its layout from ply to ply, and tenten's offers read as pictures."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from arena.launch.processes.process import Limits
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import parse_bot_spec
from arena.logs.matchlog import read_log
from arena.match.onematch import MatchPlan, play_match
from arena.setups import complete_setup
from arena.viewer.page import write_match_page
from tests.viewer.browser import Watched
from tests.viewer.matches import GAMES, play, turns_of
from tests.viewer.test_browser import at_ply


def boxes(page: Any) -> tuple[float, float, float]:
    """The widths of the board's stage, the side panels and the move panel."""
    stage = page.locator("#stage").bounding_box()
    aside = page.locator("aside").bounding_box()
    ply = page.locator("#ply").bounding_box()
    return round(stage["width"], 1), round(aside["width"], 1), round(ply["width"], 1)


@pytest.mark.parametrize("game", GAMES)
def test_the_panels_keep_their_width_through_the_match(open_page: Callable[..., Watched], game: str,
                                                       tmp_path: Path) -> None:
    log = play(game, tmp_path)
    html = write_match_page(read_log(log), tmp_path / f"{game}.html")
    watched = open_page(html)
    page = watched.page
    plies = len(turns_of(read_log(log)))  # one frame a turn (a simultaneous turn's moves together)
    at_ply(page, 0)
    first = boxes(page)
    page.screenshot(path=str(tmp_path / "first.png"))
    for ply in range(1, plies + 1):
        page.keyboard.press("ArrowRight")
        at_ply(page, ply)
        assert boxes(page) == first, f"{game}: the layout moved at ply {ply}"
    page.screenshot(path=str(tmp_path / "last.png"))
    assert (tmp_path / "first.png").stat().st_size > 1000 and (tmp_path / "last.png").stat().st_size > 1000
    assert watched.errors == [] and watched.network() == []


def test_tenten_offers_are_drawn_not_dumped(open_page: Callable[..., Watched], tmp_path: Path) -> None:
    log = play("tenten", tmp_path)
    watched = open_page(write_match_page(read_log(log), tmp_path / "tenten.html"))
    page = watched.page
    at_ply(page, 0)
    text = page.inner_text("#events")
    assert "referee offers 3 blocks: " in text and "[[" not in text and "@" in text


LONG_NAME = "a-very-long-bot-name-from-another-folder-that-will-never-fit-its-column-version-7"


def test_names_are_never_broken_and_the_move_list_keeps_its_columns(open_page: Callable[..., Watched],
                                                                     tmp_path: Path) -> None:
    rules = get_game("blocking")
    specs = [parse_bot_spec("maxblock", "blocking", display=LONG_NAME), parse_bot_spec("random", "blocking")]
    setup = complete_setup(rules, {"rows": 12, "cols": 12}, 2, 5)  # moves read "row 10 and column 11"
    log = tmp_path / "long.msgpack"
    play_match(MatchPlan(rules, specs, setup, 5, ClockSettings(), "long", log, Limits(), Sandbox.NONE))
    page = open_page(write_match_page(read_log(log), tmp_path / "long.html")).page
    at_ply(page, 0)
    line = 30  # px: one line of the panels' text; a name broken over two would be twice as high
    for shown in (page.locator("#clocks .name").first, page.locator("#result .name").first):
        box = shown.bounding_box()
        assert box is not None and box["height"] < line, box
        assert shown.get_attribute("title").endswith(LONG_NAME)  # whole in its tooltip
    items = page.locator("#moves li")
    assert items.count() > 5
    for i in range(1, items.count()):
        move, time_box = items.nth(i).locator(".move").bounding_box(), items.nth(i).locator(".time").bounding_box()
        assert move is not None and time_box is not None
        assert move["x"] + move["width"] + 4 <= time_box["x"], (i, move, time_box)  # apart, not run together
        assert move["height"] < line or items.nth(i).locator(".move").inner_text().count(" ") > 3
