"""Clock modes: wall charges elapsed time; cpu charges the bot's CPU time with a wall cap."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from arena.clock import ClockError, ClockMode, ClockSettings, SeatClock
from tests.helpers import FIXTURES, badbot, require, run

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
    result, _ = run("blocking", [badbot("spin"), "sequential"], BOARD, clock=cpu)
    assert (result.reason, result.offender) == ("timeout", 0)
    assert "CPU time" in result.detail  # the CPU clock ran out, not the 5 s wall cap (busy machine or not)


def test_sleeping_past_the_wall_cap_loses_in_cpu_mode() -> None:
    cpu = ClockSettings(budget_ms=300, margin_ms=100, mode=ClockMode.CPU, wall_factor=1.5)
    result, _ = run("blocking", [badbot("hang"), "sequential"], BOARD, clock=cpu)
    assert (result.reason, result.offender) == ("timeout", 0)
    # Only the wall cap ran out, and the detail says so.
    assert "wall time" in result.detail and "CPU time" not in result.detail, result.detail


@contextmanager
def busy_cpu(spinners: int) -> Iterator[int]:
    """One CPU kept busy by spinning processes (a loaded machine); yields the CPU's number."""
    cpu = min(os.sched_getaffinity(0))
    hogs = [subprocess.Popen(["taskset", "-c", str(cpu), sys.executable, "-c", "while True: pass"])
            for _ in range(spinners)]
    try:
        yield cpu
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_a_bot_starved_of_cpu_by_a_busy_machine_is_not_caught_by_the_wall_cap() -> None:
    # 450 ms of CPU a move on a CPU shared with four spinners: the bot gets about a fifth of it, so a
    # move takes ~2 s of wall time, past the wall cap of 1.2x the time left (~820 ms). The time it
    # waited for the CPU is the machine's: the cap leaves it out (it struck at the first move before).
    require("taskset")
    cpu = ClockSettings(budget_ms=600, increment_ms=500, margin_ms=100, mode=ClockMode.CPU, wall_factor=1.2)
    with busy_cpu(4) as core:
        burner = f"stdio:taskset -c {core} {sys.executable} {FIXTURES / 'cpuhog.py'} burner 450"
        result, elapsed = run("blocking", [burner, "sequential"], {"rows": 2, "cols": 5}, clock=cpu)
        assert result.offender is None, result.detail
        assert elapsed > 2 * 1.2 * 0.6  # starved indeed: longer than two moves' wall caps
        result, _ = run("blocking", [badbot("hang"), "sequential"], BOARD, clock=cpu)
    # A bot that sleeps is still caught by the wall cap, busy machine or not.
    assert (result.reason, result.offender) == ("timeout", 0) and "wall time" in result.detail, result.detail


def test_seat_clock_arithmetic() -> None:
    clock = SeatClock(ClockSettings(budget_ms=1000, increment_ms=50, move_cap_ms=300, margin_ms=20))
    assert clock.allowance_ms() == 300
    assert clock.deadline_after(10.0) == pytest.approx(10.32)
    clock.charge(250, is_move=True)
    assert (clock.left_ms, clock.margin_ms) == (800, 20)
    clock.charge(312.5, is_move=True)  # 12.5 ms past the cap: out of the margin, for good
    assert (clock.left_ms, clock.margin_ms) == (537.5, 7.5)
    assert clock.deadline_after(10.0) == pytest.approx(10.3075)
    assert clock.wall_cap_after(10.0) == pytest.approx(10.0 + (300 * 3.0 + 7.5) / 1000)
    clock.charge(305, is_move=False)  # 5 ms past the cap again
    assert (clock.left_ms, clock.margin_ms) == (232.5, 2.5)
    clock.charge(234, is_move=False)  # 2 ms past its 232 ms allowance: the budget is spent, 0.5 ms of margin left
    assert (clock.left_ms, clock.margin_ms) == (0, 0.5)
    assert clock.deadline_after(10.0) == pytest.approx(10.0005)  # only an instant reply is in time now
    clock.run_out()
    assert (clock.left_ms, clock.margin_ms) == (0, 0)


def test_the_margin_example_of_the_spec() -> None:
    """protocol/SPEC.md section 5, step by step: the margin is one reserve, spent for good."""
    clock = SeatClock(ClockSettings(budget_ms=2000, margin_ms=200))
    sent = []
    for took in (5, 2025, 150):
        sent.append((clock.allowance_ms(), clock.deadline_after(0.0) * 1000))
        clock.charge(took, is_move=True)
    sent.append((clock.allowance_ms(), clock.deadline_after(0.0) * 1000))
    assert sent == [(2000, pytest.approx(2200)), (1995, pytest.approx(2195)), (0, pytest.approx(170)),
                    (0, pytest.approx(20))]
    capped = SeatClock(ClockSettings(budget_ms=10_000, move_cap_ms=100, margin_ms=200))
    capped.charge(130, is_move=True)  # 30 ms past the cap, once
    assert capped.margin_ms == 170 and capped.deadline_after(0.0) == pytest.approx(0.270)


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
