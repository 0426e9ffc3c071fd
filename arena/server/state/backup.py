"""`arena serve backup CONFIG DEST`: a consistent copy of a contest's state, made while the server runs.

The database is copied first, with SQLite's online backup API: one snapshot, the moment of
the backup. Every file is then taken as that snapshot knows it, never as the disk happens
to be later: the logs of the games the snapshot has played (each written before its result
was committed), the uploads and builds of the versions it holds (an upload is written before
its row commits), the validation of versions it has validated, the keys, and the finals
(their own SQLite file by the same API). A game, a build or a validation the snapshot has
in progress is redone by the restored server, as after any unclean stop; files the snapshot
does not know (a game that ended a moment later) are left out, so that `arena verify` of
the copy finds no log without its game.

Entrants' files are copied as root may only copy what others wrote: opened without
following links (O_NOFOLLOW, relative to their open folder), regular files and folders only.
The copy is made in a private folder beside DEST and renamed to DEST when complete. Nothing in
it names an absolute path (arena/server/state/layout.py): it serves from any fresh directory, on
this machine or another; `backup.json` records when and from where it was made.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import sqlite3
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from arena.server.state.config import ServerConfig
from arena.server.state.db import GameStatus, Status

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs the copy
LOG_NAME = re.compile(r"logs/g\d+\.msgpack")
VERSION_DIR = re.compile(r"v\d+")
MANIFEST = "backup.json"
LOCK_NAME = "arena.lock"
UNFINISHED = (Status.QUEUED, Status.BUILDING, Status.VALIDATING)


class BackupError(RuntimeError):
    """The backup cannot be made (no contest there, DEST taken, a disk error); the message is one line."""


@dataclass
class BackupReport:
    """What a backup holds."""

    dest: Path
    games: int = 0  # games played in the snapshot
    logs: int = 0
    versions: int = 0
    files: int = 0
    bytes: int = 0
    skipped: list[str] = field(default_factory=list)  # entries that are not regular files or folders


def backup(config: ServerConfig, dest: Path) -> BackupReport:
    """Copy the contest's state (config.directory) to dest, which must not exist; BackupError if it cannot."""
    state = config.directory
    database = state / "server.db"
    if not database.is_file():
        raise BackupError(f"{database}: no contest database there (is the config's directory right?)")
    dest = dest.absolute()
    if dest.exists():
        raise BackupError(f"{dest} exists; a backup goes to a new folder")
    resolved = dest.parent.resolve() / dest.name
    if resolved == state or state in resolved.parents:
        raise BackupError(f"{dest} is inside the contest's directory {state}")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))  # 0700: tokens and keys go in
    except OSError as exc:
        raise BackupError(f"cannot create {dest}: {exc.strerror}") from None
    try:
        report = _copy_state(config, work)
        report.dest = dest
        work.rename(dest)
    except sqlite3.Error as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise BackupError(f"cannot copy the database {database}: {exc}") from None
    except OSError as exc:
        shutil.rmtree(work, ignore_errors=True)
        raise BackupError(f"cannot copy {exc.filename or state}: {exc.strerror}") from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return report


def _copy_state(config: ServerConfig, work: Path) -> BackupReport:
    state = config.directory
    report = BackupReport(work)
    snapshot_sqlite(state / "server.db", work / "server.db")
    db = sqlite3.connect(work / "server.db")
    try:
        games = db.execute("SELECT id, status, log FROM games").fetchall()
        versions = db.execute("SELECT s.id, s.version, s.status, e.name FROM submissions s JOIN entrants e "
                              "ON e.id = s.entrant WHERE e.house = 0").fetchall()
        finals = db.execute("SELECT value FROM settings WHERE key = 'finals'").fetchone()
    finally:
        db.close()
    if config.admin_token_file.parent.resolve() == state:
        _copy_file_at(state, work, config.admin_token_file.name, report)
    (work / "ladder").mkdir(mode=0o700)
    _copy_file_at(state / "ladder", work / "ladder", "log.key", report)
    (work / "ladder" / "logs").mkdir()
    for _number, status, log in games:
        report.games += status == GameStatus.DONE
        # Played or discarded with a log: written before the snapshot's row says so.
        if log and status in (GameStatus.DONE, GameStatus.VOID) and LOG_NAME.fullmatch(log):
            report.logs += _copy_file_at(state / "ladder" / "logs", work / "ladder" / "logs", log[5:], report)
    remote = state / "remote"
    if (remote / "server.key_secret").is_file():  # remote bots know the server by its key: it stays the same
        (work / "remote" / "keys").mkdir(mode=0o700, parents=True)
        os.chmod(work / "remote", 0o700)
        for name in ("server.key", "server.key_secret"):
            _copy_file_at(remote, work / "remote", name, report)
        for number, *_ in versions:
            if (remote / "keys" / f"s{number}.key").is_file():
                _copy_file_at(remote / "keys", work / "remote" / "keys", f"s{number}.key", report)
    for number, version, status, entrant in versions:
        folder = Path("submissions") / entrant / f"v{version}"
        if "/" in entrant or entrant in (".", ".."):
            continue  # not a name the server gives (arena/server/uploads/sources.py NAME)
        report.versions += 1
        copy_tree(state / folder, work / folder, report)
        if status not in UNFINISHED:  # a validation in progress is played again
            copy_tree(state / "validation" / str(number), work / "validation" / str(number), report)
    if finals is not None and (state / "finals").is_dir():
        copy_tree(state / "finals", work / "finals", report, sqlite_files=True)
    manifest = {"made": time.time(), "source": str(state), "games": report.games, "logs": report.logs,
                "versions": report.versions, "finals": finals[0] if finals else "none"}
    (work / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return report


def restored_from(directory: Path) -> str:
    """What a restored directory's backup.json says (when and from where it was made, what it held), else ""."""
    try:
        made = json.loads((directory / MANIFEST).read_text())
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(made["made"])))
        return (f"restored from the backup of {made['source']} made {when}: {made['games']} games played, "
                f"{made['versions']} versions, finals {made['finals']}")
    except (OSError, ValueError, KeyError, TypeError):
        return ""


