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

import dataclasses
import logging
import os
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

from arena.logs.signing import results_key
from arena.server.engine import remotes
from arena.server.engine.intake import Intake, house_spec
from arena.server.engine.policy import LadderPolicy
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, GameStatus, Row, Status, now
from arena.server.state.eventlog import tell
from arena.server.state.layout import migrate, version_entries
from arena.tournament.plan.config import BotEntry, ConfigError
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.results.files import write_atomic
from arena.tournament.results.store import write_hint
from arena.tournament.workers.dask_executor import DaskExecutor
from arena.tournament.workers.executors import open_executor
from arena.tournament.workers.local import LocalExecutor, Outcome
from arena.tournament.workers.worker import LOG_SUFFIX

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


class LadderProgress:
    """Tells the ladder's progress every config.log_every games, and when it comes to rest or plays again."""

    def __init__(self, config: ServerConfig, db: Database) -> None:
        self.config = config
        self.db = db
        self.count = 0  # games recorded by this process
        self.since = time.monotonic()
        self.at_rest = False
        self.looked = 0.0  # when an idle ladder last looked whether it is at rest

    def played(self) -> None:
        """One more game recorded: every log_every games, a line of the ladder's state."""
        self.count += 1
        if self.count % self.config.log_every:
            return
        took, self.since = time.monotonic() - self.since, time.monotonic()
        done, short = self._state()
        tell("ladder", "%d games played (the last %d in %.0f s); versions still short of %d games: %d", done,
             self.config.log_every, took, self.config.ladder.max_games, short, games=done, short=short)

    def resting(self, idle: bool) -> None:
        """Whether the ladder found nothing to play just now: the rest told once entrants' versions played out."""
        if not idle:
            if self.at_rest:
                tell("ladder", "playing again")
                self.at_rest = False
            return
        if self.at_rest or time.monotonic() - self.looked < 1.0:  # idle: looked at once a second
            return
        self.looked = time.monotonic()
        done, short = self._state()
        if short == 0 and self._entrants():
            tell("ladder", "at rest: every entrant's version has played its %d games (%d games in all); a new "
                 "version wakes it", self.config.ladder.max_games, done, games=done)
            self.at_rest = True

    def _entrants(self) -> int:
        return int(self.db.value("SELECT COUNT(*) FROM submissions s JOIN entrants e ON e.id = s.entrant "
                                 "WHERE s.status = ? AND e.house = 0", Status.ACTIVE))

    def _state(self) -> tuple[int, int]:
        """(games done, active versions of entrants still short of max_games)."""
        done = self.db.value("SELECT COUNT(*) FROM games WHERE status = ?", GameStatus.DONE)
        short = self.db.value("SELECT COUNT(*) FROM submissions s JOIN entrants e ON e.id = s.entrant "
                              "WHERE s.status = ? AND e.house = 0 AND s.games < ?", Status.ACTIVE,
                              self.config.ladder.max_games)
        return int(done), int(short)


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
        self.remote_names: dict[int, str] = {}  # seated remote versions: submission id -> key name
        self.validations: dict[int, remotes.Validation] = {}  # remote versions being validated, by submission id
        self.validation_of: dict[int, int] = {}  # a validation task's ord -> its submission id
        self.next_ord = remotes.VALIDATION_ORD
        self.progress = LadderProgress(config, db)

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> None:
        """Recover what a dead server left, seat the house bots, start the threads."""
        (self.ladder_dir / "logs").mkdir(parents=True, exist_ok=True)
        results_key(self.ladder_dir, create=True)
        migrate(self.config, self.db)  # a directory of the first layout names absolute paths: not any more
        if self.config.remote.allowed:  # nobody is connected before the ladder's worker listens
            remotes.server_key(self.config)
            (remotes.folder(self.config) / "connected.json").unlink(missing_ok=True)
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
            tell("start", "resumed after an unclean stop: %d games and %d submissions queued again", moved, built,
                 level=logging.WARNING, games=moved, submissions=built)

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
                tell("build", "the intake failed: an error of the arena", level=logging.ERROR, exc_info=True)
                self.stop_event.wait(1.0)
        self.db.close()

    # --- ladder ---------------------------------------------------------------------------

    def _entries_for(self, rows: list[Row]) -> tuple[BotEntry, ...]:
        return version_entries(self.config, rows)

    def _make_executor(self) -> LocalExecutor | DaskExecutor:
        if self.config.remote.allowed:
            # One local worker holds the listener: every remote bot connects there, and every game is played there.
            tournament = dataclasses.replace(self.config.tournament, remote=remotes.settings(self.config))
            return open_executor(tournament, self.ladder_dir, "local", 1, key="ladder", bots=())
        return open_executor(self.config.tournament, self.ladder_dir, self.config.executor, self.config.workers,
                             self.config.scheduler, key="ladder", bots=())

    def _ladder_loop(self) -> None:
        try:
            self.executor = self._make_executor()
            self.executor.start()
            while not self.stop_event.is_set():
                if self.db.setting("finals") == "running":
                    if self.inflight or self.validation_of:
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
                if self.config.remote.allowed:
                    self._validate_remote()
                self._fill()
                self.progress.resting(not (self.inflight or self.validation_of))
                if self.inflight or self.validation_of:
                    self._collect(WAIT_S)
                else:
                    self.stop_event.wait(WAIT_S)
            deadline = time.monotonic() + 20.0
            while self.inflight and time.monotonic() < deadline:  # a graceful stop finishes what is in flight
                self._collect(WAIT_S)
        except LadderWriteError as exc:  # the machine's failure, said in one line
            tell("ladder", "stopped: %s", exc, level=logging.ERROR)
            self.error = str(exc)
        except Exception as exc:  # noqa: BLE001 - the pages say the ladder stopped, and why
            tell("ladder", "stopped: an error of the arena", level=logging.ERROR, exc_info=True)
            self.error = f"{type(exc).__name__}: {exc}"
        finally:
            if self.executor is not None:
                self.executor.close(graceful=not self.inflight)
            self.db.close()

    def _seat_new_versions(self) -> None:
        """Tell the workers of versions that became active since."""
        rows = self.db.rows("SELECT id, spec, language FROM submissions WHERE status = ? OR (status = ? AND "
                            "language = ?) ORDER BY id", Status.ACTIVE, Status.VALIDATING, remotes.LANGUAGE)
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
            if row.language == remotes.LANGUAGE:
                self.remote_names[row.id] = remotes.seat_name(row.id)

    def _fill(self) -> None:
        """Start games until the executor is full: queued ones first, then new pairings."""
        assert self.executor is not None
        while len(self.inflight) < self.executor.capacity:
            game = self.policy.next_game(self._busy(), self._playable())
            if game is None:
                return
            self._submit(game)

    def _busy(self) -> set[int]:
        return {v for game in self.inflight.values() for v in (game.a, game.b)} | set(self.validations)

    def _playable(self) -> set[int]:
        """The seated versions a game may be scheduled for: a remote one only while its bot is connected."""
        if not self.remote_names:
            return set(self.slot_of)
        present = remotes.connected(self.config)
        return {v for v in self.slot_of if v not in self.remote_names or self.remote_names[v] in present}

    def _validate_remote(self) -> None:
        """Start the validation games of remote versions whose bots are connected; give up on those out of time."""
        assert self.executor is not None
        waiting = self.db.rows("SELECT s.*, e.name AS entrant_name FROM submissions s JOIN entrants e "
                               "ON e.id = s.entrant WHERE s.status = ? AND s.language = ?", Status.VALIDATING,
                               remotes.LANGUAGE)
        present = remotes.connected(self.config) if waiting else set()
        for row in waiting:
            if row.id in self.validations:
                continue
            if row.lease_until < now():
                self.db.execute("UPDATE submissions SET status = ?, detail = ?, lease_until = 0, updated = ? "
                                "WHERE id = ?", Status.FAILED, "not validated: its bot did not connect in time",
                                now(), row.id)
                continue
            if row.id not in self.slot_of or self.remote_names.get(row.id) not in present:
                continue
            validation, tasks = remotes.validation_tasks(self.config, self.db, row, self.slot_of, self.next_ord)
            if not tasks:
                continue
            self.next_ord -= len(tasks)
            self.validations[row.id] = validation
            for task in tasks:
                self.validation_of[task.ord] = row.id
                self.executor.submit(task)

    def _validation_done(self, outcome: Outcome) -> None:
        """One validation game in; the version's verdict once all are."""
        number = self.validation_of.pop(outcome.task.ord)
        validation = self.validations[number]
        if outcome.record is None:
            validation.tasks.pop(outcome.task.ord, None)
            validation.broken = outcome.problem
        else:  # the local executor wrote its log under ladder/logs: moved below
            remotes.record_line(validation, outcome.task.ord, outcome.record)
        if validation.tasks:
            return
        del self.validations[number]
        out = self.config.directory / "validation" / str(number) / "logs"
        out.mkdir(parents=True, exist_ok=True)
        for log_file in self.ladder_dir.glob(f"logs/val{number}-*"):  # not the ladder's: `arena verify` checks those
            os.replace(log_file, out / log_file.name)
        intake = Intake(self.config, self.db)
        if validation.broken:  # the machine's failure: tried again while its lease lasts
            tell("validation", "submission %d is validated again: %s", number, validation.broken,
                 level=logging.WARNING, submission=number)
            return
        passed, text = remotes.report(validation)
        if passed:
            intake.activate(validation.row, text)
        else:
            intake.finish(validation.row, Status.REJECTED, "rejected: it failed validation games (see the "
                           "validation log)", validation_log=text)

    def _lease_s(self) -> float:
        clock = self.config.tournament.clock
        return (2 * clock.budget_ms + clock.startup_ms) / 1000 * clock.wall_factor * self.config.ladder.lease_factor

    def _submit(self, game: Row) -> None:
        assert self.executor is not None
        # A log an earlier attempt left (its worker lost) would be shown as this game's while it is played,
        # and a retry plays the same seed: its prizes, deals and offers would be known before they come.
        (self.ladder_dir / "logs" / f"{match_name(game.id)}{LOG_SUFFIX}").unlink(missing_ok=True)
        self.db.execute("UPDATE games SET status = ?, attempts = attempts + 1, lease_until = ? WHERE id = ?",
                        GameStatus.RUNNING, now() + self._lease_s(), game.id)
        task = MatchTask(ord=game.id, match=match_name(game.id), round=0, setup=game.setup, seed=game.seed,
                         bots=(self.slot_of[game.a], self.slot_of[game.b]))
        self.executor.submit(task)
        self.inflight[game.id] = game

    def _collect(self, timeout: float) -> None:
        assert self.executor is not None
        for outcome in self.executor.wait(timeout):
            if outcome.task.ord in self.validation_of:
                self._validation_done(outcome)
                continue
            game = self.inflight.pop(outcome.task.ord, None)
            if game is None:
                continue
            if outcome.record is None:
                self.policy.machine_failed(game, outcome.problem)
                continue
            if outcome.record.log_data is not None:  # a remote worker's log travels with its result
                self._store_log(game, outcome)
            self.policy.record(game, outcome.record)
            self.progress.played()

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
        from arena.server.engine.finals import finals_standings, podium, run_finals

        if self.config.remote.allowed and self.executor is not None:
            # The finals' own listener takes the port: the ladder's worker lets it go until they end.
            self.executor.close()
            self.executor = None
            self.slots, self.slot_of, self.remote_names = [], {}, {}
        try:
            run_finals(self.config, self.db, self.stop_event)
            if not self.stop_event.is_set():
                self.db.set_setting("finals", "done")
                standings = finals_standings(self.config)
                tell("finals", "done: %s; the report is at /finals/", podium(standings),
                     standings=[(row["place"], row["name"], row["points"]) for row in standings])
        except Exception as exc:  # noqa: BLE001 - shown on the admin page; the admin may start them again
            tell("finals", "stopped: %s", exc, level=logging.ERROR, exc_info=True)
            self.db.set_setting("finals", "failed")
            self.db.set_setting("finals_error", str(exc))
        finally:
            if self.executor is None:
                self.executor = self._make_executor()
                self.executor.start()


def live_log(config: ServerConfig, game: Row) -> Path | None:
    """The log a game being played is writing on this machine (the local executor's), if there is one."""
    if game.status != GameStatus.RUNNING:
        return None
    path = config.directory / "ladder" / "logs" / f"{match_name(game.id)}{LOG_SUFFIX}"
    return path if path.is_file() else None


def match_name(game: int) -> str:
    """The match id (and log name) of a ladder game."""
    return f"g{game}"


def ladder_log(config: ServerConfig, game: Row) -> Path | None:
    """The log file of a played game, if it has one."""
    if not game.log:
        return None
    path = config.directory / "ladder" / game.log
    return path if path.is_file() else None
