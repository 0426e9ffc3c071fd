"""A tiny supervisor that makes a bot die with the process that launched it.

`python -I -S launcher.py PARENT_PID CPUS -- BOT ARGV...` runs the bot as its child and
waits. When the bot ends, the launcher ends the same way (same status, same signal), so
the referee sees exactly what the bot did. When PARENT_PID ends first (a tournament
worker killed by SIGKILL, a Dask worker lost), the launcher kills its whole process group
(the bot and anything it spawned) and removes the bot's scratch files.

Why a supervisor and not PR_SET_PDEATHSIG alone: the death signal fires when the parent
*thread* exits (Dask runs tasks on pool threads) and does not reach the bot's own children;
a pidfd on the parent process has neither problem. It is stdlib-only and started with
`-I -S` so it costs a few milliseconds once per bot process, not per match.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import sys

HUB_PREFIX = "arena-hub-"  # directories of arena.hub.Hub ipc endpoints
BOT_DIR_PREFIX = "arena-bot-"  # working directories made by arena.process.BotProcess
EXIT_LAUNCH_FAILED = 127


def _cleanup() -> None:
    """Remove what a killed worker cannot: the bot's working directory and its ipc socket."""
    cwd = os.getcwd()
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
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only reached for signals whose default action is not to die
    os._exit(os.waitstatus_to_exitcode(status))


def main(argv: list[str]) -> None:
    """Launch the bot and supervise it; never returns."""
    if len(argv) < 4 or argv[2] != "--":
        print("usage: launcher.py PARENT_PID CPUS -- BOT ARGV...", file=sys.stderr)
        os._exit(2)
    parent, cpus, command = int(argv[0]), argv[1], argv[3:]
    try:
        parent_fd = os.pidfd_open(parent)
    except ProcessLookupError:
        os._exit(EXIT_LAUNCH_FAILED)
    if os.getppid() != parent:  # the parent died before the pidfd was opened
        os._exit(EXIT_LAUNCH_FAILED)
    if cpus != "-":
        # Pinned before the fork, so the bot and its children inherit the set.
        os.sched_setaffinity(0, {int(c) for c in cpus.split(",")})
    child = os.fork()
    if child == 0:
        os.close(parent_fd)
        try:
            os.execvp(command[0], command)
        except OSError as exc:
            print(f"cannot start {command[0]}: {exc.strerror}", file=sys.stderr, flush=True)
        os._exit(EXIT_LAUNCH_FAILED)
    child_fd = os.pidfd_open(child)
    while True:
        ready, _, _ = select.select([parent_fd, child_fd], [], [])
        if child_fd in ready:
            _, status = os.waitpid(child, 0)
            _mirror(status)
        if parent_fd in ready:
            os.kill(child, signal.SIGKILL)
            _cleanup()
            if os.getpgrp() == os.getpid():  # never the group of whoever started us otherwise
                os.killpg(0, signal.SIGKILL)  # the bot's children, then this process
            os._exit(EXIT_LAUNCH_FAILED)


if __name__ == "__main__":
    main(sys.argv[1:])
