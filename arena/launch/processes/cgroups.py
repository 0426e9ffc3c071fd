"""A cgroup per bot: its whole process tree counted, limited, frozen and killed, however it forks.

Both kinds of hierarchy are used where they are writable: cgroup v2 (`cgroup.kill`,
`cgroup.freeze`, `cpu.stat`, and `pids.max`/`memory.max`/`cpu.weight` where those controllers
are delegated) and the v1 `pids`, `memory`, `cpu`, `cpuacct` and `freezer` hierarchies of
hybrid machines. The directories belong to the arena's user (root), so a bot running as its
own uid can neither raise its limits, nor thaw itself, nor move a helper process out of its
cgroup to dodge CPU accounting or the freezer.

A bot's cgroup is one scheduling entity of the default weight: however many processes or
sessions it starts, together they get one bot's share of the CPU, never one share each (the
kernel's autogroup scheduler would give every session its own).
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from arena.launch.processes.launcher import CGROUP_MOUNTS

log = logging.getLogger(__name__)

V2_MOUNTS = CGROUP_MOUNTS  # the launcher (stdlib only) owns the list
V1_ROOT = Path("/sys/fs/cgroup")
V1_CONTROLLERS = ("pids", "memory", "cpu", "cpuacct", "freezer")
BASE_PREFIX = "arena-"
BOT_PREFIX = "bot"


@dataclass(frozen=True)
class CgroupLimits:
    """What a bot's cgroup enforces (None = not limited)."""

    processes: int | None = 64
    memory_mb: int | None = 2048
    cpus: tuple[int, ...] | None = None  # the cores the bot may run on (a cpuset it cannot leave)


def _own_path(controller: str) -> str:
    """This process's cgroup path in a v1 hierarchy ("" for v2 with controller "")."""
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, names, path = line.split(":", 2)
            if (controller == "" and names == "") or controller in names.split(","):
                return path
    except OSError:
        pass
    return "/"


def _make_base(parent: Path) -> Path | None:
    """arena-PID under parent (stale ones of dead arena processes removed first), or None."""
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        return None
    _remove_stale(parent)
    base = parent / f"{BASE_PREFIX}{os.getpid()}"
    try:
        base.mkdir(exist_ok=True)
    except OSError:
        return None
    atexit.register(_remove_tree, base)
    return base


@lru_cache(maxsize=1)
def v2_base() -> Path | None:
    """A writable cgroup v2 directory for this process's bots, or None."""
    for mount in V2_MOUNTS:
        root = Path(mount)
        if not (root / "cgroup.procs").exists() or not (root / "cgroup.controllers").exists():
            continue
        base = _make_base(root / _own_path("").lstrip("/"))
        if base is None:
            continue
        if (base / "cgroup.kill").exists():
            offered = set((base / "cgroup.controllers").read_text().split())
            wanted = offered & {"pids", "memory", "cpu", "cpuset"}
            for controller in sorted(wanted):  # delegate what the parent lets us use
                try:
                    (base / "cgroup.subtree_control").write_text(f"+{controller}")
                except OSError:
                    pass
            return base
        _remove_tree(base)
    return None


@cache
def v1_base(controller: str) -> Path | None:
    """A writable directory in the v1 hierarchy of controller, or None."""
    mount = V1_ROOT / controller
    if not (mount / "cgroup.procs").exists() or (mount / "cgroup.controllers").exists():
        return None
    base = _make_base(mount / _own_path(controller).lstrip("/"))
    if base is not None and controller == "cpuset":
        # A v1 cpuset takes no task before its cores and memory nodes are set: its parent's.
        for name in ("cpuset.cpus", "cpuset.mems"):
            if not (base / name).read_text().strip():
                _write(base / name, (base.parent / name).read_text().strip())
    return base


def freezer() -> str:
    """How bots are frozen here ("cgroup v2", "cgroup v1 freezer"), or "" where they cannot be."""
    base = v2_base()
    if base is not None and (base / "cgroup.freeze").exists():
        return "cgroup v2"
    return "cgroup v1 freezer" if v1_base("freezer") is not None else ""


def cpu_share() -> str:
    """How a bot's processes are made one scheduling entity here, or "" where they are not."""
    base = v2_base()
    if base is not None and "cpu" in (base / "cgroup.subtree_control").read_text().split():
        return "cgroup v2 cpu"
    return "cgroup v1 cpu" if v1_base("cpu") is not None else ""


