"""A bot's own folder, staged: a copy in a neutral place that the bot is shown instead of the host folder.

Why a copy and not a bind of the folder itself: a bind mount's source is named, relative to its
file system, in the bot's /proc/self/mountinfo, which would tell it where the organiser keeps the
entrants (and their names); and in `uid` mode, with no mount namespace, a folder under a closed
directory (/root, `mktemp -d`) is out of the bot's reach. The copy is made once per arena process
and folder state (files, sizes, times), kept in a store closed to everyone else, and shared by
the processes of that bot: `bwrap` binds it at NEUTRAL_DIR; in `uid` mode, where bots see the
host's file system, each process gets a view of it (fresh folders, hard links to the copy's
files) behind a gate that only its own uid may pass. Files the bot's uid could not read on the
host are left out; links are copied as links (never followed by the copy, which may run as root).
"""

from __future__ import annotations

import atexit
import errno
import hashlib
import os
import shutil
import stat
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

NEUTRAL_DIR = "/bot"  # where bwrap shows a bot its own folder
ROOT_PARENT = Path("/run/arena/folders")  # as root; otherwise the temporary directory
PREFIX = "arena-folders-"  # PREFIX + PID + "-" + random: one per arena process
FOLDER_MB_ENV = "ARENA_FOLDER_MB"
DEFAULT_FOLDER_MB = 256
MAX_ENTRIES = 10_000  # files, folders and links of one bot's folder
MAX_DEPTH = 64  # folders inside folders
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs the copy
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class FolderError(RuntimeError):
    """A bot's folder cannot be staged (too large, unreadable); the message is one line."""

    def __init__(self, message: str, machine: bool = False) -> None:
        super().__init__(message)
        self.machine = machine  # the machine's disk or memory ran out, not the bot's doing


@dataclass(frozen=True)
class Entry:
    """One thing in a folder: a directory ("d"), regular file ("f") or symbolic link ("l")."""

    path: str  # relative to the folder, "/"-separated
    kind: str
    mode: int
    size: int = 0
    mtime_ns: int = 0
    target: str = ""  # a link's target, as written


def folder_cap_mb() -> int:
    """The most a bot's folder may hold, in MiB ($ARENA_FOLDER_MB, else 256)."""
    try:
        return max(1, int(os.environ.get(FOLDER_MB_ENV, DEFAULT_FOLDER_MB)))
    except ValueError:
        return DEFAULT_FOLDER_MB


def _visible(mode: int, others: bool) -> bool:
    """Whether a bot that is `others` to the host's files could use this entry at all."""
    if not others:
        return True
    return bool(mode & 0o001) if stat.S_ISDIR(mode) else bool(mode & 0o005)


def scan(folder: str, others: bool) -> tuple[int, list[Entry]]:
    """The folder's own mode and what a bot may see in it; FolderError past the caps."""
    cap = folder_cap_mb()
    entries: list[Entry] = []
    total = 0

    def walk(dir_fd: int, prefix: str) -> None:
        nonlocal total
        if prefix.count("/") >= MAX_DEPTH:
            raise FolderError(f"{folder} has folders nested more than {MAX_DEPTH} deep")
        with os.scandir(dir_fd) as items:
            for item in sorted(items, key=lambda e: e.name):
                rel = f"{prefix}{item.name}"
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue  # gone since it was listed
                if len(entries) >= MAX_ENTRIES:
                    raise FolderError(f"{folder} holds more than {MAX_ENTRIES} files and folders")
                if stat.S_ISLNK(info.st_mode):
                    try:
                        entries.append(Entry(rel, "l", 0o777, target=os.readlink(item.name, dir_fd=dir_fd)))
                    except OSError:
                        pass
                elif not _visible(info.st_mode, others):
                    continue
                elif stat.S_ISDIR(info.st_mode):
                    entries.append(Entry(rel, "d", stat.S_IMODE(info.st_mode) & 0o777))
                    try:
                        sub = os.open(item.name, _DIR_FLAGS, dir_fd=dir_fd)
                    except OSError:
                        entries.pop()
                        continue
                    try:
                        walk(sub, rel + "/")
                    finally:
                        os.close(sub)
                elif stat.S_ISREG(info.st_mode):
                    total += info.st_size
                    if total > cap << 20:
                        raise FolderError(f"{folder} holds more than {cap} MiB (${FOLDER_MB_ENV} raises the cap)")
                    entries.append(Entry(rel, "f", stat.S_IMODE(info.st_mode) & 0o777, info.st_size,
                                         info.st_mtime_ns))
                # sockets, FIFOs and devices are no bot's files

    try:
        top = os.open(folder, _DIR_FLAGS)
    except OSError as exc:
        raise FolderError(f"cannot read {folder}: {exc.strerror}") from None
    try:
        mode = stat.S_IMODE(os.fstat(top).st_mode) & 0o777
        walk(top, "")
    except PermissionError as exc:
        raise FolderError(f"cannot read {folder}: {exc.strerror}") from None
    finally:
        os.close(top)
    return mode, entries


