"""The viewer pages as files: self-contained, data embedded safely, frames as the engines see them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from arena.logs.matchlog import read_log
from arena.viewer.frames import match_data
from arena.viewer.page import CSP, embed_json, match_page, write_match_page
from arena.viewer.report import ReportError, write_report
from tests.viewer.matches import GAMES, play, turns_of

EMBEDDED = re.compile(r'<script type="application/json" id="arena-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("logs")
    return {game: play(game, directory) for game in GAMES}


@pytest.mark.parametrize("game", GAMES)
def test_page_is_self_contained_and_embeds_every_frame(logs: dict[str, Path], game: str, tmp_path: Path) -> None:
    log = read_log(logs[game])
    html = write_match_page(log, tmp_path / "page.html").read_text()
    assert CSP in html
    # Nothing to fetch: no URL but the SVG namespace, no src= or stylesheet links.
    assert set(re.findall(r"https?://[^\s\"'<>)]+", html)) <= {"http://www.w3.org/2000/svg"}
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", html)
    assert '<link rel="stylesheet"' not in html
    data = json.loads(EMBEDDED.search(html).group(1))
    assert data["game"] == game and data["verdict"]["ok"]
    turns = turns_of(log)
    assert len(data["frames"]) == len(turns) + 1
    for frame, turn in zip(data["frames"][1:], turns, strict=True):
        record = turn[-1]  # a simultaneous turn's frame follows its last record, and holds every mover's move
        assert frame["ply"] == record["ply"] and frame["raw"] == record["move"]
        assert frame["clocks"] == record["clocks"]
        assert ([t["raw"] for t in frame["turn"]] if "turn" in frame else [frame["raw"]]) == [r["move"] for r in turn]


def test_embedded_json_cannot_close_its_script() -> None:
    text = embed_json({"name": "</script><script>alert(1)</script>", "amp": "a&b"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"name": "</script><script>alert(1)</script>", "amp": "a&b"}


def test_hostile_bot_name_is_escaped(logs: dict[str, Path]) -> None:
    log = read_log(logs["blocking"])
    log.header["seats"][0]["name"] = "<img src=x onerror=alert(1)>"
    html = match_page(match_data(log))
    assert "<img src=x" not in html and "&lt;img src=x" in html


def test_truncated_log_page_shows_what_it_holds(logs: dict[str, Path], tmp_path: Path) -> None:
    cut = tmp_path / "cut.msgpack"
    data = logs["blocking"].read_bytes()
    cut.write_bytes(data[: len(data) * 2 // 3])
    log = read_log(cut)
    html = write_match_page(log, tmp_path / "cut.html").read_text()
    page_data = json.loads(EMBEDDED.search(html).group(1))
    assert page_data["truncated"] and not page_data["verdict"]["ok"]
    assert len(page_data["frames"]) == len(turns_of(log)) + 1
    assert "No result" in html


def test_report_needs_tournament_output(tmp_path: Path) -> None:
    with pytest.raises(ReportError):
        write_report(tmp_path, tmp_path / "r.html")
