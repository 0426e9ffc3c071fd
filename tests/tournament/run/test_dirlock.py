"""One writer per results directory: a second one is refused with the first one's pid, and harms nothing.

Two real processes each time: a series or a lock holder, and the command that must be
refused (or must take over the lock of a holder that died).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.tournament.run.dirlock import LOCK_FILE, DirectoryInUse, lock_directory, writer_of
from tests.cli.test_cli import arena
from tests.helpers import FIXTURES, ROOT
from tests.tournament.helpers import rows_in, write_config

Holder = tuple[subprocess.Popen[str], Path]  # a process holding a directory's lock, and the directory
PACED = f"exec:{sys.executable} {FIXTURES / 'badbot.py'} paced"  # a few ms a move: the series lasts


def wait_for(check: Callable[[], object], timeout: float, what: str) -> object:
    """Poll check() until it returns something true."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)
    return value


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Holder]:
    """Another process holding the lock of tmp_path/dir (as a writer of it would)."""
    directory = tmp_path / "dir"
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom arena.tournament.run.dirlock import lock_directory\n"
         "lock = lock_directory(sys.argv[1])\nprint('locked', flush=True)\ntime.sleep(600)", str(directory)],
        cwd=ROOT, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None and process.stdout.readline() == "locked\n"
    yield process, directory
    process.kill()
    process.wait()


def test_a_second_series_on_a_directory_in_use_is_refused_and_harms_nothing(tmp_path: Path) -> None:
    out = tmp_path / "series"
    series = ("match", "blocking", PACED, "random", "--games", "120", "--workers", "2", "--out", str(out), "--quiet")
    first = subprocess.Popen([sys.executable, "-m", "arena.cli", *series], cwd=tmp_path,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for(lambda: rows_in(out / "results.sqlite") >= 4, 60, "the first results of the series")
        key = (out / "log.key").read_bytes()
        first.send_signal(signal.SIGSTOP)  # hold it mid-run (its lock held), so the checks cannot race its end
        try:
            second = arena(*series, "--resume", cwd=tmp_path)
            verified = arena("verify", str(out))
            standings = arena("standings", str(out))
        finally:
            first.send_signal(signal.SIGCONT)
        assert second.returncode == 2
        assert second.stderr == f"arena match: error: {out} is in use by pid {first.pid}\n"
        assert verified.returncode == 1
        assert verified.stdout.splitlines()[0] == (f"{out} is in use by pid {first.pid}: it is being written now, "
                                                   "so what is not written yet shows as missing")
        assert standings.returncode == 0, standings.stderr  # the standings so far, printed
        assert standings.stderr == f"arena standings: {out} is in use by pid {first.pid}: its reports are left to it\n"
        assert not (out / "standings.md").exists()
        _, err = first.communicate(timeout=120)
    finally:
        first.kill()
        first.wait()
    assert first.returncode == 0, err
    assert (out / "log.key").read_bytes() == key
    verified = arena("verify", str(out))
    assert verified.returncode == 0, verified.stdout  # no log cut short, no row missing
    assert verified.stdout.strip().endswith("verified 120 matches, 120 logs: OK")
    assert writer_of(out) is None and (out / LOCK_FILE).read_text() == ""


def test_a_tournament_on_a_directory_in_use_touches_nothing(tmp_path: Path, holder: Holder) -> None:
    process, directory = holder
    config = write_config(tmp_path / "t.toml", {"name": "t", "game": "blocking", "bots": ["random", "sequential"],
                                                "setups": {"fixed": {"rows": 4, "cols": 4}}})
    done = arena("tournament", str(config), "--out", str(directory))
    assert done.returncode == 2
    assert done.stderr == f"arena tournament: error: {directory} is in use by pid {process.pid}\n"
    assert sorted(p.name for p in directory.iterdir()) == [LOCK_FILE]  # no store, no key, no logs


def test_the_holder_is_named_by_the_kernel_and_a_dead_ones_lock_is_taken_over(holder: Holder) -> None:
    process, directory = holder
    lock_file = directory / LOCK_FILE
    assert lock_file.read_text() == f"{process.pid}\n"
    lock_file.write_text("1\n")  # a pid that lives but holds nothing: not believed
    with pytest.raises(DirectoryInUse) as refused:
        lock_directory(directory)
    assert refused.value.pid == process.pid
    assert writer_of(directory) == process.pid
    process.kill()
    process.wait()
    assert writer_of(directory) is None  # the kernel dropped the dead holder's lock; "1" in the file is stale
    with lock_directory(directory) as lock:
        assert lock.held and lock_file.read_text() == f"{os.getpid()}\n"
        assert writer_of(directory) == os.getpid()
    assert lock_file.read_text() == "" and writer_of(directory) is None