def _remove_tree(base: Path) -> None:
    """Remove a base cgroup and its (empty) bot cgroups."""
    for child in base.glob(f"{BOT_PREFIX}*"):
        try:
            child.rmdir()
        except OSError:
            pass
    try:
        base.rmdir()
    except OSError:
        pass


def _remove_stale(parent: Path) -> None:
    """Remove the cgroups left by arena processes that died without cleaning up."""
    for base in parent.glob(f"{BASE_PREFIX}*"):
        try:
            os.kill(int(base.name.split("-", 1)[1]), 0)
        except ProcessLookupError:
            _remove_tree(base)
        except (ValueError, PermissionError):
            continue


def _write(path: Path, value: str) -> bool:
    try:
        path.write_text(value)
        return True
    except OSError as exc:
        log.debug("cannot write %s to %s: %s", value, path, exc)
        return False


def _read_key(path: Path, key: str) -> int:
    """The integer after `key ` in a flat-keyed cgroup file (0 when absent)."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        pass
    return 0


class BotCgroup:
    """The cgroups of one bot (one directory per hierarchy), created by the arena's user."""

    _counter = 0

    def __init__(self, v2: Path | None, v1: dict[str, Path], limits: CgroupLimits) -> None:
        self.v2 = v2
        self.v1 = v1
        self.limits = limits
        self.frozen = False
        self._freeze_fd = -1  # cgroup.freeze (v2) or freezer.state (v1), kept open: a ply writes it twice
        self._events_fd = -1  # v2 cgroup.events: says when a freeze has taken hold
        if v2 is not None and (v2 / "cgroup.freeze").exists():
            self._freeze_fd = _open(v2 / "cgroup.freeze", os.O_WRONLY)
            self._events_fd = _open(v2 / "cgroup.events", os.O_RDONLY)
        if self._freeze_fd < 0 and "freezer" in v1:
            self._freeze_fd = _open(v1["freezer"] / "freezer.state", os.O_WRONLY)


        # v2 pids: the ancestors' refusals so far, so that only those from the bot's time count.
        self._above_base = _ancestor_refusals(v2) if v2 is not None and "pids" not in v1 else 0

    @classmethod
    def create(cls, limits: CgroupLimits | None = None) -> BotCgroup | None:
        """Fresh cgroups with the limits applied, or None where no hierarchy is writable."""
        limits = limits or CgroupLimits()
        cls._counter += 1
        name = f"{BOT_PREFIX}{cls._counter}"
        v2 = None
        base = v2_base()
        if base is not None:
            try:
                (base / name).mkdir()
                v2 = base / name
            except OSError as exc:
                log.debug("cannot create cgroup %s: %s", base / name, exc)
        v1: dict[str, Path] = {}
        made: dict[str, Path] = {}  # co-mounted controllers (cpu,cpuacct) share one directory
        for controller in V1_CONTROLLERS:
            base = v1_base(controller)
            if base is None:
                continue
            real = os.path.realpath(base / name)
            if real in made:
                v1[controller] = made[real]
                continue
            try:
                (base / name).mkdir()
                v1[controller] = made[real] = base / name
            except OSError as exc:
                log.debug("cannot create cgroup %s: %s", base / name, exc)
        if limits.cpus:
            cpuset = v1_base("cpuset")
            if cpuset is not None:
                try:
                    (cpuset / name).mkdir()
                    v1["cpuset"] = cpuset / name
                except OSError as exc:
                    log.debug("cannot create cgroup %s: %s", cpuset / name, exc)
        if v2 is None and not v1:
            return None
        group = cls(v2, v1, limits)
        group._apply()
        return group

    def _apply(self) -> None:
        if self.limits.cpus:
            cores = ",".join(str(core) for core in self.limits.cpus)
            if "cpuset" in self.v1:
                cpuset = self.v1["cpuset"]
                _write(cpuset / "cpuset.mems", (cpuset.parent / "cpuset.mems").read_text().strip())
                _write(cpuset / "cpuset.cpus", cores)
            elif self.v2 is not None and (self.v2 / "cpuset.cpus").exists():
                _write(self.v2 / "cpuset.cpus", cores)
        if self.limits.processes is not None:
            if "pids" in self.v1:
                _write(self.v1["pids"] / "pids.max", str(self.limits.processes))
            elif self.v2 is not None and (self.v2 / "pids.max").exists():
                _write(self.v2 / "pids.max", str(self.limits.processes))
        if self.limits.memory_mb is not None:
            amount = str(self.limits.memory_mb * 2**20)
            if "memory" in self.v1:
                _write(self.v1["memory"] / "memory.limit_in_bytes", amount)
            elif self.v2 is not None and (self.v2 / "memory.max").exists():
                _write(self.v2 / "memory.max", amount)
                _write(self.v2 / "memory.swap.max", "0")

    @property
    def directories(self) -> list[Path]:
        """Every directory of this bot's cgroups (each once)."""
        unique = list(dict.fromkeys(self.v1.values()))
        return ([self.v2] if self.v2 is not None else []) + unique

    @property
    def freezable(self) -> bool:
        """True when every process of the bot can be frozen at once (cgroup v2 or the v1 freezer)."""
        return self._freeze_fd >= 0

    def freeze(self) -> None:
        """Stop every process of the bot, sessions and helpers included, until thaw()."""
        if self._freeze_fd >= 0 and not self.frozen:
            self.frozen = _pwrite(self._freeze_fd, b"FROZEN" if self._events_fd < 0 else b"1")

    def thaw(self) -> None:
        """Let the bot's processes run again."""
        if self._freeze_fd >= 0 and self.frozen:
            self.frozen = not _pwrite(self._freeze_fd, b"THAWED" if self._events_fd < 0 else b"0")

    def ever_ran(self) -> bool:
        """True once any process has run in the cgroup (its CPU time, or the most processes it held)."""
        if self.cpu_ms() > 0:
            return True
        return "pids" in self.v1 and _file_int(self.v1["pids"] / "pids.peak") > 0

    def is_frozen(self) -> bool:
        """True once a freeze has stopped every process of the cgroup (what the kernel reports)."""
        try:
            if self._events_fd >= 0:
                return b"frozen 1" in os.pread(self._events_fd, 256, 0)
            if "freezer" in self.v1:
                return (self.v1["freezer"] / "freezer.state").read_text().strip() == "FROZEN"
        except OSError:
            pass
        return False

    def procs_files(self) -> list[str]:
        """The cgroup.procs files a new bot process writes its pid into."""
        return [str(d / "cgroup.procs") for d in self.directories]

    def enforces(self) -> list[str]:
        """What is enforced here: "processes", "memory", "cpu" (accounting), "share" (one CPU weight), "freeze"."""
        found = []
        if "pids" in self.v1 or (self.v2 is not None and (self.v2 / "pids.max").exists()):
            found.append("processes")
        if "memory" in self.v1 or (self.v2 is not None and (self.v2 / "memory.max").exists()):
            found.append("memory")
        if "cpuacct" in self.v1 or self.v2 is not None:
            found.append("cpu")
        if "cpu" in self.v1 or (self.v2 is not None and (self.v2 / "cpu.weight").exists()):
            found.append("share")
        if self.freezable:
            found.append("freeze")
        return found

    def cpu_ms(self) -> float:
        """CPU time used by every process that ever ran in the cgroup, in milliseconds."""
        if self.v2 is not None:
            usec = _read_key(self.v2 / "cpu.stat", "usage_usec")
            if usec:
                return usec / 1000.0
        if "cpuacct" in self.v1:
            try:
                return int((self.v1["cpuacct"] / "cpuacct.usage").read_text()) / 1e6
            except (OSError, ValueError):
                pass
        return 0.0

    def pids(self) -> set[int]:
        """The processes now in the cgroup."""
        for directory in self.directories:
            try:
                return {int(p) for p in (directory / "cgroup.procs").read_text().split()}
            except (OSError, ValueError):
                continue
        return set()

    def fork_refusals(self) -> tuple[int, int]:
        """Forks of the bot refused so far: (by its own limit, by a limit above its cgroup: the machine's).

        A limit above (a container's pids limit, a systemd slice's TasksMax) refuses the bot's
        forks too, and the kernel counts them in the bot's cgroup alike: in v1 `pids.events`
        counts every refused fork of the cgroup's processes, whichever limit refused it. The
        bot's own limit did it only if its cgroup ever reached that limit (`pids.peak`). In v2
        `pids.events.local` counts only the refusals of this cgroup's own limit (Linux 6.13+,
        unless mounted with pids_localevents); those from above show in the ancestors' files.
        """
        if "pids" in self.v1:
            return _split_refusals(self.v1["pids"], _read_key(self.v1["pids"] / "pids.events", "max"))
        if self.v2 is None or not (self.v2 / "pids.max").exists():
            return 0, 0
        local = self.v2 / "pids.events.local"
        if local.exists() and not _v2_local_events():
            return _read_key(local, "max"), max(0, _ancestor_refusals(self.v2) - self._above_base)
        return _split_refusals(self.v2, _read_key(self.v2 / "pids.events", "max"))

    def limit_hit(self) -> str:
        """Which of the bot's own limits stopped a request of the bot ("" when none did)."""
        hits, _ = self.fork_refusals()
        if hits:
            return f"its process limit ({self.limits.processes} processes) refused {hits} fork(s)"
        if "memory" in self.v1:
            oom = _read_key(self.v1["memory"] / "memory.oom_control", "oom_kill")
            failed = oom or _file_int(self.v1["memory"] / "memory.failcnt")
        elif self.v2 is not None:
            failed = _read_key(self.v2 / "memory.events", "oom_kill")
        else:
            failed = 0
        if failed:
            return f"it reached its memory limit ({self.limits.memory_mb} MiB)"
        return ""

    def kill(self) -> None:
        """SIGKILL every process in the cgroup (v2: at once; v1: until it stays empty)."""
        self.thaw()  # a task frozen by the v1 freezer does not even die
        if self.v2 is not None and _write(self.v2 / "cgroup.kill", "1"):
            return
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:
            members = self.pids()
            if not members:
                return
            for pid in members:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            time.sleep(0.001)

    def remove(self) -> None:
        """Remove the (emptied) cgroup directories."""
        self.thaw()
        for fd in (self._freeze_fd, self._events_fd):
            if fd >= 0:
                os.close(fd)
        self._freeze_fd = self._events_fd = -1
        deadline = time.monotonic() + 1.0
        for directory in self.directories:
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    if time.monotonic() > deadline:
                        log.debug("cgroup %s not empty; left behind", directory)
                        break
                    self.kill()
                    time.sleep(0.005)


