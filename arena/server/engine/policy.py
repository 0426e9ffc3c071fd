"""The ladder's policy over the database: which game is next, what a result does to ratings, a game the machine failed.

The engine (engine.py) runs the threads and the executor and asks this module what to play
and what a game's outcome means; the choices themselves are the pure functions of ladder.py.
"""

from __future__ import annotations

import json
import logging
import random
import sqlite3
from typing import Any

from arena.outcomes import FAILURES
from arena.server.engine.draws import draw_secret, draw_setup, game_seed
from arena.server.engine.intake import conditions
from arena.server.engine.ladder import Entry, pick_pair, rate
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, GameKind, GameStatus, Row, Status, now
from arena.server.state.eventlog import tell
from arena.tournament.workers.worker import MatchRecord


class LadderPolicy:
    """Who plays whom next, and how a finished game moves ratings, error counts and statuses."""

    def __init__(self, config: ServerConfig, db: Database) -> None:
        self.config = config
        self.db = db
        self.rng = random.Random()

    def next_game(self, busy: set[int], seated: set[int]) -> Row | None:
        """The next game to play: the oldest queued one whose versions are free, else a new pairing.

        busy: versions with a game in flight; seated: versions the workers can start.
        """
        return self._next_queued(busy, seated) or self._new_pairing(busy, seated)

    def _next_queued(self, busy: set[int], seated: set[int]) -> Row | None:
        """The oldest queued game whose versions are free (a game of a version no longer playing is voided)."""
        for game in self.db.rows("SELECT * FROM games WHERE status = ? ORDER BY id LIMIT 200", GameStatus.QUEUED):
            states = {r.id: r.status for r in self.db.rows("SELECT id, status FROM submissions WHERE id IN (?, ?)",
                                                           game.a, game.b)}
            if any(states.get(v) != Status.ACTIVE or v not in seated for v in (game.a, game.b)):
                # Left the ladder (replaced, disabled) before the game began: nothing to wait for.
                self.void(game.id, "not played: a version left the ladder before the game began")
                continue
            if game.a in busy or game.b in busy:
                continue
            return game
        return None

    def _new_pairing(self, busy: set[int], seated: set[int]) -> Row | None:
        """A new placement or ladder game from the scheduler, stored as queued."""
        if self.db.value("SELECT COUNT(*) FROM games WHERE status = ?", GameStatus.QUEUED):
            return None  # queued games (waiting for a busy version) go first
        rows = self.db.rows("SELECT s.id, s.mu, s.sigma, s.games, s.last_game, s.placement_left, e.house "
                            "FROM submissions s JOIN entrants e ON e.id = s.entrant WHERE s.status = ?", Status.ACTIVE)
        entries = [Entry(r.id, r.mu, r.sigma, r.games, r.last_game, r.placement_left, r.id in busy, bool(r.house))
                   for r in rows if r.id in seated]
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

    def machine_failed(self, game: Row, problem: str) -> None:
        """A game the machine failed: queued again, or voided after too many tries; never charged to a bot."""
        attempts = self.db.value("SELECT attempts FROM games WHERE id = ?", game.id)
        if attempts >= self.config.ladder.max_attempts:
            tell("game", "game %d is void: the machine failed it %d times (%s)", game.id, attempts, problem,
                 level=logging.WARNING, game=game.id)
            self.void(game.id, f"system fault, {attempts} tries: {problem}")
        else:
            tell("game", "game %d is queued again (the machine failed it: %s)", game.id, problem, level=logging.WARNING,
                 game=game.id)
            self.requeue(game)

    def requeue(self, game: Row) -> None:
        """Put a game back in the queue, as if it had never started."""
        self.db.execute("UPDATE games SET status = ?, lease_until = 0 WHERE id = ?", GameStatus.QUEUED, game.id)

    def void(self, game: int, why: str) -> None:
        """A game that counts for nothing, and why."""
        self.db.execute("UPDATE games SET status = ?, detail = ?, finished = ? WHERE id = ?",
                        GameStatus.VOID, why, now(), game)

    def record(self, game: Row, record: MatchRecord) -> None:
        """The result, the ratings it moves, the error counts: one transaction."""
        stamp = now()
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
            if game.kind != GameKind.SCRIMMAGE:
                self._rate(tx, versions[game.a], versions[game.b], record, game.kind, stamp)
        tell("game", "game %d (%s): %s, ranks %s, %s after %d plies", game.id, game.kind, " vs ".join(record.names),
             record.ranks, record.reason, record.plies, level=logging.DEBUG, game=game.id, kind=game.kind)

    def _rate(self, tx: sqlite3.Connection, a: dict[str, Any], b: dict[str, Any], record: MatchRecord, kind: str,
              stamp: float) -> None:
        """Both versions' new ratings and counts; a version failing too often is disabled."""
        policy = self.config.ladder
        before = [v["mu"] - 3 * v["sigma"] for v in (a, b)]
        (a["mu"], a["sigma"]), (b["mu"], b["sigma"]) = rate((a["mu"], a["sigma"]), (b["mu"], b["sigma"]),
                                                            record.ranks)
        for seat, version in enumerate((a, b)):
            delta = version["mu"] - 3 * version["sigma"] - before[seat]
            faulty = record.reason in FAILURES and record.offender == seat
            games, errors = version["games"] + 1, version["errors"] + faulty
            placement_left = version["placement_left"] - (kind == GameKind.PLACEMENT)
            status, detail = Status.ACTIVE, None
            if errors > policy.max_errors or (games >= 10 and errors / games > policy.max_error_rate):
                status, detail = Status.DISABLED, (f"disabled: {errors} failures in {games} games "
                                                   f"(last: {record.reason})")
                tell("version", "submission %d (%s): %s", version["id"], record.names[seat], detail,
                     submission=version["id"], status=status)
            tx.execute("UPDATE submissions SET mu = ?, sigma = ?, games = ?, errors = ?, last_game = ?, "
                       "first_game = CASE WHEN first_game = 0 THEN ? ELSE first_game END, placement_left = ?, "
                       "status = ?, detail = COALESCE(?, detail), updated = ?, last_delta = ? WHERE id = ?",
                       (version["mu"], version["sigma"], games, errors, stamp, stamp, max(0, placement_left),
                        status, detail, stamp, delta, version["id"]))
