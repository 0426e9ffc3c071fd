"""A bot's own folder, staged: a copy in a neutral place that the bot is shown instead of the host folder.

Why a copy and not a bind of the folder itself: a bind mount's source is named, relative to its
file system, in the bot's /proc/self/mountinfo, which would tell it where the organiser keeps the
entrants (and their names); and in `uid` mode, with no mount namespace, a folder under a closed
directory (/root, `mktemp -d`) is out of the bot's reach. The copy is made once per arena process
and folder state (files, sizes, times), kept in a private store, and each bot process gets a view
of it of its own: fresh directories with hard links to the store's files, under a gate directory
that only that process's uid may pass (`uid` mode, where bots see the host's file system), or
bind-mounted at NEUTRAL_DIR (`bwrap`). Files the bot's uid could not read on the host are left
out; symbolic links are copied as links (never followed by the copy, which may run as root).
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


class _Store:
    """This process's copies of bot folders (keyed by folder and state) and the views made of them."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        parent = ROOT_PARENT if os.geteuid() == 0 else Path(tempfile.gettempdir())
        if parent == ROOT_PARENT:
            parent.mkdir(parents=True, exist_ok=True)
            parent.chmod(0o711)  # passable, not listable: a view's name is nobody else's to find
        _remove_stale(parent)
        self.base = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{self.pid}-", dir=parent))
        self.base.chmod(0o711)
        self.copies = self.base / "copies"
        self.copies.mkdir(mode=0o700)
        self.current: dict[str, tuple[str, list[Entry]]] = {}  # folder -> (key, entries copied)
        atexit.register(self.remove)

    def remove(self) -> None:
        """Remove every copy and view (at exit)."""
        if os.getpid() == self.pid:
            shutil.rmtree(self.base, ignore_errors=True)


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


def _copy(folder: str, entries: list[Entry], target: Path) -> list[Entry]:
    """Copy the scanned entries into target; the ones actually copied."""
    copied: list[Entry] = []
    target.mkdir(mode=0o700)
    fds = {"": os.open(folder, _DIR_FLAGS)}
    out = {"": os.open(target, _DIR_FLAGS)}
    try:
        for entry in entries:
            parent, _, name = entry.path.rpartition("/")
            if parent not in fds:
                continue  # its folder could not be opened
            if entry.kind == "d":
                try:
                    fds[entry.path] = os.open(name, _DIR_FLAGS, dir_fd=fds[parent])
                except OSError:
                    continue
                os.mkdir(name, 0o700, dir_fd=out[parent])
                out[entry.path] = os.open(name, _DIR_FLAGS, dir_fd=out[parent])
                copied.append(entry)
            elif entry.kind == "f":
                if _copy_file(fds[parent], out[parent], name, entry):
                    copied.append(entry)
            else:
                copied.append(entry)  # links are recreated in each view
    finally:
        for fd in (*fds.values(), *out.values()):
            os.close(fd)
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
    for entry in reversed(entries):  # the modes last: a folder closed to its owner could not be filled
        if entry.kind == "d":
            (view / entry.path).chmod(entry.mode)
    view.chmod(mode)


def stage(folder: str, *, others: bool, group: int | None = None) -> str:
    """A view of folder for one bot process (remove it with release); FolderError when it cannot be made.

    others: the bot runs as a uid that is nobody on the host, so what "others" may not read is
    left out. group: the gid of the only bot that may pass the view's gate (None: the view is
    reached through a bind mount only, and its gate is closed to everyone but the arena).
    """
    folder = os.path.realpath(folder)
    with _lock:
        store = _own_store()
    mode, entries = scan(folder, others)
    key = hashlib.sha256(repr((folder, others, mode, entries)).encode()).hexdigest()[:32]
    with _lock:  # Dask runs a worker's matches in threads
        return _make_view(store, folder, key, mode, entries, group)


def _make_view(store: _Store, folder: str, key: str, mode: int, entries: list[Entry], group: int | None) -> str:
    """Copy the folder unless this state of it is copied already, then make a view of the copy."""
    try:
        known = store.current.get(folder)
        if known is None or known[0] != key:
            if known is not None:  # the folder changed: views made before keep their links
                shutil.rmtree(store.copies / known[0], ignore_errors=True)
            shutil.rmtree(store.copies / key, ignore_errors=True)
            store.current[folder] = (key, _copy(folder, entries, store.copies / key))
        copied = store.current[folder][1]
        gate = Path(tempfile.mkdtemp(prefix="view-", dir=store.base))
        view = gate / "bot"
        _view(store.copies / key, mode, copied, view)
        if group is not None:
            os.chown(gate, -1, group)
            gate.chmod(0o710)
    except OSError as exc:
        full = exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.ENOMEM)
        raise FolderError(f"cannot stage {folder}: {exc.strerror or exc}", machine=full) from exc
    return str(view)


def release(view: str) -> None:
    """Remove a view made by stage (its copy stays for the next process of the same bot)."""
    if view:
        shutil.rmtree(os.path.dirname(view), ignore_errors=True)


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
