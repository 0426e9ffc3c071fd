"""One writer per results directory: an `flock` on DIR/arena.lock, held for the writer's whole life.

Every command that writes a results directory (a tournament, a series, their `--resume`, a
contest server on its state directory) takes the lock before it touches anything else; a
second writer is refused with the holder's pid. The kernel drops the lock when its process
dies however it dies, so a directory left by a killed run is simply taken over. Readers
(`arena verify`, reports, the viewer) take no lock: `writer_of` looks in /proc/locks.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path

from arena.tournament.plan.errors import TournamentError

LOCK_FILE = "arena.lock"
SETTLE_S = 2.0  # how long a refused writer looks for the holder's pid (it may be writing it just now)
_PROC_LOCKS = "/proc/locks"


class DirectoryInUse(TournamentError):
    """Another live process writes this directory."""

    def __init__(self, directory: Path, pid: int) -> None:
        self.directory = directory
        self.pid = pid
        who = f"pid {pid}" if pid > 0 else "another process (its pid is not visible here)"
        super().__init__(f"{directory} is in use by {who}")


class DirectoryLock:
    """The writer's lock of one directory, held until release() or the end of the process."""

    def __init__(self, directory: Path, fd: int) -> None:
        self.directory = directory
        self._fd = fd

    @property
    def held(self) -> bool:
        """True until released."""
        return self._fd >= 0

    def release(self) -> None:
        """Clear the pid and drop the lock (idempotent)."""
        if self._fd < 0:
            return
        try:
            os.ftruncate(self._fd, 0)  # no pid of a finished writer is left to be misread later
        except OSError:
            pass
        os.close(self._fd)  # closing the only descriptor drops the flock
        self._fd = -1

    def __enter__(self) -> DirectoryLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def __del__(self) -> None:
        self.release()


def lock_directory(directory: str | os.PathLike[str]) -> DirectoryLock:
    """Take the writer's lock of directory (created if missing); DirectoryInUse naming the live holder."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fd = os.open(directory / LOCK_FILE, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)
    try:
        deadline = time.monotonic() + SETTLE_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    raise
            # Held. By whom: /proc/locks says for certain. A reader's probe (a shared lock for an
            # instant) is waited out; where the kernel lists nothing on this file (no /proc/locks,
            # or a file system numbered differently), the pid in the file counts if it is alive.
            locks = _locks_on(fd)
            pid = next((p for kind, p in locks or [] if kind == "WRITE"), None)  # 0: in another pid namespace
            if pid is None and not locks:
                pid = _pid_in(fd)
            if pid is not None or time.monotonic() > deadline:
                raise DirectoryInUse(directory, pid or 0)
            time.sleep(0.01)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except BaseException:
        os.close(fd)
        raise
    return DirectoryLock(directory, fd)


def writer_of(directory: str | os.PathLike[str]) -> int | None:
    """The pid of the live process writing directory (0: one whose pid is not visible), None: nobody.

    Takes no lock where /proc/locks answers; elsewhere a shared lock for an instant.
    """
    try:
        fd = os.open(Path(directory) / LOCK_FILE, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None  # no lock file: no writer of this arena ever ran here
    try:
        locks = _locks_on(fd)
        if locks:  # the kernel's own list: an exclusive lock is the writer's, shared ones are readers'
            return next((pid for kind, pid in locks if kind == "WRITE"), None)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return _pid_in(fd) or 0
        return None  # (closing the descriptor drops the probe at once)
    finally:
        os.close(fd)


def in_use_note(directory: str | os.PathLike[str]) -> str:
    """The line a reader says when a writer is at work in directory ("" when none is)."""
    pid = writer_of(directory)
    if pid is None:
        return ""
    return (f"{DirectoryInUse(Path(directory), pid)}: it is being written now, so what is not written "
            "yet shows as missing")


def _proc_locks() -> list[str] | None:
    try:
        with open(_PROC_LOCKS) as f:
            return f.readlines()
    except OSError:
        return None


def _locks_on(fd: int) -> list[tuple[str, int]] | None:
    """(READ or WRITE, pid) of every flock held on fd's file, from /proc/locks (None: unreadable)."""
    lines = _proc_locks()
    if lines is None:
        return None
    st = os.fstat(fd)
    where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"
    found = []
    for line in lines:
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5310706 0 EOF"; waiters have "->" before FLOCK.
        fields = line.split()
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[5] == where:
            try:
                found.append((fields[3], int(fields[4])))
            except ValueError:
                continue
    return found


def _pid_in(fd: int) -> int | None:
    """The pid written in the lock file, if that process is alive (a dead writer's pid is stale)."""
    try:
        pid = int(os.pread(fd, 32, 0).decode().strip() or "0")
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass  # alive, as another user
    return pid
