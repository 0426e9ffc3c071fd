"""The coordinator: config → schedule → executor → store → standings and reports.

Only the coordinator writes the store, one row per finished match, in the order results
arrive. It hands out matches a few at a time, so disqualifying a bot stops its matches
from being played; re-queues matches whose worker died; and on `--resume` plays only
the scheduled matches that have no row. One coordinator writes a directory at a time
(arena/tournament/run/dirlock.py).
"""

from __future__ import annotations

import logging
import os
import time
from collections import Counter, deque
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from arena.games import get_game
from arena.launch.sandbox.sandbox import Sandbox, announce, resolve_sandbox
from arena.outcomes import FAILURES
from arena.tournament.plan.config import TournamentConfig, bot_labels, config_changes, default_concurrency
from arena.tournament.plan.errors import TournamentError
from arena.tournament.plan.overlap import FIX, folder_conflict
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.results.files import write_atomic
from arena.tournament.results.formats import plan_for
from arena.tournament.results.points import comparisons, pair_points
from arena.tournament.results.report import write_reports
from arena.tournament.results.series import SeriesTally
from arena.tournament.results.standings import Standings, compute
from arena.tournament.results.store import (
    STORE_NAME,
    ResultsStore,
    StoreError,
    StoreWriteError,
    is_write_failure,
    write_failure,
)
from arena.tournament.results.strikes import StrikeBook, forfeit_record
from arena.tournament.run.dirlock import lock_directory
from arena.tournament.run.progress import Progress
from arena.tournament.workers.executors import Executor, open_executor
from arena.tournament.workers.local import Outcome
from arena.tournament.workers.worker import LOG_SUFFIX, MatchRecord

log = logging.getLogger(__name__)

MAX_ATTEMPTS = 3  # a match whose worker died (or hit an arena error) this often stops the run
RETRY_BACKOFF_S = 0.5  # before a failed match is played again; doubled at each further attempt
WAIT_S = 0.5


@dataclass
class RunOptions:
    """How to run (not part of what the results mean)."""

    out: Path
    resume: bool = False
    executor: str = "local"
    scheduler: str | None = None
    workers: int | None = None
    quiet: bool = False
    trace: Path | None = None  # every message of every match, appended to this file
    report_every: int = 0  # a standings line after every this many games (0: a log's default, none on a terminal)


def arena_version() -> str:
    """The installed arena's version, stored with the results it plays."""
    try:
        return metadata.version("arena")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def open_store(config: TournamentConfig, out: Path, resume: bool, total: int) -> ResultsStore:
    """The output directory's store: new, or the one of this very config when resuming."""
    out.mkdir(parents=True, exist_ok=True)
    if config.logs:
        (out / "logs").mkdir(exist_ok=True)
    path = out / STORE_NAME
    meta = {"fingerprint": config.fingerprint(), "config": config.to_data(), "total": total,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "arena_version": arena_version()}
    if not path.exists() and not path.is_symlink():
        return ResultsStore.new(path, meta)  # appears complete with its metadata, or not at all
    store = ResultsStore(path)  # refuses an empty, damaged or foreign file in one line
    stored = store.meta()
    if not stored.get("fingerprint"):
        rows = store.count()
        if rows or stored:
            store.close()
            raise StoreError(f"{path}: not a results store of any tournament (no fingerprint in its metadata, "
                             f"{rows} rows); choose another --out")
        # Tables and nothing else: an older arena killed before writing the metadata. Nothing to lose.
        store.init_meta(meta)
        return store
    if stored["fingerprint"] != config.fingerprint():
        store.close()
        old = stored.get("config") if isinstance(stored.get("config"), dict) else {}
        old_data, new_data = dict(old), config.to_data()
        old_data.pop("name", None)
        new_data.pop("name")
        changed = config_changes(old_data, new_data)
        shown = ", ".join(changed[:5]) + (f" and {len(changed) - 5} more" if len(changed) > 5 else "")
        raise TournamentError(f"{out} holds results of config {old.get('name')!r}, which differs from this one in "
                              f"{shown or 'its fingerprint'}; choose another --out (or undo the change)")
    done = store.count()
    if not resume and done:  # an empty store (a run that never got going) is simply reused
        store.close()
        raise TournamentError(f"{out} already holds {done}/{total} results of this tournament; "
                              "add --resume to continue it, or choose another --out")
    return store


