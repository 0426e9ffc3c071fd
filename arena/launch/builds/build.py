"""Untrusted uploads in the sandbox: checked, unpacked, built and collected there, never by a privileged process.

Two ways in, both under bubblewrap, behind the system-call filter, in a cgroup with a
process and memory cap, with rlimits and a deadline:

- `run_contained`: one program of the arena's own (the upload's reader, say) as a bot uid,
  its input on stdin and its answer read from stdout up to a cap.
- `run_build`: a build. A supervisor (arena.launch.builds.buildbox) runs in the sandbox: the
  unpacker and the build command as one bot uid, then, once every process of the build is
  gone, the collector as another, writing the built folder (arena.launch.builds.bundle) to a file
  that no process of the build ever had. The host reads that file only after the sandbox's
  cgroup is empty, and creates the folder itself, entry by entry, without following anything.

A build that fills its disk fills only its tmpfs; one that forks without end meets the
cgroup's pids.max (and RLIMIT_NPROC of its own uid); one that runs too long is killed with
its cgroup at the deadline.
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass

from arena.launch.builds import bundle
from arena.launch.processes.cgroups import BotCgroup, CgroupLimits
from arena.launch.processes.process import Limits, MachineError
from arena.launch.sandbox import uids
from arena.launch.sandbox.sandbox import PROJECT_ROOT, WORK_DIR, ChainPlan, Isolation, Sandbox, drop_args, launch_chain

BUILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": WORK_DIR, "LANG": "C.UTF-8"}
LOG_CAP = 64 * 1024  # bytes of build output kept (the tail)
STATUS_CAP = 64 * 1024  # bytes of a supervisor's or a contained program's answer
EMPTY_S = 5.0  # how long the host waits for a build's cgroup to empty after killing it
# What the build's supervisor keeps as root in the sandbox: changing to the bot uids and killing.
SUPERVISOR_CAPS = ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL")
PYTHON_BOOT = "import sys; sys.path.insert(0, {root!r}); from {module} import main; sys.exit(main(sys.argv[1:]))"


@dataclass(frozen=True)
class BuildLimits:
    """What a build (or a contained program) may use."""

    timeout_s: float = 120.0
    disk_mb: int = 256  # its disk budget: sources, objects, the result and /tmp together
    memory_mb: int = 1024
    processes: int = 64
    output_mb: int = 64  # the built folder's files together
    output_files: int = 2000  # files and folders of the built folder


@dataclass(frozen=True)
class BuildRun:
    """What a build did."""

    returncode: int | None  # the build command's status; None: killed at the deadline, or it never ran
    log: str  # the tail of its output
    timed_out: bool = False
    too_big: bool = False  # the built folder exceeded output_mb or output_files
    problem: str = ""  # why it failed otherwise (the upload could not be unpacked, the folder was refused)
    entries: int = 0  # files and folders created

    @property
    def ok(self) -> bool:
        """True when the build succeeded and its folder was created."""
        return self.returncode == 0 and not self.timed_out and not self.too_big and not self.problem


@dataclass(frozen=True)
class ContainedRun:
    """What a contained program did."""

    returncode: int | None  # None: killed at the deadline
    output: bytes  # its standard output, up to STATUS_CAP
    log: str  # the tail of its standard error
    timed_out: bool = False
    limit: str = ""  # which limit of its cgroup stopped it, if one did
    cpu_ms: float | None = None  # the CPU time its processes used, where a cgroup counted it


def python_command(module: str, args: Sequence[str]) -> list[str]:
    """The command running `main(args)` of a stdlib-only arena module, isolated (-I -S) from the environment."""
    return [sys.executable, "-I", "-S", "-c", PYTHON_BOOT.format(root=str(PROJECT_ROOT), module=module), *args]


def _lease() -> uids.UidLease:
    try:
        return uids.acquire()
    except uids.UidPoolError as exc:
        raise MachineError(str(exc)) from None


def _rlimits(limits: BuildLimits, own_uid: bool, file_mb: int | None = None) -> list[str]:
    """prlimit and its options, or nothing where util-linux has no prlimit."""
    if not shutil.which("prlimit"):
        return []
    rlimits = Limits(address_space_mb=max(2048, limits.memory_mb * 2), file_size_mb=file_mb or limits.output_mb,
                     open_files=256, processes=limits.processes, memory_mb=limits.memory_mb)
    return ["prlimit", *rlimits.prlimit_args(own_uid=own_uid), "--"]


def _scratch(isolation: Isolation) -> str:
    """A temporary folder of the organiser's without a sandbox (--insecure), else ""."""
    return tempfile.mkdtemp(prefix="arena-build-") if isolation.mode == Sandbox.NONE else ""