@dataclass
class _Copy:
    """One copy of one state of a folder, and how many bot processes are shown it (views not counted)."""

    folder: str
    path: Path
    entries: list[Entry]
    users: int = 0


class _Store:
    """This process's copies of bot folders (one per folder and state) and the views made of them."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        parent = ROOT_PARENT if os.geteuid() == 0 else Path(tempfile.gettempdir())
        if parent == ROOT_PARENT:
            parent.mkdir(parents=True, exist_ok=True)
            parent.chmod(0o711)  # passable, not listable: a view's name is nobody else's to find
        _remove_stale(parent)
        self.base = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{self.pid}-", dir=parent))
        self.base.chmod(0o711)
        self.copies_dir = self.base / "copies"
        self.copies_dir.mkdir(mode=0o700)  # reached by the arena only (bwrap binds a copy as root)
        self.copies: dict[str, _Copy] = {}  # by key
        self.current: dict[str, str] = {}  # folder -> key of its latest state
        atexit.register(self.remove)

    def remove(self) -> None:
        """Remove every copy and view (at exit)."""
        if os.getpid() == self.pid:
            shutil.rmtree(self.base, ignore_errors=True)

    def drop(self, key: str) -> None:
        """Remove a copy once no process uses it and a newer state of its folder replaced it."""
        copy = self.copies.get(key)
        if copy is not None and copy.users <= 0 and self.current.get(copy.folder) != key:
            del self.copies[key]
            shutil.rmtree(copy.path, ignore_errors=True)


_store: _Store | None = None
_lock = threading.Lock()


def _own_store() -> _Store:
    global _store
    if _store is None or _store.pid != os.getpid():  # a forked child makes its own
        _store = _Store()
    return _store


def _remove_stale(parent: Path) -> None:
    """Remove the stores of arena processes that died without cleaning up."""
    for path in parent.glob(f"{PREFIX}*"):
        try:
            pid = int(path.name[len(PREFIX):].split("-", 1)[0])
            info = path.lstat()
        except (ValueError, OSError):
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
            continue
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except PermissionError:
            continue


def _copy_file(src_dir: int, dst_dir: int, name: str, entry: Entry) -> bool:
    """Copy one regular file (at most its scanned size), never through a link; False if it is gone."""
    try:
        src = os.open(name, _FILE_FLAGS, dir_fd=src_dir)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(src).st_mode):
            return False  # replaced since the scan
        dst = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600, dir_fd=dst_dir)
        try:
            left = entry.size
            while left > 0:
                sent = os.sendfile(dst, src, None, min(left, 1 << 24))
                if sent == 0:
                    break
                left -= sent
            os.fchmod(dst, entry.mode)
            os.utime(dst, ns=(entry.mtime_ns, entry.mtime_ns))  # a folder's .pyc files stay valid
        finally:
            os.close(dst)
    finally:
        os.close(src)
    return True


def _copy(folder: str, mode: int, entries: list[Entry], target: Path) -> list[Entry]:
    """Copy the scanned entries into target, with the host's modes; the ones actually copied."""
    copied: list[Entry] = []
    target.mkdir(mode=0o700)
    # The open folders from the top to the current one (source, copy): entries come depth first.
    stack = [("", os.open(folder, _DIR_FLAGS), os.open(target, _DIR_FLAGS))]
    try:
        for entry in entries:
            parent, _, name = entry.path.rpartition("/")
            while len(stack) > 1 and stack[-1][0] != parent:
                for fd in stack.pop()[1:]:
                    os.close(fd)
            if stack[-1][0] != parent:
                continue  # its folder could not be opened
            _, src_dir, dst_dir = stack[-1]
            if entry.kind == "d":
                try:
                    src = os.open(name, _DIR_FLAGS, dir_fd=src_dir)
                except OSError:
                    continue
                try:
                    os.mkdir(name, 0o700, dir_fd=dst_dir)
                    stack.append((entry.path, src, os.open(name, _DIR_FLAGS, dir_fd=dst_dir)))
                except OSError:
                    os.close(src)
                    raise
                copied.append(entry)
            elif entry.kind == "f":
                if _copy_file(src_dir, dst_dir, name, entry):
                    copied.append(entry)
            else:
                os.symlink(entry.target, name, dir_fd=dst_dir)
                copied.append(entry)
    finally:
        for _, src, dst in stack:
            os.close(src)
            os.close(dst)
    for entry in reversed(copied):  # the modes last, deepest first: a closed folder could not be filled
        if entry.kind == "d":
            (target / entry.path).chmod(entry.mode)
    target.chmod(mode)
    return copied


