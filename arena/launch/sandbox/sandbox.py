"""The sandbox modes and the launch chain that puts a bot in one (docs/isolation.md).

A bot is started as a chain of programs that each exec the next, so the bot keeps the pid
the referee watches: `sh` joins the bot's cgroups, an optional supervisor (a tournament's
launcher) stays outside as the arena's user, `setpriv` arms the parent-death signal,
`bwrap` builds the sandbox's namespaces and file system and loads the system-call filter
(arena.launch.sandbox.seccomp), `setpriv` drops to the bot's own uid with no capabilities and
`no_new_privs`, `prlimit` applies rlimits, then the bot runs. In `uid` mode `unshare` and
uidbox.py take bwrap's place, and filterexec.py loads the filter.
"""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import StrEnum
from functools import cache, lru_cache
from pathlib import Path

from arena.games import external_game_paths
from arena.launch.sandbox import procmask, seccomp
from arena.launch.sandbox.folders import NEUTRAL_DIR

PROJECT_ROOT = Path(__file__).resolve().parents[3]
# What a bot may read of the project: the SDK, the rules and the reference bots (all public);
# never the project root itself (configs, results, keys, other entrants' files).
PROJECT_PACKAGES = ("protocol", "arena", "bots")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt")
BOX_DIR = "/box"  # the disk budget: one tmpfs of limits.disk_mb for everything a bot may write
WORK_DIR = f"{BOX_DIR}/work"  # a sandboxed build's working directory
# Places every program expects to write, shown as links into the budget (bwrap follows the
# relative links while it builds the sandbox, so a path below them lands in the budget too).
BUDGET_LINKS = {"/tmp": "tmp", "/var/tmp": "var-tmp", "/dev/shm": "shm"}
DEV_NODES = ("null", "zero", "full", "random", "urandom", "tty")  # those of bwrap's --dev
FILTER_EXEC = Path(__file__).with_name("filterexec.py")
UID_BOX = Path(__file__).with_name("uidbox.py")
# uid mode's namespaces: no network, SysV IPC or hostname of the machine's; with the box, its own
# mounts and pids too (uidbox.py forks the pid namespace's first process: unshare's `--fork`
# cannot pass on a death by SIGKILL before util-linux 2.39).
UNSHARE = ("unshare", "--net", "--ipc", "--uts")
UNSHARE_BOX = (*UNSHARE, "--mount", "--pid")


class SandboxError(RuntimeError):
    """The requested sandbox cannot be used on this machine."""


class MachineError(RuntimeError):
    """The machine refused to start a bot (no processes, memory or uids left): never a bot's fault."""


PROBE_RETRIES = 5  # tries of the bwrap probe while the machine refuses it a process, with back-off
# What a program prints when the machine refuses it a process or memory (EAGAIN, ENOMEM).
MACHINE_REFUSALS = tuple(os.strerror(code) for code in (errno.EAGAIN, errno.ENOMEM))


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
    syscall_filter: bool = False  # the chain loads arena.launch.sandbox.seccomp's filter
    box: bool = False  # uid mode: scratch places, /proc and pids of its own, the machine read-only (uidbox.py)


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
    # A machine out of processes (a pids limit above the arena's) is no answer about bwrap: taken
    # for one, `auto` would fall back to a weaker sandbox. It is retried, then MachineError.
    for attempt in range(PROBE_RETRIES):
        try:
            done = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            why = f"bwrap cannot start: {exc}"
        else:
            if done.returncode == 0:
                return ""
            lines = done.stderr.strip().splitlines()
            why = f"bwrap cannot create namespaces here: {lines[-1] if lines else done.returncode}"
        if not any(refusal in why for refusal in MACHINE_REFUSALS):
            return why
        if attempt < PROBE_RETRIES - 1:
            time.sleep(0.05 * 2**attempt)
    raise MachineError(f"the machine refused bwrap a process ({why}) after {PROBE_RETRIES} tries")


def unreachable(path: str) -> str:
    """"" when a user in no group of ours can read path, else the directory that stops it."""
    current = Path(path).resolve()
    for parent in reversed(current.parents):
        if not os.stat(parent).st_mode & 0o001:
            return str(parent)
    if not os.stat(current).st_mode & 0o004:
        return str(current)
    return ""


