"""The bot launcher: mirrors the bot's exit, pins it, and takes it (and its children) down with its parent."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.tournament.helpers import LAUNCHER, recorded_alive


def launch(*command: str, cpus: str = "-", session: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), str(os.getpid()), cpus, "--", *command],
                          capture_output=True, text=True, timeout=30, start_new_session=session, check=False)


def test_exit_status_and_signal_are_mirrored() -> None:
    assert launch("sh", "-c", "echo hi; exit 7").returncode == 7
    assert launch("sh", "-c", "echo hi").stdout == "hi\n"
    assert launch("sh", "-c", "kill -9 $$").returncode == -9
    assert launch("sh", "-c", "kill -SEGV $$").returncode == -11
    assert launch("/no/such/program").returncode == 127


def test_a_death_by_sigkill_is_mirrored_without_the_launcher_killing_its_own_group() -> None:
    # As with cgroups to empty: the launcher does not end its process group, so only the mirror can say -9.
    assert launch("sh", "-c", "kill -9 $$", session=False).returncode == -9


def test_cpu_pinning_is_inherited_by_the_bot() -> None:
    cpu = min(os.sched_getaffinity(0))
    done = launch(sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))", cpus=str(cpu))
    assert done.stdout.strip() == f"[{cpu}]"


@pytest.mark.parametrize("death_signal", [False, True])
def test_the_bot_and_its_children_die_with_the_parent(tmp_path: Path, death_signal: bool) -> None:
    if death_signal and shutil.which("setpriv") is None:
        pytest.skip("setpriv is not installed")
    pidfile = tmp_path / "pids"
    workdir = tmp_path / "arena-bot-test"
    workdir.mkdir()
    # The bot records its pid and a child's, then sleeps; its parent dies by SIGKILL.
    bot = (f"import os, subprocess, sys, time; open({str(pidfile)!r}, 'a').write(f'{{os.getpid()}}\\n'); "
           f"c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']); "
           f"open({str(pidfile)!r}, 'a').write(f'{{c.pid}}\\n'); time.sleep(60)")
    chain = ["setpriv", "--pdeathsig", "KILL", "--"] if death_signal else []
    parent = textwrap.dedent(f"""
        import os, signal, subprocess, sys, time
        argv = {chain!r} + [sys.executable, "-I", "-S", {str(LAUNCHER)!r}, str(os.getpid()), "-", "--",
                            sys.executable, "-c", {bot!r}]
        subprocess.Popen(argv, start_new_session=True, cwd={str(workdir)!r})
        while not os.path.exists({str(pidfile)!r}) or len(open({str(pidfile)!r}).read().split()) < 2:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run([sys.executable, "-c", parent], timeout=30, check=False)
    assert done.returncode == -9
    assert recorded_alive(pidfile) == []
    assert not workdir.exists()  # the bot's scratch directory went with it