def run_contained(argv: Sequence[str], stdin: bytes, isolation: Isolation, limits: BuildLimits) -> ContainedRun:
    """Run one program of the arena's on untrusted input, as a bot uid in the sandbox; its answer."""
    if isolation.mode == Sandbox.UID:
        raise MachineError("uploads are read in bubblewrap (or with no sandbox at all), not in uid mode")
    lease = _lease() if isolation.own_uid else None
    group = BotCgroup.create(CgroupLimits(processes=limits.processes, memory_mb=limits.memory_mb))
    scratch = _scratch(isolation)
    rlimits = _rlimits(limits, lease is not None)
    plan = ChainPlan(command=tuple(argv), isolation=isolation, workdir=scratch or WORK_DIR,
                     writable=(scratch,) if scratch else (), uid=lease.uid if lease is not None else None,
                     limit_args=tuple(rlimits[1:-1]), disk_mb=limits.disk_mb,
                     procs_files=tuple(group.procs_files()) if group is not None else ())
    try:
        with launch_chain(plan) as (chain, fds):
            process = subprocess.Popen(chain, cwd=scratch or "/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=dict(BUILD_ENV), start_new_session=True,
                                       pass_fds=fds)
        code, out, log, timed_out = _talk(process, stdin, limits.timeout_s, group)
        limit = group.limit_hit() if group is not None else ""
        return ContainedRun(code, out, log, timed_out, limit, group.cpu_ms() if group is not None else None)
    finally:
        _clean_up(group, [lease], scratch)


def run_build(upload: bytes, prepare: Sequence[str], command: str, dest: str, isolation: Isolation,
              limits: BuildLimits) -> BuildRun:
    """Unpack the upload with `prepare` (which prints one JSON line), run `sh -c command`, create the folder as dest."""
    if isolation.mode == Sandbox.UID:
        raise MachineError("builds need bubblewrap (or no sandbox at all); uid mode cannot give a private disk")
    with tempfile.TemporaryFile(prefix="arena-result-") as result:  # unnamed: only descriptors reach it
        status, log, timed_out = _run_supervised(upload, prepare, command, isolation, limits, result.fileno())
        if timed_out:
            return BuildRun(None, log, timed_out=True)
        return _collect(status, log, result.fileno(), dest, limits)


def _run_supervised(upload: bytes, prepare: Sequence[str], command: str, isolation: Isolation,
                    limits: BuildLimits, result: int) -> tuple[bytes, str, bool]:
    """The build's sandbox, run to its end and emptied: (its supervisor's line, the log, timed out)."""
    builder = _lease() if isolation.own_uid else None
    collector = _lease() if isolation.own_uid else None
    group = BotCgroup.create(CgroupLimits(processes=limits.processes, memory_mb=limits.memory_mb))
    scratch = _scratch(isolation)
    workdir = scratch or WORK_DIR
    own = builder is not None
    try:
        drop = drop_args(builder.uid) if builder is not None else []
        collect = [*(drop_args(collector.uid) if collector is not None else []),
                   *_rlimits(BuildLimits(processes=4, memory_mb=limits.memory_mb), own, file_mb=limits.output_mb + 1),
                   *python_command("arena.launch.builds.bundle", ["pack", workdir, str(limits.output_files),
                                                           str(limits.output_mb * 2**20)])]
        steps = {"prepare": [*drop, *_rlimits(limits, own), *prepare],
                 "command": [*drop, *_rlimits(limits, own), "sh", "-c", command], "collect": collect,
                 "result_fd": result, "pid_namespace": isolation.mode == Sandbox.BWRAP}
        plan = ChainPlan(command=tuple(python_command("arena.launch.builds.buildbox", [json.dumps(steps)])),
                         isolation=isolation, workdir=workdir, writable=(scratch,) if scratch else (),
                         disk_mb=limits.disk_mb, keep_caps=SUPERVISOR_CAPS,
                         procs_files=tuple(group.procs_files()) if group is not None else ())
        with launch_chain(plan) as (chain, fds):
            process = subprocess.Popen(chain, cwd=scratch or "/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=dict(BUILD_ENV), start_new_session=True,
                                       pass_fds=(*fds, result))
        _, status, log, timed_out = _talk(process, upload, limits.timeout_s, group)
        _empty(group)  # the result is read only once no process of the build exists
        return status, log, timed_out
    finally:
        _clean_up(group, [builder, collector], scratch)


