"""The local executor: parallel referee processes, each with its own pool of bot processes.

Workers are fresh interpreters (`python -P -c BOOT`: no inherited sockets or database
handles) that import the arena and nothing else: unlike multiprocessing's `spawn`, they
never run the user's `__main__` again, so a script without a `__main__` guard, `python -`
and a notebook kernel all work. They die with the coordinator (PR_SET_PDEATHSIG); their
bots die with them (the launcher). Each worker has its own socket pair, so the coordinator
knows which matches a worker holds: if a worker dies, exactly those matches are handed back
to be re-queued.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing.connection
import os
import signal
import socket
import subprocess
import sys
import traceback
from collections import deque
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from arena.launch.processes.launcher import PR_SET_PDEATHSIG
from arena.tournament.plan.config import BotEntry
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.worker import MatchRecord, MatchRunner, RunnerPlan

log = logging.getLogger(__name__)

PREFETCH = 2  # matches queued per worker, so it never waits for the coordinator between two
STOP_GRACE_S = 10.0


@dataclass
class Outcome:
    """What became of a submitted match: a record, an error, or lost with its worker."""

    task: MatchTask
    record: MatchRecord | None = None
    error: str = ""  # an exception inside the arena (not a bot failure), with its traceback
    lost: bool = False  # the worker died: the match may be submitted again

    @property
    def problem(self) -> str:
        """What went wrong, in one line: the last line of the error, or that the worker was lost."""
        lines = self.error.strip().splitlines()
        return lines[-1] if lines else "its worker was lost"


def die_with_parent(parent: int) -> None:
    """Ask the kernel to SIGKILL this process when its parent (pid parent) dies (Linux)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        log.warning("cannot set PR_SET_PDEATHSIG; workers may outlive a killed coordinator")
    if os.getppid() != parent:  # the parent died before the request took effect (spawn is slow)
        os._exit(1)


def _worker_main(conn: Connection, plan: RunnerPlan, coordinator: int) -> None:
    """A worker process: play the matches that arrive on conn until None arrives."""
    die_with_parent(coordinator)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    if plan.cpus:
        os.sched_setaffinity(0, set(plan.cpus))
    runner = MatchRunner(plan)
    try:
        while True:
            task = conn.recv()
            if task is None:
                break
            if isinstance(task, tuple):  # ("bots", entries): a ladder's new versions
                runner.add_bots(task[1])
                continue
            try:
                conn.send(("ok", runner.run(task)))
            except Exception:  # noqa: BLE001 - an arena bug is reported (with its traceback), not fatal here
                conn.send(("error", traceback.format_exc()))
    except (EOFError, OSError):
        pass  # the coordinator is gone
    finally:
        runner.close()


# The worker's first lines: take the coordinator's import path, make sure `arena` is the very
# package the coordinator runs (a folder named `arena` in the working directory, such as a
# clone of the project, must not shadow it), then serve. -P keeps the working directory off the path.
BOOT = """\
import importlib.util, os, sys
from multiprocessing.connection import Connection
conn = Connection(int(sys.argv[1]))
path, root = conn.recv()
sys.path[:] = path
found = importlib.util.find_spec("arena")
if found is None or found.origin is None or os.path.dirname(os.path.dirname(found.origin)) != root:
    sys.path.insert(0, root)
from arena.tournament.workers.local import serve_worker
serve_worker(conn)
"""
ARENA_ROOT = str(Path(__file__).resolve().parents[3])  # the folder holding this `arena` package


def serve_worker(conn: Connection) -> None:
    """The worker process's main: receive the plan, then play matches until told to stop."""
    plan, coordinator = conn.recv()
    _worker_main(conn, plan, coordinator)


class WorkerProcess:
    """A worker interpreter started by subprocess, with what the executor needs of a process."""

    def __init__(self, number: int, plan: RunnerPlan) -> None:
        theirs, ours = socket.socketpair()
        self.popen = subprocess.Popen([sys.executable, "-P", "-c", BOOT, str(theirs.fileno())],
                                      pass_fds=(theirs.fileno(),), stdin=subprocess.DEVNULL)
        theirs.close()
        self.pid = self.popen.pid
        self.name = f"arena-worker-{number}"
        self.sentinel = os.pidfd_open(self.pid)  # readable once the process has ended
        self.conn = Connection(ours.detach())
        try:
            self.conn.send((sys.path, ARENA_ROOT))
            self.conn.send((plan, os.getpid()))
        except OSError:
            pass  # it died at once: wait() sees its sentinel and reports its matches as lost

    def is_alive(self) -> bool:
        """True while the process runs."""
        return self.popen.poll() is None

    @property
    def exitcode(self) -> int | None:
        """Its exit status (negative: the signal), None while it runs."""
        return self.popen.poll()

    def join(self, timeout: float | None = None) -> None:
        """Wait up to timeout for it to end."""
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            pass

    def kill(self) -> None:
        """SIGKILL it (its bots die with it)."""
        if self.popen.poll() is None:
            self.popen.kill()

    def close(self) -> None:
        """Release the pidfd once the process is gone."""
        if self.sentinel >= 0:
            os.close(self.sentinel)
            self.sentinel = -1


