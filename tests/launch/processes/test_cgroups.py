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
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.processes.cgroups import BotCgroup, CgroupLimits, v1_base

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
def outer() -> Iterator[Path]:
    """A cgroup of this test's own below the arena's (where zombies of earlier tests may count): the bot's parent."""
    if os.geteuid() != 0:
        pytest.skip("needs root (cgroups)")
    base = v1_base("pids")
    if base is None:
        if os.environ.get("CI"):
            pytest.fail("no writable v1 pids hierarchy under CI")
        pytest.skip("no writable v1 pids hierarchy")
    path = base / f"outer-test-{os.getpid()}"
    path.mkdir()
    yield path
    for directory in (path / "bot", path):
        if directory.exists():
            directory.rmdir()


@pytest.mark.parametrize(("own", "above", "charged"), [(4, "max", True), (64, "4", False), (4, "64", True)])
def test_v1_a_refusal_is_the_bots_only_when_its_own_limit_was_reached(outer: Path, own: int, above: str,
                                                                       charged: bool) -> None:
    (outer / "pids.max").write_text(above)  # a limit above the bot's own, or none
    (outer / "bot").mkdir()
    group = BotCgroup(None, {"pids": outer / "bot"}, CgroupLimits(processes=own, memory_mb=None))
    group._apply()
    try:
        made = forks_until_refused(group)
        own_refusals, from_above = group.fork_refusals()
        assert own_refusals + from_above == 1
        if charged:
            assert made == own - 1 and (own_refusals, from_above) == (1, 0)
            assert group.limit_hit() == f"its process limit ({own} processes) refused 1 fork(s)"
        else:
            assert made == int(above) - 1 and (own_refusals, from_above) == (0, 1)
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
