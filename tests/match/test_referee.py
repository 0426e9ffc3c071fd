"""End-to-end tests of the referee with real bot processes and real sockets (faults: test_faults.py)."""

from __future__ import annotations

from pathlib import Path

from arena.logs.matchlog import read_log
from tests.helpers import badbot, run, survivors

BOARD = {"rows": 4, "cols": 5}


def test_stale_answers_are_dropped_not_obeyed(tmp_path: Path) -> None:
    result, _ = run("blocking", [badbot("stale_then_valid"), "sequential"], {"rows": 1, "cols": 9})
    assert result.reason == "blocked" and result.offender is None


def test_answering_twice_is_harmless(tmp_path: Path) -> None:
    result, _ = run("blocking", [badbot("twice"), "sequential"], {"rows": 3, "cols": 9})
    assert result.reason == "blocked"


def test_bot_that_ignores_bye_is_killed(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    result, elapsed = run("blocking", [badbot("ignore_bye", pidfile), "random"], BOARD)
    assert result.reason == "blocked"
    assert elapsed < 4.0
    assert survivors(pidfile) == []


def test_stderr_is_captured_in_the_log(tmp_path: Path) -> None:
    result, _ = run("blocking", [badbot("crash_mid_game"), "sequential"], BOARD, log=tmp_path / "m.msgpack")
    log = read_log(tmp_path / "m.msgpack")
    assert result.reason == "crash" and "SIGKILL" in result.detail
    bot = Path(__file__).resolve().parents[1] / "fixtures" / "raises.py"
    result, _ = run("blocking", [f"{bot}", "sequential"], BOARD, log=tmp_path / "r.msgpack")
    log = read_log(tmp_path / "r.msgpack")
    assert result.reason == "crash" and result.offender == 0
    assert "ZeroDivisionError" in log.output[0]


def test_clock_is_charged_and_logged(tmp_path: Path) -> None:
    result, _ = run("blocking", ["random", "maxblock"], {"rows": 6, "cols": 6}, log=tmp_path / "m.msgpack")
    log = read_log(tmp_path / "m.msgpack")
    moves = log.moves
    assert len(moves) == result.plies > 0
    for record in moves:
        assert 0 <= record["time_ms"] < 1000
        assert all(0 < c <= 10_000 for c in record["clocks"])
    assert log.header["clock"]["budget_ms"] == 10_000
    assert [s["name"] for s in log.header["seats"]] == ["random", "maxblock"]
