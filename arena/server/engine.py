"""The server's engine: intake threads build and validate, the ladder thread plays the games its policy picks.

Games go through the tournament's local executor (persistent bot pools, the referee, the
clocks, signed logs under `ladder/logs`). A game is a row before it is played and gets its
result and the ratings it moves in one transaction, so a server killed at any moment
resumes its queue without losing or repeating a game: rows left `running` by a dead server
are queued again. A result is discarded when a version was replaced during its game. A
game the machine failed (worker lost, arena error) is retried a bounded number of times,
then voided, never charged to a bot. Which game is next and what a result does to the ratings
is the ladder's policy (policy.py); this module runs the threads, the executor and the leases.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

from arena.logs.signing import results_key
from arena.server.config import ServerConfig
from arena.server.db import Database, GameStatus, Row, Status, now
from arena.server.intake import Intake, house_spec
from arena.server.policy import LadderPolicy
from arena.tournament.config import BotEntry, ConfigError, bot_entries
from arena.tournament.dask_executor import DaskExecutor
from arena.tournament.executors import open_executor
from arena.tournament.files import write_atomic
from arena.tournament.local import LocalExecutor, Outcome
from arena.tournament.schedule import MatchTask
from arena.tournament.store import write_hint

log = logging.getLogger(__name__)

WAIT_S = 0.25  # the ladder loop's longest sleep: new versions and stop requests are seen this fast
INTAKE_THREADS = 2
HOUSE = "house"  # the entrant that owns the reference bots on the ladder


class LadderWriteError(OSError):
    """The ladder could not write a game's log (a full or read-only disk): the machine's failure, never a bot's."""


