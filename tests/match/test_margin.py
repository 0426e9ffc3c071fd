"""The margin is one reserve per seat and match, not thinking time: a margin rider beside its controls."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from arena.clock import ClockMode, ClockSettings
from arena.logs.matchlog import parse_log, read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, run

BOARD = {"rows": 8, "cols": 10, "blocked": []}  # about ten moves each: room to ride
SLACK_MS = 60  # what a loaded machine may add to a sleep or a reply's way back


def cheater(mode: str, arg: str = "") -> str:
    """The stdio spec of the clock-gaming fixture bot in one mode."""
    return f"stdio:{sys.executable} {FIXTURES / 'cheater.py'} {mode} {arg}".strip()


def own_moves(log_path: Path, seat: int = 0) -> list[dict[str, Any]]:
    return [m for m in read_log(log_path).moves if m["seat"] == seat]


def test_a_margin_rider_loses_on_time_once_its_margin_is_spent(tmp_path: Path) -> None:
    """It sleeps through its budget on move 1, then answers in 170 ms: inside a fresh margin every time, once."""
    log = tmp_path / "rider.msgpack"
    clock = ClockSettings(budget_ms=600, margin_ms=200)
    result, _ = run("blocking", [cheater("rider", "170"), "sequential"], BOARD, clock=clock, log=log)
    assert (result.reason, result.offender) == ("timeout", 0), result.detail
    assert "margin left of 200 ms" in result.detail, result.detail
    # It used its budget and its margin, once: not 170 ms more for every move it made.
    assert result.time_used_ms[0] <= 600 + 200 + SLACK_MS, result.time_used_ms
    margins = [m.get("margin", 200) for m in own_moves(log)]
    assert margins == sorted(margins, reverse=True) and margins[-1] < 200  # spent, never given back
    assert verify(read_log(log)).ok


def test_an_honest_bot_that_spends_a_share_of_its_time_never_loses(tmp_path: Path) -> None:
    log = tmp_path / "honest.msgpack"
    clock = ClockSettings(budget_ms=1000, margin_ms=200)
    result, _ = run("blocking", [cheater("honest", "0.1"), "sequential"], BOARD, clock=clock, log=log)
    assert result.offender is None and result.reason == "blocked", result.detail
    assert result.time_used_ms[0] < 1000 and len(own_moves(log)) >= 4
    assert all("margin" not in m for m in own_moves(log))  # no overrun: the whole margin is left
    assert verify(read_log(log)).ok


def test_one_overrun_of_the_cap_leaves_the_rest_of_the_margin(tmp_path: Path) -> None:
    """30 ms past a 100 ms cap once: the bot plays on with about 170 ms of margin, to the end."""
    log = tmp_path / "overrun.msgpack"
    clock = ClockSettings(budget_ms=5000, move_cap_ms=100, margin_ms=200)
    result, _ = run("blocking", [cheater("overrun", "30"), "sequential"], BOARD, clock=clock, log=log)
    assert result.offender is None and result.reason == "blocked", result.detail
    moves = own_moves(log)
    assert len(moves) >= 4 and "margin" not in moves[0]
    left = moves[1]["margin"]  # its second move took 130 ms of a 100 ms cap
    assert 200 - 30 - SLACK_MS < left <= 170, left
    # The reserve never comes back: instant replies take nothing more (on a quiet machine they
    # leave it exactly as it was; one delayed by a busy machine can only lower it).
    margins = [left] + [m["margin"] for m in moves[2:]]
    assert all(later <= earlier for earlier, later in zip(margins, margins[1:])), margins
    assert verify(read_log(log)).ok


def test_a_cpu_clock_rider_loses_on_cpu_time(tmp_path: Path) -> None:
    """The cpu clock's overrun is CPU time: a bot that spins through its budget, then 170 ms a move."""
    log = tmp_path / "cpurider.msgpack"
    clock = ClockSettings(budget_ms=400, margin_ms=200, mode=ClockMode.CPU, wall_factor=10.0)
    result, _ = run("blocking", [cheater("cpurider", "170"), "sequential"], BOARD, clock=clock, log=log)
    assert (result.reason, result.offender) == ("timeout", 0), result.detail
    # With no CPU time left the wall cap is the margin left as well: whichever is seen first.
    assert "margin left of 200 ms" in result.detail, result.detail
    assert result.time_used_ms[0] <= 400 + 200 + SLACK_MS, result.time_used_ms
    assert verify(read_log(log)).ok


def edited(path: Path, change: Any) -> bytes:
    dump = json.loads(json.dumps(read_log(path).to_json_data()))
    change([r for r in dump["records"] if r["kind"] == "move"])
    return json.dumps(dump).encode()


def test_a_margin_edited_in_the_log_fails_verification(tmp_path: Path) -> None:
    log = tmp_path / "rider.msgpack"
    clock = ClockSettings(budget_ms=300, margin_ms=200)
    run("blocking", [cheater("rider", "120"), "sequential"], BOARD, clock=clock, log=log)
    assert verify(read_log(log)).ok
    second = own_moves(log)[1]["ply"] - 1  # 120 ms with no budget left: all of it from the margin

    def restore(moves: list[dict[str, Any]]) -> None:
        moves[second]["margin"] = 200  # as if the overrun had cost nothing

    def drop(moves: list[dict[str, Any]]) -> None:
        del moves[second]["margin"]

    for change in (restore, drop):
        verdict = verify(parse_log(edited(log, change)))
        assert not verdict.ok and verdict.ply == second + 1 and "margin" in verdict.message, verdict.message
