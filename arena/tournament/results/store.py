"""The results store: one SQLite file per tournament, append-only, one row per finished match.

Only the coordinator writes. Each row is its own transaction in WAL mode, so a process
killed at any moment (SIGKILL included) leaves every committed row intact and no partial
one; `--resume` plays the scheduled matches that have no row. Triggers refuse UPDATE and
DELETE: a result, once recorded, is never rewritten.

A new store is built under a temporary name and renamed into place with its metadata, so
a results.sqlite never exists half made. An existing file is checked before use (not
empty, an SQLite database, `PRAGMA quick_check`, the arena's tables), and every failure,
reading or writing, is a StoreError with one line naming the file: never a traceback, never
a silent fresh start over results that could not be read.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

from arena.tournament.workers.worker import MatchRecord

STORE_NAME = "results.sqlite"
SCHEMA_VERSION = 1
SIDECARS = ("-wal", "-shm", "-journal")  # SQLite's files next to a database

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
TRIGGERS = ("matches_no_update", "matches_no_delete", "meta_no_update")

_COLUMNS = ("match", "ord", "round", "setup", "seed", "bots", "names", "scores", "ranks", "reason",
            "offender", "plies", "played", "detail", "duration_s", "time_used_ms", "log", "worker", "finished")
_JSON_COLUMNS = frozenset({"bots", "names", "scores", "ranks", "time_used_ms"})
# errno values of a write that failed for want of space, and of one the file system refused.
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
READ_ONLY_ERRNOS = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})


class StoreError(RuntimeError):
    """The results store cannot be opened or does not belong to this tournament."""


class DuplicateResult(StoreError):
    """A match that already has a row was recorded again (refused)."""


class StoreWriteError(StoreError):
    """Writing failed (full disk, read-only file): the run must stop; every committed row is kept."""


def write_hint(problem: str | BaseException) -> str:
    """What to do after a failed write: free space, make the directory writable, or fix the cause."""
    code = problem.errno if isinstance(problem, OSError) else None
    text = str(problem).lower()
    if code in READ_ONLY_ERRNOS or "readonly" in text or "read-only" in text or "permission denied" in text:
        return "make it writable and run again with --resume"
    if code in FULL_ERRNOS or "disk is full" in text or "no space left" in text or "quota" in text:
        return "free some space and run again with --resume"
    return "fix that and run again with --resume"


def is_write_failure(problem: str | BaseException) -> bool:
    """True for an error that says the disk is full or the file system refused writing."""
    if isinstance(problem, OSError) and problem.errno is not None:
        return problem.errno in FULL_ERRNOS | READ_ONLY_ERRNOS
    text = str(problem)
    codes = FULL_ERRNOS | {errno.EROFS}
    return (any(f"[Errno {code}]" in text for code in codes) or "disk is full" in text
            or "readonly database" in text)


class ResultsStore:
    """The SQLite file of one tournament's results."""

    def __init__(self, path: str | os.PathLike[str], create: bool = True) -> None:
        """Open the store at path (create: build an empty one when there is none); checks it first."""
        self.path = Path(path)
        if not self.path.exists() and not self.path.is_symlink():
            if not create:
                raise StoreError(f"no results store at {self.path}")
            _build(self.path, {})
        self.db = _connect(self.path)
        try:
            check_database(self.db, self.path)
            if create:
                # An arena store is in WAL mode already: this only keeps a store an older
                # arena made in rollback mode working as it always did.
                self.db.execute("PRAGMA journal_mode=WAL")
            # NORMAL in WAL mode: a killed process never loses a commit; only a power cut
            # may lose the last few (FULL would fsync every match).
            self.db.execute("PRAGMA synchronous=NORMAL")
        except StoreError:
            self.close()
            raise
        except sqlite3.DatabaseError as exc:
            self.close()
            raise self._damaged(exc) from None

    @classmethod
    def in_dir(cls, directory: str | os.PathLike[str], create: bool = True) -> ResultsStore:
        """The store of an output directory."""
        return cls(Path(directory) / STORE_NAME, create=create)

    @classmethod
    def new(cls, path: str | os.PathLike[str], meta: dict[str, Any]) -> ResultsStore:
        """Create a store holding meta, atomically (refused where a store or its journal exists)."""
        path = Path(path)
        if path.exists() or path.is_symlink():
            raise StoreError(f"{path} exists already")
        _build(path, meta)
        return cls(path, create=False)

    def _damaged(self, exc: BaseException) -> StoreError:
        return StoreError(f"{self.path}: damaged results store: {exc}")

    # --- metadata -----------------------------------------------------------------------

    def meta(self) -> dict[str, Any]:
        """Every metadata value (JSON-decoded)."""
        try:
            rows = self.db.execute("SELECT key, value FROM meta").fetchall()
            return {key: json.loads(value) for key, value in rows}
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        except (TypeError, ValueError) as exc:
            raise self._damaged(f"a metadata value is not JSON ({exc})") from None

    def init_meta(self, values: dict[str, Any]) -> None:
        """Write the metadata of a new tournament (once)."""
        try:
            with _transaction(self.db):
                _insert_meta(self.db, values)
        except sqlite3.IntegrityError as exc:
            raise StoreError(f"{self.path}: holds tournament metadata already ({exc})") from None
        except sqlite3.OperationalError as exc:
            raise StoreWriteError(f"cannot write the metadata to {self.path}: {exc}") from None

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
        except sqlite3.OperationalError as exc:
            # A full disk or a read-only file: the statement was rolled back, nothing else.
            raise StoreWriteError(f"cannot record match {record.match} in {self.path}: {exc}") from None
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def finished(self) -> set[str]:
        """The ids of every recorded match."""
        try:
            return {row[0] for row in self.db.execute("SELECT match FROM matches")}
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def records(self, order: str = "ord") -> list[MatchRecord]:
        """Every row, in schedule order (`ord`) or in the order they were written (`rowid`)."""
        if order not in ("ord", "rowid"):
            raise ValueError(f"unknown order {order!r}")
        try:
            rows = self.db.execute(f"SELECT {', '.join(_COLUMNS)} FROM matches ORDER BY {order}").fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None
        records = []
        for row in rows:
            values: dict[str, Any] = {}
            for column, value in zip(_COLUMNS, row, strict=True):
                try:
                    values[column] = json.loads(value) if column in _JSON_COLUMNS else value
                except (TypeError, ValueError):
                    raise self._damaged(f"match {row[0]}: {column} is not JSON: {value!r:.60}") from None
            values["played"] = bool(values["played"])
            records.append(MatchRecord(**values))
        return records

    def count(self) -> int:
        """The number of recorded matches."""
        try:
            return int(self.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def triggers(self) -> set[str]:
        """The names of the append-only triggers the file holds."""
        try:
            return {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        except sqlite3.DatabaseError as exc:
            raise self._damaged(exc) from None

    def close(self) -> None:
        """Close the connection."""
        try:
            self.db.close()
        except sqlite3.Error:
            pass  # closing after a failed write must not hide that first error


def _connect(path: Path) -> sqlite3.Connection:
    """A connection to an existing file, refusing files SQLite would silently take as new."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise StoreError(f"{path}: cannot read: {exc.strerror}") from None
    if not path.is_file():
        raise StoreError(f"{path}: not a results store (not a file)")
    if size == 0:
        # SQLite would take an empty file as a new database: --resume would play everything again.
        raise StoreError(f"{path}: empty file (0 bytes), not a results store")
    try:
        # Autocommit: every statement is its own transaction (one row, one commit).
        return sqlite3.connect(path, isolation_level=None, timeout=30)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open: {exc}") from None


def check_database(db: sqlite3.Connection, path: Path) -> None:
    """Refuse a file that is not an intact arena store: not SQLite, damaged pages, foreign tables."""
    try:
        verdict = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
    except sqlite3.OperationalError as exc:  # locked, unreadable: not a verdict on the file
        raise StoreError(f"{path}: cannot read the results store: {exc}") from None
    except sqlite3.DatabaseError as exc:
        if "not a database" in str(exc):
            raise StoreError(f"{path}: not a results store: {exc}") from None
        raise StoreError(f"{path}: damaged results store: {exc}") from None
    if verdict != ["ok"]:
        # SQLite's lines, some of them multi-line headings ("*** in database main ***"), as one line.
        lines = [line.strip() for row in verdict for line in str(row).splitlines()
                 if line.strip() and not line.startswith("***")]
        more = f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""
        raise StoreError(f"{path}: damaged results store: {lines[0] if lines else verdict[0]}{more}")
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"meta", "matches"} <= tables:
        raise StoreError(f"{path}: not a results store: no meta and matches tables "
                         f"(another program's SQLite file?)")
    columns = {row[1] for row in db.execute("PRAGMA table_info(matches)")}
    missing = [column for column in _COLUMNS if column not in columns]
    if missing:
        raise StoreError(f"{path}: not a results store: its matches table has no {', '.join(missing)}")


def _insert_meta(db: sqlite3.Connection, values: dict[str, Any]) -> None:
    for key, value in {"schema": SCHEMA_VERSION, **values}.items():
        db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, json.dumps(value)))


def _build(path: Path, meta: dict[str, Any]) -> None:
    """Make a store under a temporary name and rename it to path: it appears complete or not at all."""
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size:
        # SQLite would replay this journal of a deleted store into the new one, mixing results.
        raise StoreError(f"{wal}: the journal of a results store that is gone; move it away to start anew")
    for sidecar in SIDECARS:  # an empty -wal, a -shm or a -journal of a deleted store: not ours
        _unlink(path.with_name(path.name + sidecar))
    tmp = path.with_name(path.name + ".new")
    _remove(tmp)
    try:
        db = sqlite3.connect(tmp, isolation_level=None)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)
            if meta:
                with _transaction(db):
                    _insert_meta(db, meta)
        finally:
            db.close()  # the last connection: checkpoints and removes the -wal and -shm files
        os.replace(tmp, path)
    except (sqlite3.Error, OSError) as exc:
        _remove(tmp)
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        if is_write_failure(exc):
            raise StoreWriteError(f"cannot create {path}: {why}") from None
        raise StoreError(f"cannot create {path}: {why}") from None


def _remove(path: Path) -> None:
    """Remove a database file and its sidecars, if present."""
    for name in (path, *(path.with_name(path.name + s) for s in SIDECARS)):
        _unlink(name)


def _unlink(path: Path) -> None:
    try:
        path.unlink()
    except FileNotFoundError:
        pass


class _transaction:
    """BEGIN ... COMMIT (or ROLLBACK) on an autocommit connection."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db

    def __enter__(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: object, value: object, tb: object) -> None:
        if kind is None:
            self.db.execute("COMMIT")
        else:
            try:
                self.db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the failed statement may have rolled back already; its error is the one to report


def write_failure(problem: str, cause: str | BaseException) -> str:
    """The one line a run stops with after a failed write: what failed, what is kept, what to do."""
    return f"{problem}; every result recorded so far is kept: {write_hint(cause)}"
