"""A tournament inside a pids limit of the machine's (a container's, a systemd slice's TasksMax).

The whole `arena tournament` runs in a real v1 pids cgroup whose `pids.max` is 28, as a
container's limit would hold it: bots' forks and launches are refused from above. No honest
bot may be charged for that: the matches it spoils are the machine's (played again, or the
run stops with one line), and `--resume` without the limit completes the tournament.
"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.outcomes import FAILURES
from tests.helpers import ROOT, require
from tests.launch.sandbox.test_attacks import needs_root
from tests.tournament.helpers import write_config

PIDS_ROOT = Path("/sys/fs/cgroup/pids")
# How the arena names the machine: a fork refused from above, or a process refused to its launch.
MACHINE = re.compile(r"a process limit above the arena's|the machine refused a process|failed before the bot ran")


def own_pids_cgroup() -> Path:
    """This process's cgroup in the v1 pids hierarchy (fails under CI where there is none)."""
    if not (PIDS_ROOT / "cgroup.procs").exists():
        if os.environ.get("CI"):
            pytest.fail("no v1 pids hierarchy under CI")
        pytest.skip("no v1 pids hierarchy here")
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        if "pids" in names.split(","):
            return PIDS_ROOT / path.lstrip("/")
    return PIDS_ROOT


@contextmanager
def outer_limit(limit: int) -> Iterator[Path]:
    """A pids cgroup below this test's own, with pids.max = limit; emptied and removed afterwards."""
    path = own_pids_cgroup() / f"outer-limit-test-{os.getpid()}"
    path.mkdir()
    try:
        (path / "pids.max").write_text(str(limit))
        yield path
    finally:
        remove_tree(path)


def remove_tree(path: Path) -> None:
    """Kill what is left in a cgroup tree (only this test's processes are there) and remove it."""
    deadline = time.monotonic() + 10
    while path.exists():
        for directory in sorted((d for d in path.rglob("*") if d.is_dir()), key=lambda d: -len(d.parts)) + [path]:
            for pid in (directory / "cgroup.procs").read_text().split() if directory.exists() else []:
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except ProcessLookupError:
                    pass
            try:
                directory.rmdir()
            except OSError:
                pass
        if time.monotonic() > deadline:
            raise AssertionError(f"cgroup {path} could not be removed")
        time.sleep(0.05)


def arena(*args: str, inside: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`arena ...` as a subprocess; inside: first joined to that cgroup (the command and all it starts)."""
    command = [sys.executable, "-m", "arena.cli", *args]
    if inside is not None:
        command = ["sh", "-c", f'echo $$ > {inside / "cgroup.procs"} && exec "$@"', "sh", *command]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)


def failures(out: Path) -> list[tuple[str, str]]:
    """(match, reason: detail) of every stored failure."""
    with sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT match, reason, detail FROM matches").fetchall()
    return [(match, f"{reason}: {detail}") for match, reason, detail in rows if reason in FAILURES]


def test_honest_bots_are_never_charged_for_an_outer_pids_limit_and_resume_completes(tmp_path: Path) -> None:
    needs_root()
    require("bwrap")
    config = write_config(tmp_path / "outer.toml", {
        "name": "outer", "game": "blocking", "seed": 3, "games_per_pairing": 2, "concurrency": 2,
        "sandbox": "bwrap", "bots": ["random", "sequential", "maxblock"],
        "setups": {"fixed": {"rows": 5, "cols": 5}}, "clock": {"budget_ms": 5000},
    })
    out = tmp_path / "out"
    with outer_limit(28) as outer:
        limited = arena("tournament", str(config), "--out", str(out), "--quiet", inside=outer)
    assert (out / "results.sqlite").exists()
    assert failures(out) == [], "a bot was charged for the machine's limit"
    said = limited.stderr.strip().splitlines()
    # The limit did refuse bots' forks (the test would prove nothing otherwise), and said so as the machine's.
    assert MACHINE.search(limited.stderr), limited.stderr
    if limited.returncode != 0:  # the machine never recovered: one line, naming it, after the warnings
        assert limited.returncode == 1, limited.stderr
        assert said[-1].startswith("arena tournament: outer: match ") and MACHINE.search(said[-1]), said[-1]
        assert "--resume continues" in said[-1]
    resumed = arena("tournament", str(config), "--out", str(out), "--resume", "--quiet")
    assert resumed.returncode == 0, resumed.stderr
    assert not MACHINE.search(resumed.stderr), resumed.stderr
    with sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True) as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 6
    assert failures(out) == []
    verified = arena("verify", str(out))
    assert verified.returncode == 0, verified.stdout
