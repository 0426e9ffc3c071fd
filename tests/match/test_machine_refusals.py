"""Refusals from above are the machine's: a process limit above a bot's own cgroup never fails the bot.

A container's pids limit or a systemd slice's TasksMax refuses the forks of every process
below it, and the kernel counts those refusals in the bot's own cgroup too. Here the limit
above is real: `pids.max` of the arena's own cgroup directory, the parent of every bot's
cgroup. A bot whose fork it refuses and that then fails ends the match with MachineError (no
result, no log); the control is a bot that reaches its own `limits.processes`, charged as before.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.processes.cgroups import v1_base, v2_base
from arena.launch.processes.process import Limits, MachineError
from arena.launch.sandbox.sandbox import Sandbox
from tests.helpers import FIXTURES, require, run
from tests.launch.sandbox.test_attacks import (
    BOARD,
    SYSTEM_PYTHON,
    attacker,
    honest_bot_unharmed,
    needs_root,
)

HONEST = f"stdio:{SYSTEM_PYTHON} {FIXTURES / 'stdiobot.py'}"  # one process, no threads


def arena_pids_dir() -> Path:
    """The arena's own cgroup directory holding a pids limit: every bot's cgroup is below it."""
    base = v1_base("pids")
    if base is None:
        v2 = v2_base()
        base = v2 if v2 is not None and (v2 / "pids.max").exists() else None
    if base is None:
        if os.environ.get("CI"):
            pytest.fail("no writable pids cgroup under CI")
        pytest.skip("no writable pids cgroup here")
    return base


def held(limit: Path) -> int:
    """The processes the cgroup of this pids.max holds now."""
    return int((limit.parent / "pids.current").read_text())


@pytest.fixture
def limit_above() -> Iterator[Path]:
    """The pids.max of the bots' parent cgroup, set by the test and lifted after it."""
    needs_root()
    path = arena_pids_dir() / "pids.max"
    yield path
    path.write_text("max")


def test_a_launch_refused_from_above_is_the_machines_and_leaves_no_log(tmp_path: Path, limit_above: Path) -> None:
    require("bwrap")
    limit_above.write_text("1")  # each bot's first process joins (a move is never refused); bwrap's fork is
    log = tmp_path / "refused.msgpack"
    with pytest.raises(MachineError, match=r"a process limit above the arena's .* refused 1 fork\(s\) of "
                                           r"(random|sequential), which then failed \(crash\)"):
        run("blocking", ["random", "sequential"], BOARD, log=log, sandbox=Sandbox.BWRAP)
    assert not log.exists()
    limit_above.write_text("max")  # the control: the same match with room for every process
    result, _ = run("blocking", ["random", "sequential"], BOARD, log=log, sandbox=Sandbox.BWRAP)
    honest_bot_unharmed(result)


def test_a_fork_refused_from_above_mid_match_is_the_machines(tmp_path: Path, limit_above: Path) -> None:
    limit_above.write_text("1")  # both bots run (one process each), and no fork of theirs is allowed
    log = tmp_path / "refused.msgpack"
    with pytest.raises(MachineError, match=r"refused 1 fork\(s\) of .*, which then failed \(crash\)"):
        run("blocking", [attacker("fork_bomb", "crash"), HONEST], BOARD, log=log)
    assert not log.exists()


@pytest.mark.parametrize("room", [None, 40])
def test_a_bot_that_reaches_its_own_process_limit_is_charged(tmp_path: Path, limit_above: Path,
                                                             room: int | None) -> None:
    # None above, or one with room for more than the bot's own (beyond what it holds: zombies
    # of earlier tests' bots, never reaped by the test session, still count there).
    limit_above.write_text("max" if room is None else str(held(limit_above) + room))
    result, _ = run("blocking", [attacker("fork_bomb", "crash"), HONEST], BOARD, log=tmp_path / "own.msgpack",
                    limits=Limits(processes=6))
    assert (result.reason, result.offender) == ("crash", 0), result.detail
    assert "after its process limit (6 processes) refused" in result.detail, result.detail
    assert "refused after 5 forks: EAGAIN" in result.detail, result.detail


def test_an_honest_bot_without_refusals_is_charged_as_ever(tmp_path: Path, limit_above: Path) -> None:
    limit_above.write_text(str(held(limit_above) + 40))
    crash = f"stdio:{sys.executable} -c 'import sys; sys.exit(4)'"
    result, _ = run("blocking", [crash, HONEST], BOARD, log=tmp_path / "crash.msgpack")
    assert (result.reason, result.offender) == ("crash", 0), result.detail
    assert "refused" not in result.detail