def _view(copy: Path, mode: int, entries: list[Entry], view: Path) -> None:
    """Fresh folders, hard links to the copy's files and links as written, with the host's modes."""
    view.mkdir(mode=0o700)
    for entry in entries:
        path = view / entry.path
        if entry.kind == "d":
            path.mkdir(mode=0o700)
        elif entry.kind == "f":
            os.link(copy / entry.path, path)
        else:
            os.symlink(entry.target, path)
    for entry in reversed(entries):
        if entry.kind == "d":
            (view / entry.path).chmod(entry.mode)
    view.chmod(mode)


def stage(folder: str, *, others: bool, group: int | None = None) -> str:
    """The path of a copy of folder for one bot process (give it back with release); FolderError if none.

    others: the bot runs as a uid that is nobody on the host, so what "others" may not read is
    left out. group: the gid of the only bot that may pass to its copy (`uid` mode: a view of
    the copy behind a gate of its own); None: the copy itself, shown through a bind mount only.
    """
    folder = os.path.realpath(folder)
    with _lock:
        store = _own_store()
    mode, entries = scan(folder, others)
    key = hashlib.sha256(repr((folder, others, mode, entries)).encode()).hexdigest()[:32]
    with _lock:  # Dask runs a worker's matches in threads
        try:
            return _hand_out(store, folder, key, mode, entries, group)
        except OSError as exc:
            full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENOMEM)
            raise FolderError(f"cannot stage {folder}: {exc.strerror or exc}", machine=full) from exc


def _hand_out(store: _Store, folder: str, key: str, mode: int, entries: list[Entry], group: int | None) -> str:
    """Copy the folder unless this state of it is copied already; the copy, or a gated view of it."""
    copy = store.copies.get(key)
    if copy is None:
        path = store.copies_dir / key
        shutil.rmtree(path, ignore_errors=True)
        copy = store.copies[key] = _Copy(folder, path, _copy(folder, mode, entries, path))
    replaced = store.current.get(folder)
    store.current[folder] = key
    if replaced is not None and replaced != key:
        store.drop(replaced)  # running bots keep the state they started with
    if group is None:
        copy.users += 1
        return str(copy.path)
    gate = Path(tempfile.mkdtemp(prefix="view-", dir=store.base))
    _view(copy.path, mode, copy.entries, gate / "bot")  # its own links: it needs the copy no longer
    os.chown(gate, -1, group)
    gate.chmod(0o710)
    return str(gate / "bot")


def release(view: str) -> None:
    """Give back a path handed out by stage: a view is removed, a copy once no process uses it."""
    with _lock:
        store = _store
        if not view or store is None or store.pid != os.getpid():
            return
        if os.path.dirname(view) != str(store.copies_dir):
            if os.path.basename(os.path.dirname(view)).startswith("view-"):
                shutil.rmtree(os.path.dirname(view), ignore_errors=True)
            return
        key = os.path.basename(view)
        copy = store.copies.get(key)
        if copy is not None:
            copy.users = max(0, copy.users - 1)
            store.drop(key)


def _relative(path: str, folder: str) -> str | None:
    """path relative to folder when it points into it (through links of its parents), else None."""
    if not os.path.isabs(path):
        return None
    path = os.path.normpath(path)
    if os.path.realpath(path) == folder:
        return "."
    # The last part is kept as written: `bot.py:Class` exists nowhere, a link's own name is the bot's.
    real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    return os.path.relpath(real, folder) if real.startswith(folder.rstrip("/") + "/") else None


def rewrite(argv: tuple[str, ...] | list[str], folder: str, shown: str) -> tuple[str, ...]:
    """The command with every word that points into folder (`PATH`, `PATH:Class`, `--key=PATH`) pointing into shown."""
    folder = os.path.realpath(folder)
    out = []
    for word in argv:
        prefix, path = "", word
        if not word.startswith("/") and "=" in word:
            head, _, path = word.partition("=")
            prefix = head + "="
        rel = _relative(path, folder)
        if rel is not None:
            word = prefix + (shown if rel == "." else f"{shown.rstrip('/')}/{rel}")
        out.append(word)
    return tuple(out)