def _collect(status: bytes, log: str, result: int, dest: str, limits: BuildLimits) -> BuildRun:
    """The build's verdict from its supervisor's line, and its folder created as dest when it succeeded."""
    try:
        report = json.loads(status.decode("utf-8").strip().splitlines()[-1])
        stage, code, message = str(report["stage"]), int(report["code"]), str(report["message"])
    except (ValueError, KeyError, IndexError, TypeError):
        return BuildRun(None, log, problem="the build's sandbox ended without a word (killed by a limit?)")
    if stage == "unpack":
        return BuildRun(None, log, problem=message or "the upload could not be unpacked")
    if stage == "build":
        return BuildRun(code, log)
    if stage == "stop":
        return BuildRun(code, log, problem=message)
    if stage == "collect":
        too_big = "more than" in message or "larger than" in message
        return BuildRun(0, log, too_big=too_big, problem="" if too_big else message)
    size = os.fstat(result).st_size
    if size > limits.output_mb * 2**20 + limits.output_files * 1100 + 64:
        return BuildRun(0, log, too_big=True)
    os.lseek(result, 0, os.SEEK_SET)
    bounds = bundle.BundleLimits(max_entries=limits.output_files, max_bytes=limits.output_mb * 2**20)
    try:
        entries = bundle.receive(result, dest, bounds)
    except bundle.BundleError as exc:
        shutil.rmtree(dest, ignore_errors=True)
        return BuildRun(0, log, problem=f"the built folder was refused: {exc}")
    return BuildRun(0, log, entries=entries)


def _empty(group: BotCgroup | None) -> None:
    """Kill whatever is left in the build's cgroup and wait until it holds no process; MachineError if it will not."""
    if group is None:
        return
    deadline = time.monotonic() + EMPTY_S
    while True:
        group.kill()
        if not group.pids():
            return
        if time.monotonic() > deadline:
            raise MachineError("the build's processes could not be stopped")
        time.sleep(0.005)


def _clean_up(group: BotCgroup | None, leases: list[uids.UidLease | None], scratch: str) -> None:
    if group is not None:
        group.kill()
        group.remove()
    for lease in leases:
        if lease is not None:
            uids.kill_uid(lease.uid)
            lease.release()
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


def _kill(process: subprocess.Popen[bytes], group: BotCgroup | None) -> None:
    if group is not None:
        group.kill()
    try:
        os.killpg(process.pid, 9)
    except (ProcessLookupError, PermissionError):
        pass


def _talk(process: subprocess.Popen[bytes], stdin: bytes, timeout_s: float,
          group: BotCgroup | None) -> tuple[int | None, bytes, str, bool]:
    """Feed stdin, read stdout (up to STATUS_CAP) and the log's tail until the deadline: (status, out, log, timeout)."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + timeout_s
    out = bytearray()
    log = bytearray()
    pending = memoryview(stdin)
    timed_out = False
    selector = selectors.DefaultSelector()
    os.set_blocking(process.stdin.fileno(), False)
    selector.register(process.stdin, selectors.EVENT_WRITE)
    selector.register(process.stdout, selectors.EVENT_READ)
    selector.register(process.stderr, selectors.EVENT_READ)
    open_pipes = 2
    try:
        while open_pipes:
            left = deadline - time.monotonic()
            if left <= 0:
                timed_out = True
                break
            for key, _ in selector.select(min(left, 1.0)):
                if key.fileobj is process.stdin:
                    try:
                        sent = os.write(process.stdin.fileno(), pending[:65536])
                    except OSError:  # it stopped reading: the rest is not needed
                        sent = len(pending)
                    pending = pending[sent:]
                    if not pending:
                        selector.unregister(process.stdin)
                        process.stdin.close()
                    continue
                chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
                if not chunk:
                    selector.unregister(key.fileobj)
                    open_pipes -= 1
                elif key.fileobj is process.stdout:
                    out += chunk[:max(0, STATUS_CAP - len(out))]
                else:
                    log += chunk
                    if len(log) > 2 * LOG_CAP:
                        del log[:-LOG_CAP]
    finally:
        selector.close()
        if not process.stdin.closed:
            process.stdin.close()
    if timed_out:
        _kill(process, group)
    try:
        code: int | None = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(process, group)
        process.wait()
        code, timed_out = None, True
    if timed_out:
        code = None
    process.stdout.close()
    process.stderr.close()
    return code, bytes(out), bytes(log[-LOG_CAP:]).decode("utf-8", "replace"), timed_out
