"""The sandbox modes and the launch chain that puts a bot in one (docs/isolation.md).

A bot is started as a chain of programs that each exec the next, so the bot keeps the pid
the referee watches: `sh` joins the bot's cgroups, an optional supervisor (a tournament's
launcher) stays outside as the arena's user, `setpriv` arms the parent-death signal,
`bwrap` builds the sandbox's namespaces and file system, `setpriv` drops to the bot's own
uid with no capabilities and `no_new_privs`, `prlimit` applies rlimits, then the bot runs.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path

from arena.launch.folders import NEUTRAL_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[2]
# What a bot may read of the project: the SDK, the rules and the reference bots (all public);
# never the project root itself (configs, results, keys, other entrants' files).
PROJECT_PACKAGES = ("protocol", "arena", "bots")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt")
BOX_DIR = "/box"  # a sandboxed bot's working directory (a size-limited tmpfs)


class SandboxError(RuntimeError):
    """The requested sandbox cannot be used on this machine."""


class Sandbox(StrEnum):
    """How far a bot is shut off from the machine (the mode asked for)."""

    AUTO = "auto"  # bwrap where it works, else uid, else none (says which, once)
    BWRAP = "bwrap"  # namespaces, read-only system, private tmpfs; its own uid when run as root
    UID = "uid"  # its own unprivileged uid, no capabilities, cgroups (root only)
    NONE = "none"  # the organiser's user: for trusted bots only


@dataclass(frozen=True)
class Isolation:
    """What the launch chain does for a mode on this machine."""

    mode: Sandbox  # BWRAP, UID or NONE: never AUTO
    own_uid: bool  # each bot process runs as a leased uid of the pool
    note: str  # one line for the organiser


def is_root() -> bool:
    """True when the arena runs as root (it can give bots their own uids)."""
    return os.geteuid() == 0


@lru_cache(maxsize=1)
def bwrap_works() -> str:
    """"" when bubblewrap can build a sandbox here, else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    probe = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
             "--dev", "/dev", "true"]
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot start: {exc}"
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return f"bwrap cannot create namespaces here: {lines[-1] if lines else done.returncode}"
    return ""


def unreachable(path: str) -> str:
    """"" when a user in no group of ours can read path, else the directory that stops it."""
    current = Path(path).resolve()
    for parent in reversed(current.parents):
        if not os.stat(parent).st_mode & 0o001:
            return str(parent)
    if not os.stat(current).st_mode & 0o004:
        return str(current)
    return ""


@cache
def resolve_sandbox(mode: Sandbox) -> Isolation:
    """What mode does here; raise SandboxError when an explicit mode is impossible."""
    if mode == Sandbox.NONE:
        return Isolation(Sandbox.NONE, False, "sandbox none: bots run as your user (trusted bots only)")
    if mode in (Sandbox.BWRAP, Sandbox.AUTO):
        why = bwrap_works()
        if not why:
            if is_root():
                return Isolation(Sandbox.BWRAP, True, "sandbox bwrap: each bot in its own namespaces, "
                                 "as its own uid, with no capabilities")
            return Isolation(Sandbox.BWRAP, False, "sandbox bwrap: each bot in its own namespaces "
                             "(not root: bots share your uid inside their sandboxes)")
        if mode == Sandbox.BWRAP:
            raise SandboxError(f"--sandbox bwrap: {why}")
    if not is_root():
        if mode == Sandbox.UID:
            raise SandboxError("--sandbox uid needs root (to give each bot its own uid)")
        return Isolation(Sandbox.NONE, False, f"sandbox auto: none available ({bwrap_works()}; not root, "
                         "so no uids of their own): bots run as your user")
    note = "each bot as its own uid, with no capabilities and no network (no file-system or pid namespace)"
    if mode == Sandbox.UID:
        return Isolation(Sandbox.UID, True, f"sandbox uid: {note}")
    blocked = unreachable(sys.executable)
    if blocked:
        return Isolation(Sandbox.NONE, False, f"sandbox auto: none available ({bwrap_works()}; the arena's "
                         f"Python is closed to other users at {blocked}): bots run as your user")
    return Isolation(Sandbox.UID, True, f"sandbox auto → uid ({bwrap_works()}): {note}")