def snapshot_sqlite(source: Path, target: Path) -> None:
    """A consistent copy of a SQLite file that others may be writing (the online backup API, in one step)."""
    src = sqlite3.connect(source, timeout=30)  # read from only (a read-only open cannot join a WAL file)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file; the server turns WAL on again
            problem = dst.execute("PRAGMA quick_check").fetchone()[0]
            if problem != "ok":
                raise sqlite3.DatabaseError(f"the copy fails its check: {problem}")
        finally:
            dst.close()
    finally:
        src.close()
    os.chmod(target, 0o600)


def copy_tree(source: Path, target: Path, report: BackupReport, sqlite_files: bool = False) -> None:
    """Copy a folder of the state: folders and regular files only, never through a link.

    sqlite_files: *.sqlite files are copied by the online backup API (a results directory
    being written); their -wal and -shm companions are left out.
    """
    try:
        top = os.open(source, _DIR_FLAGS)
    except FileNotFoundError:
        return
    target.mkdir(parents=True, exist_ok=True)
    try:
        _copy_dir(top, source, target, report, sqlite_files, depth=0)
    finally:
        os.close(top)


def _copy_dir(src_fd: int, source: Path, target: Path, report: BackupReport, sqlite_files: bool, depth: int) -> None:
    if depth > 64:
        report.skipped.append(f"{source}: folders too deep")
        return
    for name in sorted(os.listdir(src_fd)):
        if name == LOCK_NAME:
            continue  # the lock of a results directory names a process of this machine, now
        mode = os.stat(name, dir_fd=src_fd, follow_symlinks=False).st_mode
        if stat.S_ISDIR(mode):
            child = os.open(name, _DIR_FLAGS, dir_fd=src_fd)
            try:
                (target / name).mkdir(exist_ok=True)
                _copy_dir(child, source / name, target / name, report, sqlite_files, depth + 1)
                os.chmod(target / name, stat.S_IMODE(mode))
            finally:
                os.close(child)
        elif not stat.S_ISREG(mode):
            report.skipped.append(str(source / name))
        elif sqlite_files and name.endswith((".sqlite-wal", ".sqlite-shm")):
            continue
        elif sqlite_files and name.endswith(".sqlite"):
            snapshot_sqlite(source / name, target / name)
            report.files += 1
        else:
            _copy_fd(src_fd, name, target, report)


def _copy_file_at(source_dir: Path, target_dir: Path, name: str, report: BackupReport) -> bool:
    """Copy one file of a folder (no link followed); False when it is not there."""
    try:
        fd = os.open(source_dir, _DIR_FLAGS)
    except FileNotFoundError:
        return False
    try:
        return _copy_fd(fd, name, target_dir, report)
    finally:
        os.close(fd)


def _copy_fd(dir_fd: int, name: str, target: Path, report: BackupReport) -> bool:
    """Copy the regular file `name` of an open folder into target, with its mode and times."""
    try:
        src = os.open(name, _FILE_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link, or a socket: not copied
            report.skipped.append(name)
            return False
        raise
    try:
        info = os.fstat(src)
        if not stat.S_ISREG(info.st_mode):
            report.skipped.append(name)
            return False
        dst = os.open(target / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            while os.sendfile(dst, src, None, 1 << 24):
                pass
            os.fchmod(dst, stat.S_IMODE(info.st_mode))
            os.utime(dst, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(dst)
    finally:
        os.close(src)
    report.files += 1
    report.bytes += info.st_size
    return True