def _open(path: Path, flags: int) -> int:
    """An fd of a cgroup file, or -1 where it cannot be opened."""
    try:
        return os.open(path, flags | os.O_CLOEXEC)
    except OSError as exc:
        log.debug("cannot open %s: %s", path, exc)
        return -1


def _pwrite(fd: int, value: bytes) -> bool:
    try:
        os.pwrite(fd, value, 0)
        return True
    except OSError as exc:
        log.debug("cannot write %r to a cgroup file: %s", value, exc)
        return False


def _split_refusals(directory: Path, refused: int) -> tuple[int, int]:
    """(own, from above) of forks refused in a cgroup whose counter does not say which limit refused them."""
    if not refused:
        return 0, 0
    limit = _file_int(directory / "pids.max")  # "max" (no limit) reads as 0
    peak_file = directory / "pids.peak"  # the most it ever held; older kernels: only the count now
    peak = _file_int(peak_file if peak_file.exists() else directory / "pids.current")
    if limit and peak >= limit:
        return refused, 0
    return 0, refused


def _ancestor_refusals(directory: Path) -> int:
    """Forks refused by the limits of directory's v2 ancestors (their pids.events.local), in all."""
    total = 0
    for parent in directory.parents:
        if not (parent / "pids.events.local").exists():  # the root has no pids files: the top is reached
            break
        total += _read_key(parent / "pids.events.local", "max")
    return total


@cache
def _v2_local_events() -> bool:
    """True when cgroup2 is mounted with pids_localevents (its pids.events then count like v1's)."""
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            _, _, rest = line.partition(" - ")
            kind, _, options = (rest.split(" ") + ["", "", ""])[:3]
            if kind == "cgroup2" and "pids_localevents" in options.split(","):
                return True
    except OSError:
        pass
    return False


def _file_int(path: Path) -> int:
    try:
        return int(path.read_text())
    except (OSError, ValueError):
        return 0
