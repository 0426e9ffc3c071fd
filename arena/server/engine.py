"""The server's engine: intake threads build and validate, the ladder thread pairs versions and plays games.

Games go through the tournament's local executor (persistent bot pools, the referee, the
clocks, signed logs under `ladder/logs`). A game is a row before it is played and gets its
result and the ratings it moves in one transaction, so a server killed at any moment
resumes its queue without losing or repeating a game: rows left `running` by a dead server
are queued again. A result is discarded when a version was replaced during its game. A
game the machine failed (worker lost, arena error) is retried a bounded number of times,
then voided, never charged to a bot.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path

from arena.logs.signing import results_key
from arena.outcomes import FAILURES
from arena.server.config import ServerConfig
from arena.server.db import Database, GameKind, GameStatus, Row, Status, now
from arena.server.draws import draw_secret, draw_setup, game_seed
from arena.server.intake import Intake, conditions, house_spec
from arena.server.ladder import Entry, pick_pair, rate
from arena.tournament.config import BotEntry, ConfigError, bot_entries
from arena.tournament.dask_executor import DaskExecutor
from arena.tournament.local import LocalExecutor, Outcome
from arena.tournament.schedule import MatchTask
from arena.tournament.worker import RunnerPlan

log = logging.getLogger(__name__)

WAIT_S = 0.25  # the ladder loop's longest sleep: new versions and stop requests are seen this fast
INTAKE_THREADS = 2
HOUSE = "house"  # the entrant that owns the reference bots on the ladder


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
        self.rng = random.Random()
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

    def _plan(self) -> RunnerPlan:
        tournament = self.config.tournament
        return RunnerPlan(key="ladder", game=tournament.game, bots=(), setups=tuple(s.setup for s in tournament.setups),
                          clock=tournament.clock, limits=tournament.limits, sandbox=tournament.sandbox,
                          persistent=True, log_dir=str((self.ladder_dir / "logs").resolve()),
                          ship_logs=self.config.executor == "dask", log_key=results_key(self.ladder_dir),
                          reveal_names=tournament.reveal_names)

    def _make_executor(self) -> LocalExecutor | DaskExecutor:
        if self.config.executor == "dask":
            return DaskExecutor(self._plan(), self.config.scheduler, self.config.workers)
        return LocalExecutor(self._plan(), self.config.workers)

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
            game = self._next_queued() or self._new_pairing()
            if game is None:
                return
            self._submit(game)

    def _busy(self) -> set[int]:
        return {v for game in self.inflight.values() for v in (game.a, game.b)}

    def _next_queued(self) -> Row | None:
        """The oldest queued game whose versions are free (a game of a version no longer playing is voided)."""
        busy = self._busy()
        for game in self.db.rows("SELECT * FROM games WHERE status = ? ORDER BY id LIMIT 200", GameStatus.QUEUED):
            states = {r.id: r.status for r in self.db.rows("SELECT id, status FROM submissions WHERE id IN (?, ?)",
                                                           game.a, game.b)}
            if any(states.get(v) != Status.ACTIVE or v not in self.slot_of for v in (game.a, game.b)):
                # Left the ladder (replaced, disabled) before the game began: nothing to wait for.
                self._void(game.id, "not played: a version left the ladder before the game began")
                continue
            if game.a in busy or game.b in busy:
                continue
            return game
        return None

    def _new_pairing(self) -> Row | None:
        """A new placement or ladder game from the scheduler, stored as queued."""
        if self.db.value("SELECT COUNT(*) FROM games WHERE status = ?", GameStatus.QUEUED):
            return None  # queued games (waiting for a busy version) go first
        busy = self._busy()
        rows = self.db.rows("SELECT s.id, s.mu, s.sigma, s.games, s.last_game, s.placement_left, e.house "
                            "FROM submissions s JOIN entrants e ON e.id = s.entrant WHERE s.status = ?", Status.ACTIVE)
        entries = [Entry(r.id, r.mu, r.sigma, r.games, r.last_game, r.placement_left, r.id in busy, bool(r.house))
                   for r in rows if r.id in self.slot_of]
        total = self.config.ladder.placement_games
        pair = pick_pair(entries, self.rng, {e.id: total - e.placement_left for e in entries},
                         self.config.ladder.max_games)
        if pair is None:
            return None
        first, second, placement = pair
        a, b = first.id, second.id
        if (placement and first.placement_left % 2) or (not placement and self.rng.random() < 0.5):
            a, b = b, a  # placement games alternate the new version's seat; ladder games draw it
        kind = GameKind.PLACEMENT if placement else GameKind.LADDER
        setup = draw_setup(self.config, self.rng)
        number = self.db.execute(
            "INSERT INTO games (kind, a, b, setup, seed, status, created, conditions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            kind, a, b, setup, 0, GameStatus.QUEUED, now(), conditions(self.config, setup))
        seed = game_seed(self.config, draw_secret(self.db), "ladder", number)
        self.db.execute("UPDATE games SET seed = ? WHERE id = ?", seed, number)
        return self.db.row("SELECT * FROM games WHERE id = ?", number)

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
            if outcome.record is not None:
                self._record(game, outcome)
            else:
                self._machine_failed(game, outcome.error.strip().splitlines()[-1] if outcome.error
                                     else "its worker was lost")

    def _machine_failed(self, game: Row, problem: str) -> None:
        attempts = self.db.value("SELECT attempts FROM games WHERE id = ?", game.id)
        if attempts >= self.config.ladder.max_attempts:
            self._void(game.id, f"system fault, {attempts} tries: {problem}")
        else:
            log.warning("game %d is queued again (system fault: %s)", game.id, problem)
            self.db.execute("UPDATE games SET status = ?, lease_until = 0 WHERE id = ?", GameStatus.QUEUED, game.id)

    def _void(self, game: int, why: str) -> None:
        self.db.execute("UPDATE games SET status = ?, detail = ?, finished = ? WHERE id = ?",
                        GameStatus.VOID, why, now(), game)

    def _record(self, game: Row, outcome: Outcome) -> None:
        """The result, the ratings it moves, the error counts: one transaction."""
        record = outcome.record
        assert record is not None
        if record.log_data is not None:  # a remote worker's log travels with its result
            path = self.ladder_dir / record.log
            temporary = path.with_name(path.name + ".tmp")
            temporary.write_bytes(record.log_data)
            temporary.replace(path)
            record.log_data = None
        stamp = now()
        policy = self.config.ladder
        with self.db.transaction() as tx:
            versions = {r["id"]: dict(r) for r in tx.execute(
                "SELECT id, status, mu, sigma, games, errors, placement_left FROM submissions WHERE id IN (?, ?)",
                (game.a, game.b))}
            if game.kind != GameKind.SCRIMMAGE and any(versions[v]["status"] != Status.ACTIVE
                                                       for v in (game.a, game.b)):
                tx.execute("UPDATE games SET status = ?, detail = ?, finished = ?, log = ? WHERE id = ?",
                           (GameStatus.VOID, "discarded: a version was replaced or disabled during the game", stamp,
                            record.log, game.id))
                return
            # recorded: the order results were applied in, which the ratings depend on (arena verify replays it)
            tx.execute("UPDATE games SET status = ?, finished = ?, scores = ?, ranks = ?, reason = ?, offender = ?, "
                       "plies = ?, detail = ?, log = ?, lease_until = 0, "
                       "recorded = (SELECT COALESCE(MAX(recorded), 0) + 1 FROM games) WHERE id = ?",
                       (GameStatus.DONE, stamp, json.dumps(record.scores), json.dumps(record.ranks), record.reason,
                        record.offender, record.plies, record.detail, record.log, game.id))
            if game.kind == GameKind.SCRIMMAGE:
                return
            a, b = versions[game.a], versions[game.b]
            before = [v["mu"] - 3 * v["sigma"] for v in (a, b)]
            (a["mu"], a["sigma"]), (b["mu"], b["sigma"]) = rate((a["mu"], a["sigma"]), (b["mu"], b["sigma"]),
                                                                record.ranks)
            for seat, version in enumerate((a, b)):
                delta = version["mu"] - 3 * version["sigma"] - before[seat]
                faulty = record.reason in FAILURES and record.offender == seat
                games, errors = version["games"] + 1, version["errors"] + faulty
                placement_left = version["placement_left"] - (game.kind == GameKind.PLACEMENT)
                status, detail = Status.ACTIVE, None
                if errors > policy.max_errors or (games >= 10 and errors / games > policy.max_error_rate):
                    status, detail = Status.DISABLED, (f"disabled: {errors} failures in {games} games "
                                                       f"(last: {record.reason})")
                tx.execute("UPDATE submissions SET mu = ?, sigma = ?, games = ?, errors = ?, last_game = ?, "
                           "first_game = CASE WHEN first_game = 0 THEN ? ELSE first_game END, placement_left = ?, "
                           "status = ?, detail = COALESCE(?, detail), updated = ?, last_delta = ? WHERE id = ?",
                           (version["mu"], version["sigma"], games, errors, stamp, stamp, max(0, placement_left),
                            status, detail, stamp, delta, version["id"]))

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
