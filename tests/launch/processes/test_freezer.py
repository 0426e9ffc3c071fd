"""A bot's cgroups: frozen, it takes no CPU however it forks; thawed, it runs; frozen or not, it dies.

As root (as under CI) on a machine with cgroup v2 and the v1 freezer, both freezers are
tested; the launcher that supervises a bot stays outside its cgroups, so a worker that dies
while its bot is frozen still takes the bot and its setsid helpers down.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.processes.cgroups import BotCgroup, CgroupLimits
from tests.helpers import alive
from tests.tournament.helpers import LAUNCHER, recorded_alive

# A bot that forks three helpers, each in a session of its own, and spins with them.
SPINNERS = textwrap.dedent("""
    import os
    for _ in range(3):
        if os.fork() == 0:
            os.setsid()
            while True:
                pass
    while True:
        pass
""")


def freezable_group(kind: str) -> BotCgroup:
    """A fresh bot cgroup frozen by the kind asked for ("v2", "v1" or "any"); skipped outside CI where there is none."""
    group = BotCgroup.create(CgroupLimits())
    if group is not None and kind == "v1":
        group = BotCgroup(None, dict(group.v1), group.limits) if "freezer" in group.v1 else None
    if group is None or not group.freezable:
        if os.environ.get("CI"):
            pytest.fail(f"no writable {kind} cgroup freezer under CI (the tests run as root)")
        pytest.skip(f"no writable {kind} cgroup freezer here")
    return group


@pytest.fixture(params=["v2", "v1"])
def group(request: pytest.FixtureRequest) -> Iterator[BotCgroup]:
    made = freezable_group(request.param)
    yield made
    made.kill()
    made.remove()


def joiner(group: BotCgroup):  # type: ignore[no-untyped-def]
    """A preexec_fn that moves the new process into the group's cgroups."""
    def join() -> None:
        for procs in group.procs_files():
            with open(procs, "w") as f:
                f.write(str(os.getpid()))
    return join


def start_in(group: BotCgroup, code: str) -> subprocess.Popen[bytes]:
    """A Python process that joins the group's cgroups before it runs code."""
    return subprocess.Popen([sys.executable, "-c", code], preexec_fn=joiner(group), start_new_session=True)


def wait_until(condition, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def cpu_of(pid: int) -> float:
    """CPU seconds of one process."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_frozen_bot_takes_no_cpu_however_it_forks(group: BotCgroup) -> None:
    bot = start_in(group, SPINNERS)
    reference = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        assert wait_until(lambda: len(group.pids()) == 4), group.pids()
        start = group.cpu_ms()
        assert wait_until(lambda: group.cpu_ms() > start + 100), "the spinners never ran"
        group.freeze()
        assert wait_until(group.is_frozen), "the freeze never took hold"
        frozen_at = group.cpu_ms()
        # While another process spins for 0.3 s of CPU, the frozen bot gets nothing.
        begun = cpu_of(reference.pid)
        assert wait_until(lambda: cpu_of(reference.pid) > begun + 0.3)
        assert group.cpu_ms() - frozen_at < 5, "a frozen bot still ran"
        group.thaw()
        assert wait_until(lambda: group.cpu_ms() > frozen_at + 100), "the thawed bot does not run"
        group.freeze()
        members = group.pids()
        group.kill()  # frozen: the v1 freezer would keep even SIGKILL waiting without a thaw first
        assert wait_until(lambda: not any(alive(pid) for pid in members)), "a frozen bot survived its kill"
    finally:
        reference.kill()
        reference.wait()
        bot.kill()
        bot.wait()


def test_a_frozen_bot_dies_with_its_worker(tmp_path: Path) -> None:
    group = freezable_group("any")
    pidfile = tmp_path / "pids"
    # The worker starts a bot through the launcher, which joins the bot's cgroups in its child only.
    bot = (f"import os, time; pid = os.fork()\n"
           f"if pid == 0:\n    os.setsid(); time.sleep(60)\n"
           f"open({str(pidfile)!r}, 'w').write(f'{{os.getpid()}} {{pid}}\\n'); time.sleep(60)")
    joins = [word for procs in group.procs_files() for word in ("--join", procs)]
    worker = textwrap.dedent(f"""
        import os, subprocess, sys, time
        subprocess.Popen([sys.executable, "-I", "-S", {str(LAUNCHER)!r}, str(os.getpid()), "-", *{joins!r}, "--",
                          sys.executable, "-c", {bot!r}], start_new_session=True)
        time.sleep(60)
    """)
    parent = subprocess.Popen([sys.executable, "-c", worker])
    try:
        assert wait_until(lambda: pidfile.exists() and len(pidfile.read_text().split()) == 2)
        bot_pids = {int(p) for p in pidfile.read_text().split()}
        assert group.pids() == bot_pids  # the launcher is not a member: freezing the bot leaves it running
        group.freeze()
        assert wait_until(group.is_frozen)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert recorded_alive(pidfile, timeout=5.0) == []
        assert wait_until(lambda: not group.pids())
    finally:
        group.kill()
        group.remove()


def test_a_bot_pinned_to_a_core_cannot_leave_it() -> None:
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core: nothing to leave")
    group = BotCgroup.create(CgroupLimits(cpus=(cores[-1],)))
    if group is None or "cpuset" not in group.v1 and not (group.v2 and (group.v2 / "cpuset.cpus").exists()):
        if os.environ.get("CI"):
            pytest.fail("no writable cpuset cgroup under CI (the tests run as root)")
        pytest.skip("no writable cpuset cgroup here")
    escape = f"import os; os.sched_setaffinity(0, {set(cores)!r}); print(sorted(os.sched_getaffinity(0)))"
    try:
        done = subprocess.run([sys.executable, "-c", escape], preexec_fn=joiner(group), capture_output=True, text=True,
                              timeout=30, check=False)
        assert done.stdout.strip() == f"[{cores[-1]}]", done.stderr
    finally:
        group.kill()
        group.remove()
