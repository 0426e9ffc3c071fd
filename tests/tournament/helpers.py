"""Shared helpers of the tournament tests: configs, the CLI as a subprocess, process checks."""

from __future__ import annotations

import csv
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.helpers import ROOT, alive

LAUNCHER = ROOT / "arena" / "launch" / "processes" / "launcher.py"
# Columns of matches.csv that depend on timing or on which worker played (not on the result).
VOLATILE = ("duration_s", "worker", "seat0_time_ms", "seat1_time_ms", "seat2_time_ms", "seat3_time_ms")


def toml_value(value: Any) -> str:
    """A Python value as TOML (enough for the configs of these tests)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {value!r}")


def write_config(path: Path, data: dict[str, Any]) -> Path:
    """Write a config map as a TOML file (top-level keys only, values inline)."""
    path.write_text("".join(f"{key} = {toml_value(value)}\n" for key, value in data.items()))
    return path


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `arena` tournament subcommands in a subprocess, as a user would."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, check=False)


def start_cli(*args: str) -> subprocess.Popen[str]:
    """Start `arena tournament ...` in the background."""
    return subprocess.Popen([sys.executable, "-m", "arena.cli", *args], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def rows_in(store: Path) -> int:
    """Rows in a results store (0 while it does not exist yet)."""
    if not store.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is being created
        return 0


def wait_rows(store: Path, count: int, proc: subprocess.Popen[str], timeout: float = 60) -> int:
    """Wait until the store holds at least count rows (or the process ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        rows = rows_in(store)
        if rows >= count or proc.poll() is not None:
            return rows
        time.sleep(0.002)
    raise TimeoutError(f"{store}: fewer than {count} rows after {timeout} s")


def read_matches(directory: Path) -> list[dict[str, str]]:
    """matches.csv as a list of rows."""
    with open(directory / "matches.csv", newline="") as f:
        return list(csv.DictReader(f))


def stable(rows: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows without the columns that depend on timing or on the worker."""
    return [{k: v for k, v in row.items() if k not in VOLATILE} for row in rows]


def launchers(parents: set[int] | None = None) -> list[int]:
    """Live bot launchers (optionally only those started by the given worker pids)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in argv]
        if str(LAUNCHER) in words:
            at = words.index(str(LAUNCHER))
            if (parents is None or int(words[at + 1]) in parents) and alive(int(entry)):
                found.append(int(entry))
    return found


def no_launchers_left(parents: set[int], timeout: float = 3.0) -> list[int]:
    """Launchers of these workers still alive after timeout (should be none)."""
    deadline = time.monotonic() + timeout
    left = launchers(parents)
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = launchers(parents)
    return left


def worker_pids(rows: list[dict[str, str]]) -> set[int]:
    """The pids of the workers that played the rows (host:pid)."""
    return {int(row["worker"].rsplit(":", 1)[1]) for row in rows if row["worker"] != "coordinator"}


def children_of(pid: int) -> set[int]:
    """The live child processes of pid."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry))
    return found


def integrity(store: Path) -> str:
    """SQLite's verdict on a store file."""
    with sqlite3.connect(store) as db:
        return str(db.execute("PRAGMA integrity_check").fetchone()[0])


def still_alive(pids: set[int], timeout: float = 5.0) -> list[int]:
    """Those of pids still alive after timeout (a worker still booting notices late)."""
    deadline = time.monotonic() + timeout
    left = [pid for pid in pids if alive(pid)]
    while left and time.monotonic() < deadline:
        time.sleep(0.02)
        left = [pid for pid in left if alive(pid)]
    return left


def recorded_alive(pidfile: Path, timeout: float = 2.0) -> list[int]:
    """The pids a bot wrote into pidfile that are still alive after timeout (should be none)."""
    if not pidfile.exists():
        return []
    return still_alive({int(word) for word in pidfile.read_text().split()}, timeout)