def _data_fd(data: bytes) -> int:
    """An anonymous file holding data, read from its start by the launch chain (bwrap, filterexec.py)."""
    fd = os.memfd_create("arena-launch-data")
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


def filter_args(fd: int) -> list[str]:
    """The uid-mode exec wrapper that loads the filter read from fd, as root, before setpriv."""
    return [sys.executable, "-I", "-S", str(FILTER_EXEC), str(fd), "--"]


@cache
def filter_problem(mode: Sandbox) -> str:
    """"" when mode's launch chain (BWRAP or UID) loads the system-call filter here, else why not."""
    why = seccomp.supported()
    if why:
        return why
    read = _data_fd(seccomp.program_bytes())
    if mode == Sandbox.BWRAP:
        probe = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
                 "--dev", "/dev", "--seccomp", str(read), "true"]
    else:
        probe = [*filter_args(read), "true"]
    try:
        done = subprocess.run(probe, pass_fds=(read,), capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot load it: {exc}"
    finally:
        os.close(read)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return f"cannot load it: {lines[-1] if lines else f'exit status {done.returncode}'}"
    return ""


def box_args(plan: ChainPlan) -> list[str]:
    """The uid-mode step that builds the bot's file system (uidbox.py), as root in unshare's namespaces."""
    args = [sys.executable, "-I", "-S", str(UID_BOX), "--work", plan.workdir, "--owner", str(plan.uid)]
    if plan.disk_mb:
        args += ["--size", str(plan.disk_mb * 2**20)]
    socket = [plan.endpoint[len("ipc://"):]] if plan.endpoint.startswith("ipc://") else []
    keep = sorted({*public_code(), str(PROJECT_ROOT), *plan.readable, *filter(None, [plan.own_folder])})
    args += [word for path in keep for word in ("--keep", path)]
    args += [word for path in (*plan.writable, *socket) for word in ("--writable", path)]
    args += [word for fd, dest in plan.mask_fds for word in ("--mask", f"{fd}:{dest}")]
    return [*args, "--"]


@cache
def box_problem() -> str:
    """"" when uid mode can give each bot its own scratch places and /proc here (uidbox.py), else why not."""
    if not is_root():
        return "not root"
    if shutil.which("unshare") is None:
        return "util-linux unshare is missing"
    work = tempfile.mkdtemp(prefix="arena-box-probe-")
    plan = ChainPlan(command=("true",), isolation=Isolation(Sandbox.UID, True, "probe", box=True), workdir=work,
                     uid=os.getuid(), disk_mb=1)
    try:
        done = subprocess.run([*UNSHARE_BOX, "--", *box_args(plan), "true"], capture_output=True, text=True,
                              timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot build it: {exc}"
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        return lines[-1].removeprefix("arena: ") if lines else f"exit status {done.returncode}"
    return ""


@cache
def resolve_sandbox(mode: Sandbox) -> Isolation:
    """What mode does here; raise SandboxError when an explicit mode is impossible."""
    isolation = _resolve(mode)
    if isolation.mode == Sandbox.NONE:
        return isolation
    why = filter_problem(isolation.mode)
    if why:
        return replace(isolation, note=f"{isolation.note}, without a system-call filter ({why})")
    return replace(isolation, syscall_filter=True, note=f"{isolation.note}, behind a system-call filter")


def _resolve(mode: Sandbox) -> Isolation:
    """What mode does here, before the system-call filter is considered."""
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
    note = "each bot as its own uid, with no capabilities and no network"
    why = box_problem()
    note += (", its own /tmp, /var/tmp, /dev/shm and /proc, the machine's files read-only" if not why else
             f"; it shares /tmp, /var/tmp, /dev/shm and /proc with other bots ({why})")
    if mode == Sandbox.UID:
        return Isolation(Sandbox.UID, True, f"sandbox uid: {note}", box=not why)
    blocked = unreachable(sys.executable)
    if blocked:
        return Isolation(Sandbox.NONE, False, f"sandbox auto: none available ({bwrap_works()}; the arena's "
                         f"Python is closed to other users at {blocked}): bots run as your user")
    return Isolation(Sandbox.UID, True, f"sandbox auto → uid ({bwrap_works()}): {note}", box=not why)


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
        if real in BUDGET_LINKS:
            continue  # a scratch place (/tmp holding a script run from there) is each bot's own
        if _inside(real, [project]) and not _inside(real, [sys.prefix, sys.base_prefix]):
            continue  # inside the project: only its packages and its virtualenv are shown
        kept.add(real)
    kept.update(str(PROJECT_ROOT / name) for name in PROJECT_PACKAGES if (PROJECT_ROOT / name).is_dir())
    return tuple(sorted(kept))


def public_code() -> tuple[str, ...]:
    """What every sandboxed bot may read of the organiser's code: the arena's Python and packages, the games found."""
    games = [os.path.realpath(path) for path in external_game_paths()]
    return tuple(sorted({*python_paths(), *games}))


def shown_to_every_bot(path: str) -> bool:
    """True for a (resolved) path every sandboxed bot sees anyway: the system, arena's Python, packages and games."""
    return _inside(path, [*SYSTEM_DIRS, *public_code()])


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
    disk_mb: int | None = 256  # the disk budget, all writable places together (None: unbounded)
    procs_files: tuple[str, ...] = ()  # cgroup.procs files to join before anything runs
    supervisor: tuple[str, ...] = ()  # runs as the arena's user, outside the sandbox and the cgroups
    filter_fd: int = -1  # a descriptor holding the system-call filter (see launch_chain)
    mask_fds: tuple[tuple[int, str], ...] = ()  # (descriptor, /proc file) of neutral stand-ins (bwrap, uid's box)
    keep_caps: tuple[str, ...] = ()  # without a uid of its own, as root in bwrap: these capabilities only


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


def _link(target: str, link: str) -> list[str]:
    """A relative symbolic link, so that bwrap resolves it inside the sandbox it builds."""
    return ["--symlink", os.path.relpath(target, os.path.dirname(link)), link]


def _proc_mask_args(plan: ChainPlan) -> list[str]:
    """Neutral stand-ins over /proc's keyring and machine-wide CPU files (arena.launch.sandbox.procmask)."""
    return [arg for fd, dest in plan.mask_fds for arg in ("--perms", "0444", "--ro-bind-data", str(fd), dest)]


def _dev_args() -> list[str]:
    """bwrap's --dev without its devpts, read-only, with /dev/shm a link into the disk budget."""
    args = ["--perms", "0755", "--tmpfs", "/dev"]
    for node in DEV_NODES:
        if os.path.exists(f"/dev/{node}"):
            args += ["--dev-bind", f"/dev/{node}", f"/dev/{node}"]
    args += ["--symlink", "/proc/self/fd", "/dev/fd"]
    for number, name in enumerate(("stdin", "stdout", "stderr")):
        args += ["--symlink", f"/proc/self/fd/{number}", f"/dev/{name}"]
    return [*args, *_link(f"{BOX_DIR}/{BUDGET_LINKS['/dev/shm']}", "/dev/shm"), "--remount-ro", "/dev"]


def _budget_args(size: list[str]) -> list[str]:
    """One tmpfs of the disk budget with a folder for each place in BUDGET_LINKS, linked there."""
    args = [*size, "--perms", "0755", "--tmpfs", BOX_DIR]
    for name in BUDGET_LINKS.values():
        args += ["--perms", "1777", "--dir", f"{BOX_DIR}/{name}"]
    args += ["--perms", "0755", "--dir", "/var"]
    for place, name in BUDGET_LINKS.items():
        if place != "/dev/shm":  # made with /dev
            args += _link(f"{BOX_DIR}/{name}", place)
    return args


def _workdir_args(workdir: str, made: set[str]) -> list[str]:
    """The work directory, a folder of the disk budget (through a link when its path lies elsewhere)."""
    if _inside(workdir, [BOX_DIR, *BUDGET_LINKS]):
        return ["--perms", "1777", "--dir", workdir]
    args: list[str] = []
    _parents(args, made, workdir)
    return [*args, "--perms", "1777", "--dir", WORK_DIR, *_link(WORK_DIR, workdir)]


def bwrap_args(plan: ChainPlan) -> list[str]:
    """bubblewrap options: own namespaces, read-only system and code, one bounded disk budget."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-net",
            "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", "arena-bot"]
    if not plan.isolation.own_uid:  # unprivileged bwrap: its own user namespace, kept closed
        args += ["--unshare-user", "--disable-userns"]
    elif plan.uid is None:  # a program of the arena's that stays root in the sandbox (a build's supervisor)
        args += ["--cap-drop", "ALL", *(word for cap in plan.keep_caps for word in ("--cap-add", cap))]
    size = ["--size", str(plan.disk_mb * 2**20)] if plan.disk_mb else []
    args += ["--proc", "/proc", *_proc_mask_args(plan), *_dev_args(), *_budget_args(size)]
    made = {"/proc", "/dev", BOX_DIR, "/var", *BUDGET_LINKS}
    for system_dir in SYSTEM_DIRS:
        if os.path.isdir(system_dir):
            args += ["--ro-bind", system_dir, system_dir]
            made.add(system_dir)
    shown = [d for d in SYSTEM_DIRS if os.path.isdir(d)]
    for path in sorted(set(public_code()) | set(plan.readable)):
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
        args += [*_workdir_args(plan.workdir, made), "--chdir", plan.workdir]
    if plan.filter_fd >= 0:
        args += ["--seccomp", str(plan.filter_fd)]  # loaded last, just before bwrap execs the chain
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
        if plan.isolation.mode == Sandbox.UID and plan.filter_fd >= 0:
            argv = [*filter_args(plan.filter_fd), *argv]  # still root: it can load the filter
        if plan.isolation.mode == Sandbox.UID and plan.isolation.box:
            argv = [*UNSHARE_BOX, "--", *box_args(plan), *argv]  # mounts before the filter forbids them
        elif plan.isolation.mode == Sandbox.UID and shutil.which("unshare"):
            # No box, but root: the kernel's namespaces still take the network and SysV IPC away.
            argv = [*UNSHARE, "--", *argv]
    if plan.isolation.mode == Sandbox.BWRAP:
        argv = [*bwrap_args(plan), "--", *argv]
    if plan.uid is None or plan.isolation.mode == Sandbox.BWRAP:
        argv = ["setpriv", "--pdeathsig", "KILL", "--", *argv]
    if plan.supervisor:
        # The supervisor stays outside the bot's cgroups (a frozen bot must not freeze it): its
        # child joins them before it execs, so not even the bot's first fork escapes them.
        joins = [word for f in plan.procs_files for word in ("--join", f)]
        return [*plan.supervisor, *joins, "--", *argv]
    if plan.procs_files:
        # sh moves itself into the cgroups before exec, for the same reason.
        joins_sh = " && ".join(f'echo $$ > {shlex.quote(f)}' for f in plan.procs_files)
        argv = ["sh", "-c", f'{joins_sh} && exec "$@"', "sh", *argv]
    return argv


@contextmanager
def launch_chain(plan: ChainPlan) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """The chain's argv and the descriptors to pass it (Popen's pass_fds), open while it starts.

    The system-call filter and the /proc stand-ins wait in anonymous files whose descriptors
    every exec of the chain keeps (none closes inherited descriptors) until bwrap, uidbox.py
    or filterexec.py reads and closes them; the arena's copies are closed when the block ends.
    """
    fds: list[int] = []
    try:
        if plan.isolation.syscall_filter and plan.isolation.mode != Sandbox.NONE:
            fds.append(_data_fd(seccomp.program_bytes()))
            plan = replace(plan, filter_fd=fds[-1])
        if plan.isolation.mode == Sandbox.BWRAP or (plan.isolation.box and plan.uid is not None):
            masks = []
            for dest, data in procmask.masks():
                fds.append(_data_fd(data))
                masks.append((fds[-1], dest))
            plan = replace(plan, mask_fds=tuple(masks))
        yield launcher_argv(plan), tuple(fds)
    finally:
        for fd in fds:
            os.close(fd)