def check_sandbox(mode: Sandbox | str) -> Sandbox:
    """Validate a sandbox mode name; raise SandboxError when it cannot work here."""
    try:
        mode = Sandbox(mode)
    except ValueError:
        raise SandboxError(f"unknown sandbox {mode!r} (known: auto, bwrap, uid, none)") from None
    resolve_sandbox(mode)
    return mode


_announced: set[str] = set()


def announce(mode: Sandbox) -> None:
    """Say once per process, on stderr, what a mode does here."""
    note = resolve_sandbox(mode).note
    if note not in _announced:
        _announced.add(note)
        print(f"arena: {note}", file=sys.stderr, flush=True)


# --- what a bot may read -----------------------------------------------------------------


def _inside(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


@lru_cache(maxsize=1)
def python_paths() -> tuple[str, ...]:
    """The interpreter running the arena and its packages, never the project root or above it."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    # `python -m` puts the working directory first on the path: where the organiser happens to
    # be (a contest's state, say) is not code of the arena's.
    implicit = os.path.realpath(os.getcwd()) if sys.path and sys.path[0] in ("", os.getcwd()) else None
    paths.update(p for p in sys.path if p and os.path.isdir(p) and os.path.realpath(p) != implicit)
    project = str(PROJECT_ROOT)
    kept = set()
    for path in paths:
        real = os.path.realpath(path)
        if project == real or project.startswith(real.rstrip("/") + "/") or real == "/":
            continue  # the project root itself, or a folder holding it
        if _inside(real, [project]) and not _inside(real, [sys.prefix, sys.base_prefix]):
            continue  # inside the project: only its packages and its virtualenv are shown
        kept.add(real)
    kept.update(str(PROJECT_ROOT / name) for name in PROJECT_PACKAGES if (PROJECT_ROOT / name).is_dir())
    return tuple(sorted(kept))


def shown_to_every_bot(path: str) -> bool:
    """True for a (resolved) path every sandboxed bot sees anyway: the system, the arena's Python and packages."""
    return _inside(path, [*SYSTEM_DIRS, *python_paths()])


def own_files_dir(argv: tuple[str, ...] | list[str]) -> str:
    """The bot's own directory: that of the first path in its command not already shown."""
    for word in argv:
        if os.path.isabs(word) and os.path.exists(word) and not shown_to_every_bot(os.path.realpath(word)):
            real = os.path.realpath(word)
            return real if os.path.isdir(real) else os.path.dirname(real)
    return ""


# --- the chain ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainPlan:
    """Everything the launch chain of one bot process needs."""

    command: tuple[str, ...]
    isolation: Isolation
    workdir: str  # the bot's working directory (a tmpfs at the same path inside bwrap)
    endpoint: str = ""  # ipc endpoint bound into the sandbox
    readable: tuple[str, ...] = ()  # host folders shown read-only at their own paths
    own_folder: str = ""  # the staged view of the bot's own folder, shown read-only at NEUTRAL_DIR
    writable: tuple[str, ...] = ()  # host directories the program may write (a compiler's build)
    uid: int | None = None
    limit_args: tuple[str, ...] = ()  # prlimit options
    disk_mb: int | None = 256
    procs_files: tuple[str, ...] = ()  # cgroup.procs files to join before anything runs
    supervisor: tuple[str, ...] = ()  # runs as the arena's user, outside the sandbox


def _parents(args: list[str], made: set[str], dest: str) -> None:
    """Create dest's missing parents 0755, so that closed host folders (/root) do not hide it."""
    parent = os.path.dirname(dest)
    chain = []
    while parent not in ("/", "") and parent not in made:
        chain.append(parent)
        parent = os.path.dirname(parent)
    for directory in reversed(chain):
        args += ["--perms", "0755", "--dir", directory]
        made.add(directory)


def _bind_with_parents(args: list[str], made: set[str], source: str, dest: str, flag: str) -> None:
    """Bind source at dest, its missing parents created first."""
    _parents(args, made, dest)
    args += [flag, source, dest]
    made.add(dest)


def bwrap_args(plan: ChainPlan) -> list[str]:
    """bubblewrap options: own namespaces, read-only system and code, private bounded tmpfs."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "arena-bot"]
    if not plan.isolation.own_uid:  # unprivileged bwrap: its own user namespace, kept closed
        args += ["--unshare-user", "--disable-userns"]
    size = ["--size", str(plan.disk_mb * 2**20)] if plan.disk_mb else []
    args += ["--proc", "/proc", "--dev", "/dev", *size, "--perms", "1777", "--tmpfs", "/dev/shm",
             *size, "--perms", "1777", "--tmpfs", "/tmp"]
    made = {"/tmp", "/dev", "/proc", "/dev/shm"}
    for system_dir in SYSTEM_DIRS:
        if os.path.isdir(system_dir):
            args += ["--ro-bind", system_dir, system_dir]
            made.add(system_dir)
    shown = [d for d in SYSTEM_DIRS if os.path.isdir(d)]
    for path in sorted(set(python_paths()) | set(plan.readable)):
        if os.path.exists(path) and not _inside(path, shown):
            _bind_with_parents(args, made, path, path, "--ro-bind")
            shown.append(path)
    if plan.own_folder:  # a staged copy, so mountinfo names no host folder of the bot's
        _bind_with_parents(args, made, plan.own_folder, NEUTRAL_DIR, "--ro-bind")
    if plan.endpoint.startswith("ipc://"):
        socket_path = plan.endpoint[len("ipc://"):]
        _bind_with_parents(args, made, socket_path, socket_path, "--bind")
    for path in plan.writable:
        _bind_with_parents(args, made, path, path, "--bind")
    if plan.workdir in plan.writable:
        args += ["--chdir", plan.workdir]
    elif plan.workdir:
        _parents(args, made, plan.workdir)
        args += [*size, "--perms", "1777", "--tmpfs", plan.workdir, "--chdir", plan.workdir]
    return [*args, "--remount-ro", "/"]  # the sandbox's own root stays as built: no unbounded tmpfs


def drop_args(uid: int) -> list[str]:
    """setpriv options: the bot's own uid and gid, no groups, no capabilities, no new privileges."""
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--no-new-privs", "--pdeathsig", "KILL", "--"]


def launcher_argv(plan: ChainPlan) -> list[str]:
    """The exec chain that starts the command with cgroups, supervisor, sandbox, uid and limits."""
    argv = list(plan.command)
    if plan.limit_args:
        argv = ["prlimit", *plan.limit_args, "--", *argv]
    if plan.uid is not None:
        argv = [*drop_args(plan.uid), *argv]
        if plan.isolation.mode == Sandbox.UID and shutil.which("unshare"):
            # No bwrap, but root: the kernel's namespaces still take the network and SysV IPC away.
            argv = ["unshare", "--net", "--ipc", "--uts", "--", *argv]
    if plan.isolation.mode == Sandbox.BWRAP:
        argv = [*bwrap_args(plan), "--", *argv]
    if plan.uid is None or plan.isolation.mode == Sandbox.BWRAP:
        argv = ["setpriv", "--pdeathsig", "KILL", "--", *argv]
    argv = [*plan.supervisor, *argv]
    if plan.procs_files:
        # sh moves itself into the cgroups before exec, so not even the first fork escapes them.
        joins = " && ".join(f'echo $$ > {shlex.quote(f)}' for f in plan.procs_files)
        argv = ["sh", "-c", f'{joins} && exec "$@"', "sh", *argv]
    return argv
