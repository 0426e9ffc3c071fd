"""Which limit refused a bot's fork: its own (the bot's failure) or one above it (the machine's).

The v1 case runs on real cgroups (tests/match/test_machine_refusals.py plays whole matches
with it). This machine's v2 hierarchy has no pids controller, so the v2 reading is checked on
a copy of the files a Linux 6.13+ kernel keeps: `pids.events.local` of the bot's own cgroup
counts only its own limit's refusals, an ancestor's counts those of its limit below it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.cgroups import BotCgroup, CgroupLimits, v1_base

FORKER = """
import os, sys, time
children = []
while True:
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    children.append(pid)
print(len(children), flush=True)
for pid in children:
    os.kill(pid, 9)
"""


def forks_until_refused(group: BotCgroup) -> int:
    """Run a process in the bot's cgroup that forks until refused; how many forks it got."""
    join = "; ".join(f'echo $$ > "{path}"' for path in group.procs_files())
    done = subprocess.run(["sh", "-c", f'{join} && exec "$@"', "sh", sys.executable, "-c", FORKER],
                          capture_output=True, text=True, timeout=60, check=True)
    return int(done.stdout)


@pytest.fixture
def base() -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("needs root (cgroups)")
    found = v1_base("pids")
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("no writable v1 pids hierarchy under CI")
        pytest.skip("no writable v1 pids hierarchy")
    yield found
    (found / "pids.max").write_text("max")


def v1_group(base: Path, processes: int) -> BotCgroup:
    directory = base / f"test-{os.getpid()}-{time.monotonic_ns()}"
    directory.mkdir()
    group = BotCgroup(None, {"pids": directory}, CgroupLimits(processes=processes, memory_mb=None))
    group._apply()
    return group


@pytest.mark.parametrize(("own", "above", "charged"), [(4, "max", True), (64, "4", False), (4, "64", True)])
def test_v1_a_refusal_is_the_bots_only_when_its_own_limit_was_reached(base: Path, own: int, above: str,
                                                                       charged: bool) -> None:
    (base / "pids.max").write_text(above)  # the bots' parent: a limit above every bot's own
    group = v1_group(base, own)
    try:
        made = forks_until_refused(group)
        own_refusals, from_above = group.fork_refusals()
        assert own_refusals + from_above == 1
        if charged:
            assert made == own - 1 and (own_refusals, from_above) == (1, 0)
            assert group.limit_hit() == f"its process limit ({own} processes) refused 1 fork(s)"
        else:
            assert made < own - 1 and (own_refusals, from_above) == (0, 1)
            assert group.limit_hit() == ""
    finally:
        group.kill()
        group.remove()


def test_v2_own_refusals_are_local_and_those_from_above_are_the_ancestors(tmp_path: Path) -> None:
    # A copy of the files of /sys/fs/cgroup/<slice>/arena-PID/bot1 on a v2 kernel with pids.events.local.
    root, files = tmp_path / "cgroup", {}
    for level in ("slice", "slice/arena-1", "slice/arena-1/bot1"):
        (root / level).mkdir(parents=True)
        files[level] = root / level
    for directory in files.values():
        (directory / "pids.max").write_text("max\n")
        (directory / "pids.events.local").write_text("max 0\n")
    (files["slice"] / "pids.max").write_text("28\n")
    (files["slice"] / "pids.events.local").write_text("max 5\n")  # refusals of its limit before the bot
    group = BotCgroup(files["slice/arena-1/bot1"], {}, CgroupLimits(processes=64))
    assert group.fork_refusals() == (0, 0)
    (files["slice"] / "pids.events.local").write_text("max 7\n")  # two forks refused by the slice's limit
    assert group.fork_refusals() == (0, 2) and group.limit_hit() == ""
    (files["slice/arena-1/bot1"] / "pids.events.local").write_text("max 3\n")  # three by its own
    assert group.fork_refusals() == (3, 2)
    assert group.limit_hit() == "its process limit (64 processes) refused 3 fork(s)"
