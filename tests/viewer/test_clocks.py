"""The match page's clocks table in real Chromium: each seat on one line, its name whole; no one to move at the end."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

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
from tests.viewer.test_browser import at_ply

NAMES = ("tiles_v2", "tiles_stdio.js")  # a student's two bots, once both shown as "tiles_…"


def tiles_page(tmp_path: Path, open_page: Callable[..., Watched]) -> tuple[Any, int]:
    """The page of a whole tiles match between two bots under NAMES, and its last ply."""
    rules = get_game("tiles")
    specs = [parse_bot_spec(bot, "tiles", display=name) for bot, name in zip(("greedy", "random"), NAMES)]
    setup = complete_setup(rules, {"rows": 3, "row_len": 3, "plate_size": 2, "min_pot": 30, "max_pot": 30}, 2, 4)
    log = tmp_path / "tiles.msgpack"
    result = play_match(MatchPlan(rules, specs, setup, 4, ClockSettings(), "clocks", log, Limits(), Sandbox.NONE))
    assert result.reason in ("normal", "blocked") and result.plies > 2, result
    page = open_page(write_match_page(read_log(log), tmp_path / "tiles.html")).page
    return page, result.plies


def seat_rows(page: Any) -> list[dict[str, Any]]:
    """For each seat's row of the clocks table: its dot's and name's boxes, and whether the name is cut."""
    rows = []
    for seat in range(2):
        row = page.locator(f"#clocks tr[data-seat='{seat}']")
        name = row.locator(".name")
        rows.append({"dot": row.locator(".dot").bounding_box(), "name": name.bounding_box(),
                     "cut": name.evaluate("e => e.scrollWidth > e.clientWidth"), "text": name.inner_text()})
    return rows


def test_each_seat_is_one_line_with_its_whole_name(open_page: Callable[..., Watched], tmp_path: Path) -> None:
    page, _ = tiles_page(tmp_path, open_page)
    at_ply(page, 0)
    for seat, row in enumerate(seat_rows(page)):
        dot, name = row["dot"], row["name"]
        assert row["text"] == f"{seat} {NAMES[seat]}" and not row["cut"], row
        middle = name["y"] + name["height"] / 2
        assert dot["x"] + dot["width"] <= name["x"] and dot["y"] < middle < dot["y"] + dot["height"] + 4, row


def test_the_final_position_marks_no_seat_to_move(open_page: Callable[..., Watched], tmp_path: Path) -> None:
    page, plies = tiles_page(tmp_path, open_page)
    at_ply(page, 0)  # the control: while the game is on, one seat is to move, on every panel
    assert page.locator("#clocks tr.to-move").count() == 1
    assert "to move" in page.inner_text("#current") and "to move" in page.text_content("#board")
    page.keyboard.press("End")
    at_ply(page, plies)
    assert page.locator("#clocks tr.to-move").count() == 0
    assert "to move" not in page.inner_text("#current") and "to move" not in page.text_content("#board")
