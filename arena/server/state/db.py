"""The server's database: entrants, submissions (versions), games and settings, in one SQLite file (WAL).

Every change that must not be half-done (a game's result and the ratings it moves) is one
transaction. Each thread has its own connection; WAL lets the pages read while the engine
writes.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants (
    id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE, token_hash TEXT NOT NULL,
    created REAL NOT NULL, house INTEGER NOT NULL DEFAULT 0, disabled INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY AUTOINCREMENT, entrant INTEGER NOT NULL REFERENCES entrants(id),
    version INTEGER NOT NULL, filename TEXT NOT NULL, language TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '', created REAL NOT NULL, updated REAL NOT NULL,
    build_log TEXT NOT NULL DEFAULT '', validation_log TEXT NOT NULL DEFAULT '', spec TEXT NOT NULL DEFAULT '',
    attempts INTEGER NOT NULL DEFAULT 0, lease_until REAL NOT NULL DEFAULT 0,
    mu REAL NOT NULL DEFAULT 25.0, sigma REAL NOT NULL DEFAULT 8.333333333333334,
    games INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0, last_game REAL NOT NULL DEFAULT 0,
    placement_left INTEGER NOT NULL DEFAULT 0, first_game REAL NOT NULL DEFAULT 0,
    start_mu REAL NOT NULL DEFAULT 25.0, last_delta REAL NOT NULL DEFAULT 0,
    UNIQUE (entrant, version));
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL,
    setup INTEGER NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
    lease_until REAL NOT NULL DEFAULT 0, created REAL NOT NULL, finished REAL NOT NULL DEFAULT 0,
    requested_by INTEGER, scores TEXT NOT NULL DEFAULT '[]', ranks TEXT NOT NULL DEFAULT '[]',
    reason TEXT NOT NULL DEFAULT '', offender INTEGER, plies INTEGER NOT NULL DEFAULT 0,
    detail TEXT NOT NULL DEFAULT '', log TEXT NOT NULL DEFAULT '',
    conditions TEXT NOT NULL DEFAULT '{}', recorded INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS games_status ON games (status);
CREATE INDEX IF NOT EXISTS games_a ON games (a);
CREATE INDEX IF NOT EXISTS games_b ON games (b);
CREATE INDEX IF NOT EXISTS submissions_entrant ON submissions (entrant);
"""


class Status(StrEnum):
    """Where a submission is on its way into the ladder, and after."""

    QUEUED = "queued"  # received, waiting for its build
    BUILDING = "building"
    VALIDATING = "validating"  # built; playing the reference bots
    ACTIVE = "active"  # on the ladder
    FAILED = "failed"  # the build failed (its log says why)
    REJECTED = "rejected"  # validation found a failure of the bot
    RETIRED = "retired"  # replaced by a newer active version; keeps its history
    DISABLED = "disabled"  # too many errors, or disqualified by the admin


class GameStatus(StrEnum):
    """A game's state in the queue."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    VOID = "void"  # not played: a version changed, or the machine failed it too often


class GameKind(StrEnum):
    """Why a game is played."""

    PLACEMENT = "placement"
    LADDER = "ladder"
    SCRIMMAGE = "scrimmage"  # asked for by an entrant: unrated


class DatabaseError(RuntimeError):
    """The server's database cannot be opened or used."""


@dataclass(frozen=True)
class Row:
    """A row as a read-only mapping with attribute access."""

    data: dict[str, Any]

    def __getattr__(self, name: str) -> Any:
        try:
            return self.data[name]
        except KeyError:
            raise AttributeError(name) from None


class Database:
    """The server's SQLite file, one connection per thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._connection().executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise DatabaseError(f"cannot open the server's database {path}: {exc}") from None

    def _connection(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=True)
            db.row_factory = sqlite3.Row
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            self._local.db = db
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, or ROLLBACK on any exception."""
        db = self._connection()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def rows(self, sql: str, *args: Any) -> list[Row]:
        """Every row of a query."""
        return [Row(dict(r)) for r in self._connection().execute(sql, args).fetchall()]

    def row(self, sql: str, *args: Any) -> Row | None:
        """The first row of a query, or None."""
        found = self._connection().execute(sql, args).fetchone()
        return Row(dict(found)) if found is not None else None

    def value(self, sql: str, *args: Any) -> Any:
        """The first column of the first row, or None."""
        found = self._connection().execute(sql, args).fetchone()
        return found[0] if found is not None else None

    def execute(self, sql: str, *args: Any) -> int:
        """One statement in its own transaction; the last row id."""
        with self.transaction() as db:
            return db.execute(sql, args).lastrowid or 0

    def setting(self, key: str, default: str = "") -> str:
        """A server setting (frozen, finals state, the cookie secret, ...)."""
        value = self.value("SELECT value FROM settings WHERE key = ?", key)
        return default if value is None else str(value)

    def set_setting(self, key: str, value: str) -> None:
        """Store a server setting."""
        self.execute("INSERT INTO settings (key, value) VALUES (?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value", key, value)

    def generation(self) -> str:
        """A token that changes whenever a game finishes or a submission changes (the pages' live updates)."""
        found = self._connection().execute(
            "SELECT (SELECT COUNT(*) FROM games WHERE status IN ('done', 'void')), "
            "(SELECT COALESCE(MAX(updated), 0) FROM submissions)").fetchone()
        return f"{found[0]}-{found[1]:.6f}"

    def close(self) -> None:
        """Close this thread's connection."""
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None


def now() -> float:
    """Wall-clock seconds, as stored."""
    return time.time()
