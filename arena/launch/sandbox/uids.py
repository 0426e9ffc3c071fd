"""A pool of unprivileged uids for bots: one uid per running bot process, as IOI's isolate does.

A uid is leased with an exclusive `flock` on its lock file, so concurrent workers, Dask
workers and separate `arena` commands on one machine never hand out the same uid; the
kernel drops a dead holder's lock. A lease whose holder died without releasing it (the
lock file still says "busy") first kills whatever still runs as that uid.
"""

from __future__ import annotations

import fcntl
import os
import pwd
import random
import subprocess
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BASE = 60000
DEFAULT_COUNT = 1000
LOCK_DIR = Path(os.environ.get("ARENA_UID_LOCKS", "/run/arena/uids"))


class UidPoolError(RuntimeError):
    """No uid of the pool is free (or the pool cannot be used)."""


def pool_range() -> range:
    """The bot uids: ARENA_UID_BASE (60000) and the ARENA_UID_COUNT (1000) after it."""
    try:
        base = int(os.environ.get("ARENA_UID_BASE", DEFAULT_BASE))
        count = int(os.environ.get("ARENA_UID_COUNT", DEFAULT_COUNT))
    except ValueError:
        raise UidPoolError("ARENA_UID_BASE and ARENA_UID_COUNT must be integers") from None
    if base < 1000 or count < 1 or base + count > 2**31:
        raise UidPoolError(f"bad bot uid range {base}..{base + count - 1} (base >= 1000, count >= 1)")
    return range(base, base + count)


def _is_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
        return True
    except KeyError:
        return False


@dataclass
class UidLease:
    """One uid (its gid is the same number) held until release()."""

    uid: int
    fd: int

    def release(self) -> None:
        """Mark the uid clean and free it."""
        if self.fd < 0:
            return
        try:
            os.pwrite(self.fd, b"clean\n", 0)
            os.ftruncate(self.fd, 6)
        except OSError:
            pass
        os.close(self.fd)
        self.fd = -1


def kill_uid(uid: int) -> None:
    """SIGKILL every process running as uid (kill -1 from that uid reaches exactly those)."""
    subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
                    "kill", "-KILL", "-1"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False, timeout=10)


def acquire(uids: range | None = None) -> UidLease:
    """Lease a free uid of the pool; raise UidPoolError when none is free."""
    uids = uids or pool_range()
    LOCK_DIR.mkdir(parents=True, exist_ok=True, mode=0o700)
    start = random.randrange(len(uids))  # spread concurrent callers over the pool
    for i in range(len(uids)):
        uid = uids[(start + i) % len(uids)]
        path = LOCK_DIR / str(uid)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        if _is_account(uid):  # a real account of this machine: never a bot's
            os.close(fd)
            continue
        if os.pread(fd, 4, 0) == b"busy":
            kill_uid(uid)  # the last holder died holding it: nothing of its bot may remain
        os.pwrite(fd, b"busy\n", 0)
        return UidLease(uid, fd)
    raise UidPoolError(f"all {len(uids)} bot uids ({uids.start}..{uids.stop - 1}) are in use")
