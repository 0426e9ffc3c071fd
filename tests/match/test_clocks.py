"""Clock modes: wall charges elapsed time; cpu charges the bot's CPU time with a wall cap."""

from __future__ import annotations

import pytest

from arena.clock import ClockError, ClockMode, ClockSettings, SeatClock
from tests.helpers import badbot, run

BOARD = {"rows": 4, "cols": 5}


def test_sleeping_bot_loses_on_wall_time_but_not_on_cpu_time() -> None:
    wall = ClockSettings(budget_ms=500, margin_ms=100)
    result, _ = run("blocking", [badbot("sleepy"), "sequential"], BOARD, clock=wall)
    assert (result.reason, result.offender) == ("timeout", 0)
    cpu = ClockSettings(budget_ms=500, margin_ms=100, mode=ClockMode.CPU, wall_factor=3.0)
    result, _ = run("blocking", [badbot("sleepy"), "sequential"], BOARD, clock=cpu)
    assert result.reason == "blocked" and result.offender is None, result.detail


def test_spinning_bot_loses_on_cpu_time_promptly() -> None:
    cpu = ClockSettings(budget_ms=400, margin_ms=100, mode=ClockMode.CPU, wall_factor=10.0)
    result, elapsed = run("blocking", [badbot("spin"), "sequential"], BOARD, clock=cpu)
    assert (result.reason, result.offender) == ("timeout", 0)
    assert "CPU time" in result.detail
    assert elapsed < 4.0  # well before the 5 s wall cap


def test_sleeping_past_the_wall_cap_loses_in_cpu_mode() -> None:
    cpu = ClockSettings(budget_ms=300, margin_ms=100, mode=ClockMode.CPU, wall_factor=1.5)
    result, _ = run("blocking", [badbot("hang"), "sequential"], BOARD, clock=cpu)
    assert (result.reason, result.offender) == ("timeout", 0)


def test_seat_clock_arithmetic() -> None:
    clock = SeatClock(ClockSettings(budget_ms=1000, increment_ms=50, move_cap_ms=300, margin_ms=20))
    assert clock.allowance_ms() == 300
    clock.charge(250, is_move=True)
    assert clock.left_ms == 800
    clock.charge(900, is_move=False)  # an overrun inside the margin leaves zero
    assert clock.left_ms == 0
    assert clock.deadline_after(10.0) == pytest.approx(10.02)


@pytest.mark.parametrize("field", ["budget_ms", "margin_ms", "increment_ms"])
def test_bad_clock_settings(field: str) -> None:
    with pytest.raises(ClockError, match=field):
        ClockSettings(**{field: -1})
    with pytest.raises(ClockError, match="mode"):
        ClockSettings(mode="sundial")


def test_a_clock_keeps_the_microseconds_a_log_records() -> None:
    """What a request says is left is what a replay of the log says: both from the same rounded clock."""
    clock = SeatClock(ClockSettings(budget_ms=10_000))
    clock.charge(153.0004, is_move=True)  # 9846.9996 left: the log records 9847.0
    assert clock.left_ms == round(clock.left_ms, 3) == 9847.0
    assert clock.allowance_ms() == int(round(clock.left_ms, 3)) == 9847