class BuildTally:
    """Builds finished since the start, by the state they left their version in (the metrics)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.total: Counter[str] = Counter()
        self.recent: deque[float] = deque(maxlen=100_000)  # when each ended (monotonic), for the last minute

    def add(self, outcome: str) -> None:
        """Count a finished build."""
        with self.lock:
            self.total[outcome] += 1
            self.recent.append(time.monotonic())

    def last(self, seconds: float) -> int:
        """Builds finished within the last seconds."""
        with self.lock:
            horizon = time.monotonic() - seconds
            return sum(1 for stamp in self.recent if stamp > horizon)


class Engine:
    """Runs intake and ladder threads until stopped."""

    def __init__(self, config: ServerConfig, db: Database) -> None:
        self.config = config
        self.db = db
        self.stop_event = threading.Event()
        self.threads: list[threading.Thread] = []
        self.policy = LadderPolicy(config, db)
        self.ladder_dir = config.directory / "ladder"
        self.slots: list[int] = []  # submission id of each bot number the workers know
        self.slot_of: dict[int, int] = {}
        self.inflight: dict[int, Row] = {}  # the games in the executor's hands, by id
        self.executor: LocalExecutor | DaskExecutor | None = None
        self.error = ""  # why the ladder stopped, when it did
        self.builds = BuildTally()

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Recover what a dead server left, seat the house bots, start the threads."""
        (self.ladder_dir / "logs").mkdir(parents=True, exist_ok=True)
        results_key(self.ladder_dir, create=True)
        self._recover()
        self._seat_house()
        for number in range(INTAKE_THREADS):
            self._thread(self._intake_loop, f"arena-intake-{number}")
        self._thread(self._ladder_loop, "arena-ladder")

    def _thread(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self, timeout: float = 30.0) -> None:
        """Finish the games in flight (up to timeout), then stop every thread and worker."""
        self.stop_event.set()
        deadline = time.monotonic() + timeout
        for thread in self.threads:
            thread.join(max(0.1, deadline - time.monotonic()))

    def _recover(self) -> None:
        """Games and builds a dead server left half-way go back to the queue."""
        with self.db.transaction() as tx:
            moved = tx.execute("UPDATE games SET status = ?, lease_until = 0 WHERE status = ?",
                               (GameStatus.QUEUED, GameStatus.RUNNING)).rowcount
            built = tx.execute("UPDATE submissions SET status = ?, lease_until = 0 WHERE status IN (?, ?)",
                               (Status.QUEUED, Status.BUILDING, Status.VALIDATING)).rowcount
        if moved or built:
            log.warning("resumed after an unclean stop: %d games and %d submissions queued again", moved, built)

    def _seat_house(self) -> None:
        """The reference bots join the ladder once, as versions of the house entrant."""
        stamp = now()
        with self.db.transaction() as tx:
            found = tx.execute("SELECT id FROM entrants WHERE house = 1").fetchone()
            house = found[0] if found else tx.execute(
                "INSERT INTO entrants (name, token_hash, created, house) VALUES (?, '-', ?, 1)",
                (HOUSE, stamp)).lastrowid
            seated = {r[0] for r in tx.execute("SELECT filename FROM submissions WHERE entrant = ?", (house,))}
            for number, bot in enumerate(self.config.tournament.bots, len(seated) + 1):
                if bot.name in seated:
                    continue
                tx.execute("INSERT INTO submissions (entrant, version, filename, language, status, detail, created, "
                           "updated, spec) VALUES (?, ?, ?, 'reference', ?, 'reference bot', ?, ?, ?)",
                           (house, number, bot.name, Status.ACTIVE, stamp, stamp,
                            house_spec(bot.name, bot.spec.text, bot.spec.options)))

    # --- intake ---------------------------------------------------------------------------

    def _intake_loop(self) -> None:
        intake = Intake(self.config, self.db)
        while not self.stop_event.is_set():
            try:
                row = intake.claim()
                if row is None:
                    self.stop_event.wait(WAIT_S)
                    continue
                intake.process(row)
                self.builds.add(str(self.db.value("SELECT status FROM submissions WHERE id = ?", row.id)))
            except Exception:  # noqa: BLE001 - an arena bug must not end the intake; it is logged
                log.exception("intake failed")
                self.stop_event.wait(1.0)
        self.db.close()

    # --- ladder ---------------------------------------------------------------------------

    def _entries_for(self, rows: list[Row]) -> tuple[BotEntry, ...]:
        tables = [json.loads(row.spec) for row in rows]
        return tuple(bot_entries(tables, self.config.game, source="the ladder"))

    def _make_executor(self) -> LocalExecutor | DaskExecutor:
        return open_executor(self.config.tournament, self.ladder_dir, self.config.executor, self.config.workers,
                             self.config.scheduler, key="ladder", bots=())

    def _ladder_loop(self) -> None:
        try:
            self.executor = self._make_executor()
            self.executor.start()
            while not self.stop_event.is_set():
                if self.db.setting("finals") == "running":
                    if self.inflight:
                        self._collect(WAIT_S)
                        continue
                    self._run_finals()
                    continue
                if self.db.setting("paused") == "1":  # the admin paused the ladder: finish what is in flight
                    if self.inflight:
                        self._collect(WAIT_S)
                    else:
                        self.stop_event.wait(WAIT_S)
                    continue
                self._seat_new_versions()
                self._fill()
                if self.inflight:
                    self._collect(WAIT_S)
                else:
                    self.stop_event.wait(WAIT_S)
            deadline = time.monotonic() + 20.0
            while self.inflight and time.monotonic() < deadline:  # a graceful stop finishes what is in flight
                self._collect(WAIT_S)
        except LadderWriteError as exc:  # the machine's failure, said in one line
            log.error("the ladder stopped: %s", exc)
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - the pages say the ladder stopped, and why
            log.exception("the ladder stopped")
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.executor is not None:
                self.executor.close(graceful=not self.inflight)
            self.db.close()

    def _seat_new_versions(self) -> None:
        """Tell the workers of versions that became active since."""
        rows = self.db.rows("SELECT id, spec FROM submissions WHERE status = ? ORDER BY id", Status.ACTIVE)
        new = [row for row in rows if row.id not in self.slot_of]
        if not new or self.executor is None:
            return
        startable, entries = [], []
        for row in new:
            try:
                entries += self._entries_for([row])
                startable.append(row)
            except ConfigError as exc:  # its files are gone or its program is missing on this machine
                self.db.execute("UPDATE submissions SET status = ?, detail = ?, updated = ? WHERE id = ?",
                                Status.DISABLED, f"disabled: cannot be started: {exc}", now(), row.id)
        if entries:
            self.executor.add_bots(tuple(entries))
        for row in startable:
            self.slot_of[row.id] = len(self.slots)
            self.slots.append(row.id)

    def _fill(self) -> None:
        """Start games until the executor is full: queued ones first, then new pairings."""
        assert self.executor is not None
        while len(self.inflight) < self.executor.capacity:
            game = self.policy.next_game(self._busy(), set(self.slot_of))
            if game is None:
                return
            self._submit(game)

    def _busy(self) -> set[int]:
        return {v for game in self.inflight.values() for v in (game.a, game.b)}

    def _lease_s(self) -> float:
        clock = self.config.tournament.clock
        return (2 * clock.budget_ms + clock.startup_ms) / 1000 * clock.wall_factor * self.config.ladder.lease_factor

    def _submit(self, game: Row) -> None:
        assert self.executor is not None
        self.db.execute("UPDATE games SET status = ?, attempts = attempts + 1, lease_until = ? WHERE id = ?",
                        GameStatus.RUNNING, now() + self._lease_s(), game.id)
        task = MatchTask(ord=game.id, match=f"g{game.id}", round=0, setup=game.setup, seed=game.seed,
                         bots=(self.slot_of[game.a], self.slot_of[game.b]))
        self.executor.submit(task)
        self.inflight[game.id] = game

    def _collect(self, timeout: float) -> None:
        assert self.executor is not None
        for outcome in self.executor.wait(timeout):
            game = self.inflight.pop(outcome.task.ord, None)
            if game is None:
                continue
            if outcome.record is None:
                self.policy.machine_failed(game, outcome.problem)
                continue
            if outcome.record.log_data is not None:  # a remote worker's log travels with its result
                self._store_log(game, outcome)
            self.policy.record(game, outcome.record)

    def _store_log(self, game: Row, outcome: Outcome) -> None:
        """Write a log that came with its result; a failed write stops the ladder, charged to no bot."""
        record = outcome.record
        assert record is not None and record.log_data is not None
        path = self.ladder_dir / record.log
        try:
            write_atomic(path, record.log_data)
        except OSError as exc:
            # A full or read-only disk fails every game alike: the game waits in the queue, unrecorded,
            # and the ladder stops, saying why (the pages, /health), until the admin mends it and restarts.
            self.policy.requeue(game)
            hint = write_hint(exc).replace("run again with --resume", "restart the server")
            raise LadderWriteError(f"cannot write the log of game {game.id} to {path}: {exc.strerror}; "
                                   f"the game is queued again: {hint}") from None
        record.log_data = None

    # --- finals ---------------------------------------------------------------------------

    def _run_finals(self) -> None:
        """Play (or resume) the finals to their end; the ladder waits meanwhile."""
        from arena.server.finals import run_finals

        try:
            run_finals(self.config, self.db, self.stop_event)
            if not self.stop_event.is_set():
                self.db.set_setting("finals", "done")
        except Exception as exc:  # noqa: BLE001 - shown on the admin page; the admin may start them again
            log.exception("the finals stopped")
            self.db.set_setting("finals", "failed")
            self.db.set_setting("finals_error", str(exc))


def ladder_log(config: ServerConfig, game: Row) -> Path | None:
    """The log file of a played game, if it has one."""
    if not game.log:
        return None
    path = config.directory / "ladder" / game.log
    return path if path.is_file() else None
