"""Keeping untrusted bots apart: the launcher chain, cgroups, the bwrap sandbox, orphan reaping.

A bot is started as a chain of programs that each exec the next, so the bot keeps the
pid the referee watches: `sh` joins the bot's own cgroup (when cgroup v2 is writable),
`setpriv` makes the kernel kill the bot when its referee dies, `bwrap` (sandbox mode)
hides the system, `prlimit` applies resource limits, then the bot's own program runs.
"""

from __future__ import annotations

import atexit
import ctypes
import logging
import os
import shutil
import signal
import sys
import time
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

_PR_SET_CHILD_SUBREAPER = 36
_CGROUP_MOUNTS = ("/sys/fs/cgroup/unified", "/sys/fs/cgroup")


class SandboxError(RuntimeError):
    """The requested sandbox cannot be used on this machine."""


class Sandbox(StrEnum):
    """How far a bot is shut off from the machine."""

    NONE = "none"  # own session, directory, environment and limits
    BWRAP = "bwrap"  # also: no network, read-only system, own pid namespace (bubblewrap)


def check_sandbox(mode: Sandbox | str) -> Sandbox:
    """Validate a sandbox mode; raise SandboxError when its tool is missing."""
    try:
        mode = Sandbox(mode)
    except ValueError:
        raise SandboxError(f"unknown sandbox {mode!r} (known: none, bwrap)") from None
    if mode == Sandbox.BWRAP and shutil.which("bwrap") is None:
        raise SandboxError("--sandbox bwrap needs bubblewrap: apt-get install bubblewrap")
    return mode


# --- orphans ---------------------------------------------------------------------------

MARK_VARIABLE = "ARENA_BOT_MARK"  # inherited by a bot's descendants, so orphans can be told apart


