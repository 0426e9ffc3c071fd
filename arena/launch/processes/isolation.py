"""What is left of a bot after it ends: orphans reaped, CPU time of a process tree."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import time
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

_PR_SET_CHILD_SUBREAPER = 36


# --- orphans ---------------------------------------------------------------------------

MARK_VARIABLE = "ARENA_BOT_MARK"  # inherited by a bot's descendants, so orphans can be told apart


@lru_cache(maxsize=1)
def become_subreaper() -> bool:
    """Make orphaned descendants of our bots (setsid included) our children, so we can kill them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False


def _children() -> set[int]:
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return pids


def _has_mark(pid: int, mark: str) -> bool:
    try:
        return f"{MARK_VARIABLE}={mark}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def _reap(pids: set[int], timeout: float = 1.0) -> None:
    deadline = time.monotonic() + timeout
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.002)


def sweep_orphans(mark: str, exclude: int = 0, rounds: int = 10) -> int:
    """Kill and reap our children that descend from the bot carrying mark (not the bot itself).

    As a subreaper we inherit a bot's orphans, setsid or not; the mark in their environment
    tells them from the host's own children (a Dask worker, a test's subprocess).
    """
    killed = 0
    for _ in range(rounds):
        orphans = {pid for pid in _children() - {exclude} if _has_mark(pid, mark)}
        if not orphans:
            break
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        killed += len(orphans)
        _reap(orphans)
    return killed


def reap_children(pids: set[int]) -> None:
    """Reap those of pids that are our children (killed members of a bot's cgroup)."""
    _reap(pids & _children())


def process_tree_cpu_ms(pid: int) -> float:
    """CPU time of a process and its live descendants (and reaped ones), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    stack = [pid]
    seen = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15]) / tick * 1000.0  # utime stime cutime cstime
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


def tree_pids(pid: int) -> set[int]:
    """A process and its live descendants, from /proc."""
    found: set[int] = set()
    stack = [pid]
    while stack:
        current = stack.pop()
        if current in found:
            continue
        try:
            children = [int(p) for task in Path(f"/proc/{current}/task").iterdir()
                        for p in (task / "children").read_text().split()]
        except (OSError, ValueError):
            continue
        found.add(current)
        stack.extend(children)
    return found


def run_delay_ms(pids: set[int]) -> float:
    """How long these processes' threads have waited for a CPU while runnable (schedstat), in milliseconds."""
    total = 0
    for pid in pids:
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue
        for task in tasks:
            try:
                total += int((task / "schedstat").read_text().split()[1])
            except (OSError, ValueError, IndexError):
                continue
    return total / 1e6

