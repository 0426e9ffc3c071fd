"""The results store: one SQLite file per tournament, append-only, one row per finished match.

Only the coordinator writes. Each row is its own transaction in WAL mode, so a process
killed at any moment (SIGKILL included) leaves every committed row intact and no partial
one; `--resume` plays the scheduled matches that have no row. Triggers refuse UPDATE and
DELETE: a result, once recorded, is never rewritten.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from arena.tournament.worker import MatchRecord

STORE_NAME = "results.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matches (
    match TEXT PRIMARY KEY,
    ord INTEGER NOT NULL,
    round INTEGER NOT NULL,
    setup INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    bots TEXT NOT NULL,          -- JSON: bot index per seat
    names TEXT NOT NULL,         -- JSON: bot name per seat
    scores TEXT NOT NULL,        -- JSON: score per seat
    ranks TEXT NOT NULL,         -- JSON: rank per seat (1 is best)
    reason TEXT NOT NULL,        -- normal, blocked, resigned, timeout, illegal, crash, protocol, forfeit
    offender INTEGER,            -- the seat that failed or forfeited
    plies INTEGER NOT NULL,
    played INTEGER NOT NULL,     -- 0: scored as a forfeit without being played
    detail TEXT NOT NULL,
    duration_s REAL NOT NULL,
    time_used_ms TEXT NOT NULL,  -- JSON: clock time used per seat
    log TEXT NOT NULL,           -- match log, relative to the output directory
    worker TEXT NOT NULL,        -- host:pid that refereed it
    finished TEXT NOT NULL       -- UTC time the row was written
);
CREATE TRIGGER IF NOT EXISTS matches_no_update BEFORE UPDATE ON matches
BEGIN SELECT RAISE(ABORT, 'results are append-only'); END;
CREATE TRIGGER IF NOT EXISTS matches_no_delete BEFORE DELETE ON matches
BEGIN SELECT RAISE(ABORT, 'results are append-only'); END;
CREATE TRIGGER IF NOT EXISTS meta_no_update BEFORE UPDATE ON meta
BEGIN SELECT RAISE(ABORT, 'tournament metadata is append-only'); END;
"""

_COLUMNS = ("match", "ord", "round", "setup", "seed", "bots", "names", "scores", "ranks", "reason",
            "offender", "plies", "played", "detail", "duration_s", "time_used_ms", "log", "worker", "finished")
_JSON_COLUMNS = frozenset({"bots", "names", "scores", "ranks", "time_used_ms"})


class StoreError(RuntimeError):
    """The results store cannot be opened or does not belong to this tournament."""


class DuplicateResult(StoreError):
    """A match that already has a row was recorded again (refused)."""


class ResultsStore:
    """The SQLite file of one tournament's results."""

    def __init__(self, path: str | os.PathLike[str], create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.is_file():
            raise StoreError(f"no results store at {self.path}")
        try:
            # Autocommit: every statement is its own transaction (one row, one commit).
            self.db = sqlite3.connect(self.path, isolation_level=None, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a killed process never loses a commit; only a power cut
            # may lose the last few (FULL would fsync every match).
            self.db.execute("PRAGMA synchronous=NORMAL")
            if create:
                self.db.executescript(_SCHEMA)
            self.meta()  # fails early on a file that is not a store
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a results store: {exc}") from None

    @classmethod
    def in_dir(cls, directory: str | os.PathLike[str], create: bool = True) -> ResultsStore:
        """The store of an output directory."""
        return cls(Path(directory) / STORE_NAME, create=create)

    # --- metadata -----------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Every metadata value (JSON-decoded)."""
        rows = self.db.execute("SELECT key, value FROM meta").fetchall()
        return {key: json.loads(value) for key, value in rows}

    def init_meta(self, values: dict[str, Any]) -> None:
        """Write the metadata of a new tournament (once)."""
        with _transaction(self.db):
            for key, value in {"schema": SCHEMA_VERSION, **values}.items():
                self.db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))

    # --- results ------------------------------------------------------------------------

    def add(self, record: MatchRecord) -> None:
        """Append the row of one finished match (one transaction)."""
        if not record.finished:
            record.finished = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        values = []
        for column in _COLUMNS:
            value = getattr(record, column)
            values.append(json.dumps(value) if column in _JSON_COLUMNS else value)
        placeholders = ", ".join("?" for _ in _COLUMNS)
        try:
            self.db.execute(f"INSERT INTO matches ({', '.join(_COLUMNS)}) VALUES ({placeholders})", values)
        except sqlite3.IntegrityError:
            raise DuplicateResult(f"match {record.match} is already recorded") from None

    def finished(self) -> set[str]:
        """The ids of every recorded match."""
        return {row[0] for row in self.db.execute("SELECT match FROM matches")}

    def records(self, order: str = "ord") -> list[MatchRecord]:
        """Every row, in schedule order (`ord`) or in the order they were written (`rowid`)."""
        if order not in ("ord", "rowid"):
            raise ValueError(f"unknown order {order!r}")
        rows = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM matches ORDER BY {order}").fetchall()
        records = []
        for row in rows:
            values: dict[str, Any] = {}
            for column, value in zip(_COLUMNS, row, strict=True):
                values[column] = json.loads(value) if column in _JSON_COLUMNS else value
            values["played"] = bool(values["played"])
            records.append(MatchRecord(**values))
        return records

    def count(self) -> int:
        """The number of recorded matches."""
        return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self.db.close()


class _transaction:
    """BEGIN ... COMMIT (or ROLLBACK) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        self.db.execute("COMMIT" if kind is None else "ROLLBACK")