@lru_cache(maxsize=1)
def become_subreaper() -> bool:
    """Make orphaned descendants of our bots (setsid included) our children, so we can kill them."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        return False


def _children() -> set[int]:
    pids: set[int] = set()
    for task in Path("/proc/self/task").iterdir():
        try:
            pids.update(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError):
            continue
    return pids


def _has_mark(pid: int, mark: str) -> bool:
    try:
        return f"{MARK_VARIABLE}={mark}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def _reap(pids: set[int], timeout: float = 1.0) -> None:
    deadline = time.monotonic() + timeout
    for pid in pids:
        while True:
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                break
            if done or time.monotonic() > deadline:
                break
            time.sleep(0.002)


def sweep_orphans(mark: str, exclude: int = 0, rounds: int = 10) -> int:
    """Kill and reap our children that descend from the bot carrying mark (not the bot itself).

    As a subreaper we inherit a bot's orphans, setsid or not; the mark in their environment
    tells them from the host's own children (a Dask worker, a test's subprocess).
    """
    killed = 0
    for _ in range(rounds):
        orphans = {pid for pid in _children() - {exclude} if _has_mark(pid, mark)}
        if not orphans:
            break
        for pid in orphans:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        killed += len(orphans)
        _reap(orphans)
    return killed


def reap_children(pids: set[int]) -> None:
    """Reap those of pids that are our children (killed members of a bot's cgroup)."""
    _reap(pids & _children())


# --- cgroups ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def cgroup_base() -> Path | None:
    """A writable cgroup v2 directory for this process's bots, or None."""
    for mount in _CGROUP_MOUNTS:
        root = Path(mount)
        if not (root / "cgroup.procs").exists() or not (root / "cgroup.kill").parent.exists():
            continue
        if not os.access(root, os.W_OK):
            continue
        _remove_stale(root)
        base = root / f"arena-{os.getpid()}"
        try:
            base.mkdir(exist_ok=True)
        except OSError:
            continue
        if (base / "cgroup.kill").exists():
            atexit.register(_remove_tree, base)
            return base
        try:
            base.rmdir()
        except OSError:
            pass
    return None


def _remove_tree(base: Path) -> None:
    """Remove a base cgroup and its (empty) bot cgroups."""
    for child in base.glob("bot*"):
        try:
            child.rmdir()
        except OSError:
            pass
    try:
        base.rmdir()
    except OSError:
        pass


def _remove_stale(root: Path) -> None:
    """Remove the cgroups left by arena processes that died without cleaning up."""
    for base in root.glob("arena-*"):
        try:
            os.kill(int(base.name.split("-", 1)[1]), 0)
        except ProcessLookupError:
            _remove_tree(base)
        except (ValueError, PermissionError):
            continue


class BotCgroup:
    """The cgroup of one bot: its whole process tree, however it forks or calls setsid."""

    _counter = 0

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls) -> "BotCgroup | None":
        """A fresh cgroup under this process's base, or None where cgroups are not writable."""
        base = cgroup_base()
        if base is None:
            return None
        cls._counter += 1
        path = base / f"bot{cls._counter}"
        try:
            path.mkdir()
        except OSError as exc:
            log.debug("cannot create cgroup %s: %s", path, exc)
            return None
        return cls(path)

    def cpu_ms(self) -> float:
        """CPU time used by every process that ever ran in the cgroup, in milliseconds."""
        try:
            for line in (self.path / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1000.0
        except OSError:
            pass
        return 0.0

    def pids(self) -> set[int]:
        """The processes now in the cgroup."""
        try:
            return {int(p) for p in (self.path / "cgroup.procs").read_text().split()}
        except (OSError, ValueError):
            return set()

    def kill(self) -> None:
        """SIGKILL every process in the cgroup."""
        try:
            (self.path / "cgroup.kill").write_text("1")
        except OSError as exc:
            log.debug("cgroup.kill failed for %s: %s", self.path, exc)

    def remove(self) -> None:
        """Remove the (emptied) cgroup directory."""
        deadline = time.monotonic() + 1.0
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    log.debug("cgroup %s not empty; left behind", self.path)
                    return
                self.kill()
                time.sleep(0.005)


def process_tree_cpu_ms(pid: int) -> float:
    """CPU time of a process and its live descendants (and reaped ones), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    stack = [pid]
    seen = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:15]) / tick * 1000.0  # utime stime cutime cstime
            for task in Path(f"/proc/{current}/task").iterdir():
                stack.extend(int(p) for p in (task / "children").read_text().split())
        except (OSError, ValueError, IndexError):
            continue
    return total


# --- the launcher chain ------------------------------------------------------------------


def _bwrap_args(workdir: str, endpoint: str, readable: list[str]) -> list[str]:
    """bubblewrap options: no network, read-only system, only the bot's own files writable."""
    args = ["bwrap", "--die-with-parent", "--new-session", "--unshare-net", "--unshare-pid",
            "--unshare-ipc", "--unshare-uts", "--hostname", "arena-bot",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    for system_dir in ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt"):
        if os.path.isdir(system_dir):
            args += ["--ro-bind", system_dir, system_dir]
    for path in sorted(set(readable)):
        if os.path.exists(path):
            args += ["--ro-bind", path, path]
    args += ["--bind", workdir, workdir, "--chdir", workdir]
    if endpoint.startswith("ipc://"):
        socket_path = endpoint[len("ipc://"):]
        args += ["--bind", socket_path, socket_path]
    return args


def python_paths() -> list[str]:
    """Directories a sandboxed Python bot must read: the interpreter, its packages, the project."""
    project = str(Path(__file__).resolve().parent.parent)
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, project}
    paths.update(p for p in sys.path if p and os.path.isdir(p) and not p.startswith(("/usr", "/tmp")))
    return sorted(paths)


def launcher_argv(
    command: list[str],
    limit_args: list[str],
    cgroup: BotCgroup | None,
    sandbox: Sandbox,
    workdir: str,
    endpoint: str,
) -> list[str]:
    """The exec chain that starts command with limits, death signal, cgroup and sandbox."""
    argv = list(command)
    if limit_args and shutil.which("prlimit"):
        argv = ["prlimit", *limit_args, "--", *argv]
    if sandbox == Sandbox.BWRAP:
        readable = python_paths() + [os.path.dirname(w) for w in command if os.path.isabs(w)]
        argv = [*_bwrap_args(workdir, endpoint, readable), "--", *argv]
    if shutil.which("setpriv"):
        argv = ["setpriv", "--pdeathsig", "KILL", "--", *argv]
    if cgroup is not None:
        # sh moves itself into the cgroup before exec, so not even the first fork escapes it.
        argv = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', str(cgroup.path / "cgroup.procs"), *argv]
    return argv
