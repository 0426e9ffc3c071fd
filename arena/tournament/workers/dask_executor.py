"""The Dask executor: every match is a task on a Dask cluster (`pip install 'arena[dask]'`).

Each worker process keeps MatchRunners (bot pools) between tasks, keyed by the
tournament's fingerprint, so bots stay alive from one match to the next there too. Logs
travel back with the result and the coordinator writes them, so workers on other hosts
need no shared file system. A worker that dies takes its bots with it (the launcher);
the scheduler re-runs its tasks elsewhere, and the coordinator records each match once.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from concurrent.futures import CancelledError
from dataclasses import dataclass, field, replace
from typing import Any

import zmq

from arena.tournament.plan.config import BotEntry
from arena.tournament.plan.errors import TournamentError
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.local import PREFETCH, Outcome
from arena.tournament.workers.worker import MatchRecord, MatchRunner, RunnerPlan

log = logging.getLogger(__name__)

CONNECT_TIMEOUT_S = 15
IDLE_CLOSE_S = 120.0  # a worker's bots for a tournament nobody runs any more are stopped after this
CAPACITY_REFRESH_S = 2.0


class DaskExecutorError(TournamentError):
    """The Dask cluster cannot be reached or used."""


# --- worker side (runs inside Dask worker processes) -------------------------------------


@dataclass
class _Cache:
    idle: dict[str, list[MatchRunner]] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    reaper: threading.Thread | None = None


_CACHE = _Cache()


def run_match(plan: RunnerPlan, task: MatchTask) -> MatchRecord:
    """The Dask task: play one match with a runner of this worker kept for the plan."""
    with _CACHE.lock:
        runners = _CACHE.idle.setdefault(plan.key, [])
        runner = runners.pop() if runners else None
        if _CACHE.reaper is None:
            _CACHE.reaper = threading.Thread(target=_reap, name="arena-reaper", daemon=True)
            _CACHE.reaper.start()
    if runner is None:
        runner = MatchRunner(plan)  # one per concurrent task thread: zmq sockets are not shared
    try:
        return runner.run(task)
    finally:
        with _CACHE.lock:  # the lock also hands the sockets over between threads safely
            _CACHE.idle.setdefault(plan.key, []).append(runner)


def release_plan(key: str) -> int:
    """Stop every bot this worker keeps for a tournament; return how many runners closed."""
    with _CACHE.lock:
        runners = _CACHE.idle.pop(key, [])
    for runner in runners:
        runner.close()
    return len(runners)


def _reap() -> None:
    """Close runners left idle (a coordinator that died never says it is done)."""
    while True:
        time.sleep(IDLE_CLOSE_S / 4)
        now = time.monotonic()
        stale: list[MatchRunner] = []
        with _CACHE.lock:
            for key, runners in _CACHE.idle.items():
                stale += [r for r in runners if now - r.last_used > IDLE_CLOSE_S]
                _CACHE.idle[key] = [r for r in runners if now - r.last_used <= IDLE_CLOSE_S]
        for runner in stale:
            try:
                runner.close()
            except (OSError, zmq.ZMQError):  # the reaper must survive one bad close
                log.exception("closing an idle match runner failed")


# --- coordinator side ---------------------------------------------------------------------


class DaskExecutor:
    """Runs matches as tasks on a Dask cluster (or on a local cluster it starts itself)."""

    def __init__(self, plan: RunnerPlan, scheduler: str | None, workers: int) -> None:
        self.plan = plan
        self.scheduler = scheduler
        self.workers = max(1, workers)
        self.client: Any = None
        self.cluster: Any = None
        self.futures: dict[Any, MatchTask] = {}
        self.attempt: dict[str, int] = {}
        self._capacity = self.workers * PREFETCH
        self._capacity_at = 0.0

    def start(self) -> None:
        """Connect to the scheduler (or start a local cluster of worker processes)."""
        from distributed import Client, LocalCluster

        try:
            if self.scheduler:
                self.client = Client(self.scheduler, timeout=CONNECT_TIMEOUT_S)
            else:
                self.cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1, processes=True,
                                            dashboard_address=None, silence_logs=logging.ERROR)
                self.client = Client(self.cluster)
        except (OSError, TimeoutError) as exc:
            raise DaskExecutorError(f"cannot connect to the Dask scheduler at {self.scheduler}: {exc}") from None

    @property
    def capacity(self) -> int:
        """Matches in flight: a couple per worker thread of the cluster as it is now."""
        now = time.monotonic()
        if now - self._capacity_at > CAPACITY_REFRESH_S:
            self._capacity_at = now
            try:
                threads = sum(self.client.nthreads().values())
            except (OSError, TimeoutError):
                threads = 0
            self._capacity = max(PREFETCH, threads * PREFETCH)
        return self._capacity

    def submit(self, task: MatchTask) -> None:
        """Submit one match as a task with a key of its own (a re-submission gets a new key)."""
        attempt = self.attempt.get(task.match, 0) + 1
        self.attempt[task.match] = attempt
        key = f"arena-{self.plan.key[:12]}-{task.match}-{attempt}"
        future = self.client.submit(run_match, self.plan, task, key=key, pure=False)
        self.futures[future] = task

    def add_bots(self, entries: tuple[BotEntry, ...]) -> None:
        """Know more bots (a ladder's new versions): a plan of its own, so workers start runners that know them."""
        old = self.plan.key
        count = len(self.plan.bots) + len(entries)
        self.plan = replace(self.plan, bots=self.plan.bots + entries, key=f"{old.split('+')[0]}+{count}")
        try:
            self.client.run(release_plan, old)  # the idle runners of the old plan stop their bots
        except (OSError, TimeoutError, CancelledError) as exc:
            log.warning("could not release the old plan's bots on every Dask worker: %s", exc)

    def wait(self, timeout: float | None = None) -> list[Outcome]:
        """Outcomes of the tasks done within timeout."""
        from distributed import wait

        if not self.futures:
            return []
        try:
            done, _ = wait(list(self.futures), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        outcomes = []
        for future in done:
            task = self.futures.pop(future)
            outcomes.append(self._outcome(future, task))
            future.release()
        return outcomes

    def _outcome(self, future: Any, task: MatchTask) -> Outcome:
        from distributed import KilledWorker

        if future.status == "finished":
            try:
                return Outcome(task, record=future.result())
            except (OSError, TimeoutError, CancelledError):  # the worker holding it is gone
                return Outcome(task, lost=True)
        if future.status == "cancelled":
            return Outcome(task, lost=True)
        exc = future.exception()
        if isinstance(exc, KilledWorker):
            return Outcome(task, lost=True)
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        return Outcome(task, error=text)

    def close(self, graceful: bool = True) -> None:
        """Forget pending tasks, stop this tournament's bots on every worker, disconnect."""
        if self.client is None:
            return
        try:
            for future in self.futures:
                future.cancel()
            self.futures.clear()
            self.client.run(release_plan, self.plan.key)
        except (OSError, TimeoutError, CancelledError) as exc:  # gone workers have no bots left to stop
            log.warning("could not stop the bots on every Dask worker: %s", exc)
        finally:
            self.client.close()
            if self.cluster is not None:
                self.cluster.close()
            self.client = self.cluster = None
