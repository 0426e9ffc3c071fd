"""A tiny supervisor that makes a bot, and everything it spawned, die with its worker.

`python -I -S launcher.py PARENT_PID CPUS [--join PROCS_FILE]... -- BOT ARGV...` runs the bot
as its child and waits. The child joins the bot's cgroups (each `--join` names a
`cgroup.procs` file) before it execs, so the launcher itself stays outside them: freezing the
bot never freezes its supervisor. When the bot ends, the launcher ends the same way (same
status, same signal), so the referee sees exactly what the bot did. When PARENT_PID ends
first (a tournament worker killed by SIGKILL, a lost Dask worker), the launcher kills the
bot, thaws and kills the bot's cgroups (or its process group: whatever the bot spawned,
setsid included) and removes the bot's scratch files, which a killed worker cannot do.

Why more than a parent-death signal: PR_SET_PDEATHSIG (`setpriv --pdeathsig` in the
launch chain of arena.launch.processes.process) fires when the parent *thread* exits and never reaches the
bot's own children. So the launcher clears the death signal it inherits (it must live to
clean up), watches the parent *process* through a pidfd, and arms a death signal in the bot
against itself, so the bot dies with the launcher whatever kills it. Stdlib only, started
with `-I -S`: a few milliseconds once per bot process, nothing per match.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import shutil
import signal
import sys
import time

# The launcher runs with `python -I -S` and imports nothing of the arena: these names are defined
# here, and the modules that make these directories and cgroups import them from here.
HUB_PREFIX = "arena-hub-"  # directories of arena.match.hub.Hub ipc endpoints
BOT_DIR_PREFIX = "arena-bot-"  # working directories made by arena.launch.processes.process.BotProcess
CGROUP_MOUNTS = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")
EXIT_LAUNCH_FAILED = 127
FORK_TRIES = 5  # while the machine refuses a process (EAGAIN, ENOMEM), with back-off
PR_SET_PDEATHSIG = 1


def _death_signal(sig: int) -> None:
    """Set this process's parent-death signal (0 clears it)."""
    ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0)


def _kill_cgroups(procs_files: list[str]) -> bool:
    """Thaw, then SIGKILL every process of the bot's cgroups; False when it has none."""
    for procs in procs_files:
        directory = os.path.dirname(procs)
        for name, value in (("cgroup.freeze", "0"), ("freezer.state", "THAWED")):
            try:  # a task frozen by the v1 freezer cannot even die
                with open(os.path.join(directory, name), "w") as f:
                    f.write(value)
            except OSError:
                pass
    for procs in procs_files:
        try:  # cgroup v2: every member at once
            with open(os.path.join(os.path.dirname(procs), "cgroup.kill"), "w") as f:
                f.write("1")
            return True
        except OSError:
            continue
    for procs in procs_files:  # v1 only: kill the members until none is left
        for _ in range(1000):
            try:
                with open(procs) as f:
                    members = {int(p) for p in f.read().split()}
            except (OSError, ValueError):
                break
            if not members:
                return True
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return True
    return False


def _cleanup() -> None:
    """Remove what a killed worker cannot: the bot's working directory and its ipc socket."""
    try:
        cwd = os.getcwd()
    except OSError:  # already removed
        cwd = ""
    if os.path.basename(cwd).startswith(BOT_DIR_PREFIX):
        shutil.rmtree(cwd, ignore_errors=True)
    endpoint = os.environ.get("ARENA_ENDPOINT", "")
    if endpoint.startswith("ipc://"):
        path = endpoint[len("ipc://"):]
        if os.path.basename(os.path.dirname(path)).startswith(HUB_PREFIX):
            for remove in (os.unlink, os.rmdir):  # rmdir succeeds only for the last seat
                try:
                    remove(path if remove is os.unlink else os.path.dirname(path))
                except OSError:
                    pass


def _mirror(status: int) -> None:
    """End this process the way the bot ended."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # these two have no action to reset (signal() refuses)
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only reached for signals whose default action is not to die
    os._exit(os.waitstatus_to_exitcode(status))


def _fork() -> int:
    """fork(), retried with back-off while the machine refuses a process; exit 127 when it never gives one.

    The bot has not run yet, and its cgroups show it: the arena reads such a launch as the
    machine's failure, not the bot's.
    """
    for attempt in range(FORK_TRIES):
        try:
            return os.fork()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ENOMEM) or attempt == FORK_TRIES - 1:
                print(f"arena launcher: cannot start the bot: {exc.strerror}", file=sys.stderr, flush=True)
                os._exit(EXIT_LAUNCH_FAILED)
            time.sleep(0.05 * 2**attempt)
    os._exit(EXIT_LAUNCH_FAILED)


def _parse(argv: list[str]) -> tuple[int, str, list[str], list[str]]:
    """PARENT_PID, CPUS, the cgroup.procs files to join, and the bot's command."""
    joins = []
    rest = argv[2:]
    while len(rest) >= 2 and rest[0] == "--join":
        joins.append(rest[1])
        rest = rest[2:]
    if len(argv) < 2 or len(rest) < 2 or rest[0] != "--":
        print("usage: launcher.py PARENT_PID CPUS [--join PROCS_FILE]... -- BOT ARGV...", file=sys.stderr)
        os._exit(2)
    return int(argv[0]), argv[1], joins, rest[1:]


def main(argv: list[str]) -> None:
    """Launch the bot and supervise it; never returns."""
    parent, cpus, joins, command = _parse(argv)
    me = os.getpid()
    _death_signal(0)  # an inherited death signal would kill us before we could clean up
    try:
        parent_fd = os.pidfd_open(parent)
    except ProcessLookupError:
        os._exit(EXIT_LAUNCH_FAILED)
    if os.getppid() != parent:  # the parent died before the pidfd was opened
        os._exit(EXIT_LAUNCH_FAILED)
    if cpus != "-":
        # Pinned before the fork, so the bot and its children inherit the set.
        os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
    child = _fork()
    if child == 0:
        os.close(parent_fd)
        _death_signal(signal.SIGKILL)  # the bot dies with this launcher, however it dies
        if os.getppid() != me:
            os._exit(EXIT_LAUNCH_FAILED)
        try:
            for procs in joins:  # before the exec: not even the bot's first fork escapes them
                with open(procs, "w") as f:
                    f.write(str(os.getpid()))
            os.execvp(command[0], command)
        except OSError as exc:
            print(f"cannot start {command[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(EXIT_LAUNCH_FAILED)
    for fd in (0, 1, 2):  # the pipes are the bot's: a stdio bot's end of file must be its own
        os.close(fd)
    try:
        child_fd = os.pidfd_open(child)
        while True:
            ready, _, _ = select.select([parent_fd, child_fd], [], [])
            if child_fd in ready:
                _, status = os.waitpid(child, 0)
                _mirror(status)
            if parent_fd in ready:
                break
    finally:
        # The parent is gone (or this supervisor failed): nothing of the bot may outlive it.
        try:
            os.kill(child, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _cleanup()
        # The bot's descendants: its cgroups, else its process group (never the group of
        # whoever started us: only when we lead our own).
        if not _kill_cgroups(joins) and os.getpgrp() == os.getpid():
            os.killpg(0, signal.SIGKILL)
    os._exit(EXIT_LAUNCH_FAILED)


if __name__ == "__main__":
    main(sys.argv[1:])