@dataclass
class _Worker:
    number: int
    process: WorkerProcess
    conn: Connection
    tasks: deque[MatchTask] = field(default_factory=deque)


def cpu_slices(workers: int) -> list[tuple[int, ...]]:
    """Split the usable cores into one disjoint set per worker (shared when there are too few)."""
    cores = sorted(os.sched_getaffinity(0))
    size = max(1, len(cores) // workers)
    return [tuple(cores[(i * size) % len(cores):][:size]) for i in range(workers)]


class LocalExecutor:
    """Runs matches on worker processes of this machine."""

    def __init__(self, plan: RunnerPlan, workers: int, pin_cpus: bool = False) -> None:
        self.plan = plan
        self.count = max(1, workers)
        self.slices = cpu_slices(self.count) if pin_cpus else [None] * self.count
        self.workers: list[_Worker] = []
        self.started = 0

    @property
    def capacity(self) -> int:
        """How many matches may be submitted at once."""
        return self.count * PREFETCH

    def start(self) -> None:
        """Start the worker processes."""
        for number in range(self.count):
            self.workers.append(self._spawn(number))

    def _spawn(self, number: int) -> _Worker:
        process = WorkerProcess(number, replace(self.plan, cpus=self.slices[number]))
        self.started += 1
        return _Worker(number, process, process.conn)

    def submit(self, task: MatchTask) -> None:
        """Hand a match to the least busy worker."""
        worker = min(self.workers, key=lambda w: len(w.tasks))
        worker.tasks.append(task)
        try:
            worker.conn.send(task)
        except (BrokenPipeError, OSError):
            pass  # the worker is dead; wait() reports its matches as lost

    def add_bots(self, entries: tuple[BotEntry, ...]) -> None:
        """Tell every worker of more bots, numbered after those known (sent before any match that uses them)."""
        self.plan = replace(self.plan, bots=self.plan.bots + entries)
        for worker in self.workers:
            try:
                worker.conn.send(("bots", entries))
            except (BrokenPipeError, OSError):
                pass  # a dead worker is replaced with the whole plan

    def wait(self, timeout: float | None = None) -> list[Outcome]:
        """Outcomes that are ready, after waiting up to timeout for the first one."""
        busy = [w for w in self.workers if w.tasks]
        if not busy:
            return []
        sources: dict[Any, _Worker] = {}
        for worker in busy:
            sources[worker.conn] = worker
            sources[worker.process.sentinel] = worker
        outcomes: list[Outcome] = []
        for ready in multiprocessing.connection.wait(list(sources), timeout):
            worker = sources[ready]
            if worker not in self.workers:
                continue  # already replaced in this round
            outcomes += self._collect(worker)
        return outcomes

    def _collect(self, worker: _Worker) -> list[Outcome]:
        outcomes = []
        broken = False
        try:
            while worker.tasks and worker.conn.poll():
                kind, value = worker.conn.recv()
                task = worker.tasks.popleft()
                outcomes.append(Outcome(task, record=value) if kind == "ok" else Outcome(task, error=value))
        except (EOFError, OSError):
            broken = True  # the worker is dying; a worker without its pipe is of no use anyway
            worker.process.join(1.0)
        if broken or not worker.process.is_alive():
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5.0)
            log.error("worker %d died (exit code %s); its %d matches are re-queued",
                      worker.number, worker.process.exitcode, len(worker.tasks))
            outcomes += [Outcome(task, lost=True) for task in worker.tasks]
            worker.conn.close()
            worker.process.close()
            self.workers[self.workers.index(worker)] = self._spawn(worker.number)
        return outcomes

    def close(self, graceful: bool = True) -> None:
        """Stop the workers: politely (bots get bye) or at once (kill; bots die with them)."""
        for worker in self.workers:
            if graceful:
                try:
                    worker.conn.send(None)
                except OSError:
                    pass
            else:
                worker.process.kill()
        for worker in self.workers:
            worker.process.join(STOP_GRACE_S if graceful else 5.0)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join(5.0)
            worker.conn.close()
            worker.process.close()
        self.workers = []
