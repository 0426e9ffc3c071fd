"""Strict alternation: a bot gets the CPU only while it is on move, so CPU hogs starve nobody.

The attacker (tests/fixtures/cpuhog.py) forks 60 spinners, each in a session of its own, stops
them on its own turn and lets them run on the opponent's. The honest bot needs 150 ms of CPU
per move on a 300 ms budget + 200 ms a move (CPU time, with a wall cap): beside a harmless
opponent (the control) it never loses on time, and beside the hog its result must be the
control's (unprotected, it gets 1/61 of the CPU and runs into the wall cap). With `ponder`
nobody is frozen: then each bot's cgroup, one CPU share however many sessions it starts, is
what protects the honest bot.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.sandbox.sandbox import Sandbox
from arena.logs.matchlog import read_log
from tests.helpers import FIXTURES, require, run
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, bot_uid_processes, needs_root

HOG = FIXTURES / "cpuhog.py"
BOARD = {"rows": 8, "cols": 8}
# The CPU clock, with a wall cap of 10x the CPU time left: the figures hold on a busy machine
# too, while a bot that gets 1/61 of the CPU (the hog's share, unprotected) runs into the cap.
TIGHT = ClockSettings(budget_ms=300, increment_ms=200, mode="cpu", wall_factor=10.0)
ROOMY = ClockSettings(budget_ms=20_000)  # the hog's own clock: it must not lose on time itself


def cpuhog(mode: str, arg: int) -> str:
    return f"stdio:{SYSTEM_PYTHON} {HOG} {mode} {arg}"


def play(honest_seat: int, opponent: str, ponder: bool = False) -> tuple[str, int | None, list[int], int]:
    """The honest burner against opponent in bwrap; (reason, offender, ranks, plies)."""
    honest = cpuhog("burner", 150)
    bots = [honest, opponent] if honest_seat == 0 else [opponent, honest]
    clocks = [TIGHT, ROOMY] if honest_seat == 0 else [ROOMY, TIGHT]
    result, _ = run("blocking", bots, BOARD, clock=clocks, sandbox=Sandbox.BWRAP, ponder=ponder)
    return result.reason, result.offender, result.ranks, result.plies


@pytest.mark.parametrize("ponder", [False, True], ids=["strict", "ponder"])
@pytest.mark.parametrize("honest_seat", [0, 1])
def test_a_cpu_hog_cannot_starve_the_bot_on_move(honest_seat: int, ponder: bool) -> None:
    needs_root()
    require("bwrap")
    control = play(honest_seat, cpuhog("burner", 1), ponder)
    assert control[0] == "blocked", control  # the honest bot keeps to its clock when nobody hogs
    attacked = play(honest_seat, cpuhog("hog", 60), ponder)
    assert attacked == control
    assert bot_uid_processes(b"cpuhog") == []  # no spinner outlives its bot


def pondered_ms(ponder: bool, log: Path) -> tuple[float, int]:
    """The CPU (ms) the ponderer got while the burner was on move, over how many waits."""
    result, _ = run("blocking", [cpuhog("ponderer", 0), cpuhog("burner", 40)], BOARD, clock=ROOMY,
                    log=log, sandbox=Sandbox.BWRAP, ponder=ponder)
    assert result.reason == "blocked", result.detail
    found = re.search(r"PONDERED ([0-9.]+) ms over (\d+) waits", read_log(log).output.get(0, ""))
    assert found, read_log(log).output
    return float(found.group(1)), int(found.group(2))


def test_a_bot_that_spins_after_its_answer_is_frozen_before_the_opponent_thinks(tmp_path: Path) -> None:
    """The answering bot is frozen before the opponent thaws: it spins through the referee's handling of its reply."""
    needs_root()
    require("bwrap")
    control, waits = pondered_ms(True, tmp_path / "ponder.msgpack")
    assert waits >= 5 and control > 20 * waits, (control, waits)  # pondering, it spins through the burner's 40 ms
    strict, waits = pondered_ms(False, tmp_path / "strict.msgpack")
    assert waits >= 5 and strict * 10 < control, (strict, control)  # a sliver of each wait, not 40 ms