def make_executor(config: TournamentConfig, options: RunOptions, out: Path) -> Executor:
    """The executor the options ask for."""
    workers = options.workers or config.concurrency or default_concurrency()
    if config.remote is not None:
        # One listener, in the one worker that plays every match: remote bots connect there.
        if options.executor != "local":
            raise TournamentError("a tournament with remote bots ([remote]) runs on the local executor, where its "
                                  "listener is")
        workers = 1
    trace = str(options.trace.resolve()) if options.trace else None
    return open_executor(config, out, options.executor, workers, options.scheduler, trace)


class Coordinator:
    """Runs one tournament to its end (or until stopped) and records every result."""

    def __init__(self, config: TournamentConfig, options: RunOptions) -> None:
        self.config = config
        self.options = options
        self.out = options.out
        self.game = get_game(config.game)
        self.plan = plan_for(config)
        conflict = "" if config.shared_dirs else folder_conflict(bot_labels(config.bots), results=self.out)
        if conflict:  # before anything is written: the results would be shown to a bot
            raise TournamentError(f"{config.source + ': ' if config.source else ''}{conflict}; {FIX}")
        # One writer per directory, before anything in it is read or written: a second run (a
        # --resume started while the first still plays) would truncate the first one's logs.
        self.lock = lock_directory(self.out)
        try:
            self.store = open_store(config, self.out, options.resume, self.plan.total())
        except BaseException:
            self.lock.release()
            raise
        self.results = {record.match: record for record in self.store.records("ord")}
        self.done = set(self.results)
        self.schedule = self.plan.tasks(self.results)  # knockout, Swiss: grows as rounds are decided
        self.place = {task.match: i for i, task in enumerate(self.schedule)}
        if config.logs:  # the key that signs this directory's logs (protocol/LOGS.md): made with its store
            from arena.logs.signing import KeyFileError, results_key
            try:
                results_key(self.out, create=not self.done)
            except KeyFileError as exc:
                self.close()
                raise TournamentError(str(exc)) from None
        self.book = StrikeBook(config.strikes, len(config.bots))
        self.failures = 0
        # Two bots: A's running score against B (the progress line, the SPRT stop, the series summary).
        self.tally = SeriesTally(config.players, config.sprt) if len(config.bots) == 2 else None
        # With an SPRT, results are recorded in schedule order (one that arrives early waits for those
        # before it), so the decision, and the game the series stops at, do not depend on the workers.
        self.in_order = self.tally is not None and config.sprt is not None
        self.held: dict[int, MatchRecord] = {}  # schedule place -> a result waiting for earlier ones
        self.next_place = 0  # the first place in the schedule without a result
        self.points: Counter[int] = Counter()  # running points per bot, for the leader on the progress line
        self.stopped_early = False  # the SPRT accepted a hypothesis before the schedule ran out
        rows = self.store.records(order="rowid")
        for record in rows:
            self.book.observe(record)
            self._count(record, tally=False)
        if self.tally is not None:  # in schedule order, as the decision is taken
            self.tally.observe_all(sorted(rows, key=lambda r: self.place.get(r.match, len(self.place))))
        self._skip_done()
        self.progress: Progress | None = None

    def run(self) -> Standings:
        """Play every match without a row, then compute the standings and write the reports."""
        pending = deque(task for task in self.schedule if task.match not in self.done)
        if self._decided():
            pending = self._pairs_to_finish(pending, {})
        quiet = self.options.quiet
        self.progress = Progress(self.config.name, max(self.plan.total(), len(self.schedule)), len(self.done),
                                 not quiet, self.options.report_every)
        self._status()
        try:
            if pending or (self.plan.dynamic and not self.plan.finished(self.results) and not self._decided()):
                if not quiet:
                    announce(self.config.sandbox)
                if resolve_sandbox(self.config.sandbox).mode == Sandbox.UID:
                    # Bots run as other users of this machine here: the results are not theirs to read.
                    os.chmod(self.out, os.stat(self.out).st_mode & ~0o007)
                self._play(pending)
        finally:
            self.progress.close()
        standings = self.standings()
        write_reports(self.out, standings)
        return standings

    def _play(self, pending: deque[MatchTask]) -> None:
        executor = make_executor(self.config, self.options, self.out)
        executor.start()
        graceful = False
        inflight: dict[str, MatchTask] = {}
        attempts: Counter[str] = Counter()
        backing_off: list[tuple[float, MatchTask]] = []  # re-queued matches and when they may go again
        try:
            while not (self.in_order and self._decided()):  # past the decision nothing more is recorded
                now = time.monotonic()
                for due in [entry for entry in backing_off if entry[0] <= now]:
                    backing_off.remove(due)
                    pending.appendleft(due[1])
                if self.plan.dynamic and not self._decided():
                    self._next_rounds(pending, inflight)
                if not (pending or inflight):
                    if not backing_off:
                        break
                    time.sleep(max(0.0, min(at for at, _ in backing_off) - now))
                    continue
                if pending and self._decided():
                    pending = self._pairs_to_finish(pending, inflight)
                while pending and len(inflight) < executor.capacity:
                    task = pending.popleft()
                    seats = self.book.out_of(task)
                    if seats:
                        self._forfeit(task, seats)
                        continue
                    executor.submit(task)
                    inflight[task.match] = task
                if not inflight:
                    continue
                for outcome in executor.wait(WAIT_S):
                    inflight.pop(outcome.task.match, None)
                    if outcome.record is not None:
                        self._arrived(outcome.record)
                    else:
                        self._failed(outcome, attempts, backing_off)
            graceful = True
        except StoreWriteError as exc:  # a row or a log the coordinator could not write (forfeits included)
            raise TournamentError(write_failure(str(exc), exc)) from None
        finally:
            executor.close(graceful=graceful)
            self._drop_unrecorded_logs()

    def _failed(self, outcome: Outcome, attempts: Counter[str], backing_off: list[tuple[float, MatchTask]]) -> None:
        """A match that came back without a result: played again after a pause, or the run stops."""
        task = outcome.task
        attempts[task.match] += 1
        problem = outcome.problem
        if outcome.error and is_write_failure(problem):
            # A full or read-only disk fails every match alike: retrying changes nothing.
            raise TournamentError(write_failure(f"match {task.match} could not be played: {problem}", problem))
        if attempts[task.match] >= MAX_ATTEMPTS:
            raise TournamentError(f"match {task.match} failed {MAX_ATTEMPTS} times: {problem}; "
                                  "the results so far are kept (--resume continues)")
        log.warning("match %s is re-queued: %s", task.match, problem)
        if outcome.error:
            log.debug("%s", outcome.error)
        # Back off: a machine short of processes or memory may recover meanwhile.
        backing_off.append((time.monotonic() + RETRY_BACKOFF_S * 2 ** (attempts[task.match] - 1), task))

    def _arrived(self, record: MatchRecord) -> None:
        """A finished match (or a forfeit): recorded now, or, with an SPRT, once every match before it is."""
        if not self.in_order:
            self._record(record)
            return
        if self._decided():
            return  # played past the decision: not part of the series (its log is removed at the end)
        self.held[self.place.get(record.match, len(self.place))] = record
        while self.next_place in self.held and not self._decided():
            self._record(self.held.pop(self.next_place))
            self._skip_done()
        if self._decided():
            self.held.clear()
            self.stopped_early = len(self.done) < len(self.schedule)
            if self.progress is not None:
                self.progress.grow(len(self.done))

    def _skip_done(self) -> None:
        while self.next_place < len(self.schedule) and self.schedule[self.next_place].match in self.done:
            self.next_place += 1

    def _drop_unrecorded_logs(self) -> None:
        """Remove the logs of matches played but not recorded: past an SPRT's decision, or in flight when stopped.

        Their matches are played again on --resume; a log without its row would only look like a deleted row.
        """
        if not self.config.logs:
            return
        for task in self.schedule:
            if task.match not in self.done:
                try:
                    (self.out / "logs" / f"{task.match}{LOG_SUFFIX}").unlink(missing_ok=True)
                except OSError:
                    pass  # a log left over is reported by arena verify, never mistaken for a result

    def _record(self, record: MatchRecord) -> None:
        """Store one finished match (once), then update strikes and progress.

        A failed write raises StoreWriteError and records nothing: the match is played again on resume.
        """
        if record.match in self.done:
            log.warning("match %s finished twice (a re-run after a lost worker); the first result stands",
                        record.match)
            return
        if record.log_data is not None:
            path = self.out / "logs" / f"{record.match}{LOG_SUFFIX}"
            try:
                write_atomic(path, record.log_data)
            except OSError as exc:
                raise StoreWriteError(f"cannot write the log of match {record.match} to {path}: "
                                      f"{exc.strerror}") from None
            record.log_data = None
        self.store.add(record)
        self.done.add(record.match)
        self.results[record.match] = record
        self._count(record)
        disqualified = self.book.observe(record)
        self._advance(record)
        for bot in disqualified:
            self._say(f"{self.config.bots[bot].name} is disqualified after {self.book.strikes[bot]} strikes "
                      f"(the last: {record.reason} in {record.match})")

    def _forfeit(self, task: MatchTask, seats: list[int]) -> None:
        names = [self.config.bots[b].name for b in task.bots]
        self._arrived(forfeit_record(self.game, self.config.setups[task.setup].setup, task, names, seats,
                                     self.config.strikes.max_strikes))

    def _next_rounds(self, pending: deque[MatchTask], inflight: dict[str, MatchTask]) -> None:
        """Queue the matches that the results so far have made known (knockout ties, Swiss rounds)."""
        known = {t.match for t in self.schedule}
        new = [t for t in self.plan.tasks(self.results) if t.match not in known]
        if not new:
            return
        self.place.update((t.match, len(self.schedule) + i) for i, t in enumerate(new))
        self.schedule += new
        pending.extend(t for t in new if t.match not in self.done and t.match not in inflight)
        if self.progress is not None and self.progress.total < len(self.schedule):
            self.progress.grow(len(self.schedule))

    def _count(self, record: MatchRecord, tally: bool = True) -> None:
        """Add a stored result to the running figures: failures, points, A against B."""
        self.failures += record.reason in FAILURES
        if tally and self.tally is not None:
            self.tally.observe(record)
        if self.config.players > 1:
            for group in comparisons([record], self.config.players):
                for a in group:
                    self.points[a.bot] += sum(pair_points(a, b)[0] for b in group if b is not a)
        elif record.played:
            self.points[record.bots[0]] += record.scores[0]

    def _decided(self) -> bool:
        return self.tally is not None and self.tally.decided

    def _pairs_to_finish(self, pending: deque[MatchTask], inflight: dict[str, MatchTask]) -> deque[MatchTask]:
        """Once the SPRT has decided: only the games that complete a pair already begun are still played."""
        begun = {(t.setup, t.round) for t in inflight.values()}
        begun |= {(t.setup, t.round) for t in self.schedule if t.match in self.done}
        left = deque(t for t in pending if (t.setup, t.round) in begun)
        if len(left) < len(pending):
            self.stopped_early = True
            if self.progress is not None:
                self.progress.grow(len(self.done) + len(inflight) + len(left))
        return left

    def _advance(self, record: MatchRecord) -> None:
        """Say that a game finished, and every K games how the standings stand."""
        if self.progress is None:
            return
        self.progress.game(self.place.get(record.match, len(self.place)) + 1, record)
        self._status()
        if self.progress.due(len(self.done)) and not self.plan.finished(self.results):
            self._say(self.running_line())

    def running_line(self) -> str:
        """One line of the standings so far: A's score against B, or the points of every bot."""
        total = max(self.progress.total if self.progress else 0, len(self.schedule))
        head = f"After {len(self.done)} of {total} games:"
        if self.tally is not None and self.tally.trinomial.games:
            a, b = self.config.bots[0].name, self.config.bots[1].name
            return f"{head} {a} vs {b} {self.tally.progress()}"
        order = sorted(range(len(self.config.bots)), key=lambda bot: (-self.points[bot], bot))
        return f"{head} " + ", ".join(f"{self.config.bots[bot].name} {self.points[bot]:g}" for bot in order)

    def _status(self) -> None:
        if self.progress is None or self.progress.bar is None:
            return
        text = f"failures={self.failures} dq={len(self.book.disqualified)}"
        if self.tally is not None and self.tally.trinomial.games:
            names = self.config.bots
            text = f"{names[0].name} vs {names[1].name} {self.tally.progress()} {text}"
        elif self.points:
            leader = max(self.points, key=lambda bot: (self.points[bot], -bot))
            text = f"leader {self.config.bots[leader].name} ({self.points[leader]:g}) {text}"
        self.progress.status(text)

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress.say(text)
        log.info("%s", text)

    def standings(self) -> Standings:
        """The standings of what the store holds now."""
        return compute(self.store.meta(), self.store.records("ord"), self.store.records("rowid"))

    def close(self) -> None:
        """Close the store and let another writer have the directory."""
        self.store.close()
        self.lock.release()


def load_standings(directory: str | os.PathLike[str]) -> Standings:
    """The standings of an output directory, from its store alone."""
    try:
        store = ResultsStore.in_dir(directory, create=False)
    except StoreError as exc:
        raise TournamentError(str(exc)) from None
    try:
        meta = store.meta()
        if not isinstance(meta.get("config"), dict) or "total" not in meta:
            raise TournamentError(f"{store.path}: holds no tournament (no metadata)")
        records, written = store.records("ord"), store.records("rowid")
        try:
            return compute(meta, records, written)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
            # Only rows or metadata edited by hand get here: name it, `arena verify` tells the rest.
            raise TournamentError(f"{store.path}: the stored results cannot be scored "
                                  f"({type(exc).__name__}: {exc}); run arena verify {directory}") from None
    except StoreError as exc:
        raise TournamentError(str(exc)) from None
    finally:
        store.close()
