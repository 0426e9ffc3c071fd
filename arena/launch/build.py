"""Building untrusted source in the sandbox: files in as a tar stream, the built directory out as one.

Nothing of the host is writable during a build. The sources arrive on stdin, are unpacked
into a private tmpfs of bounded size inside bubblewrap, the build command runs there (its
stdout joined to its log on stderr), and the whole directory leaves as a tar on stdout,
read by the caller up to a cap. A build that fills its disk fills only its tmpfs; one that
forks without end meets the cgroup's pids.max (and RLIMIT_NPROC of its own uid); one that
runs too long is killed with its cgroup at the deadline.
"""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass

from arena.launch import uids
from arena.launch.cgroups import BotCgroup, CgroupLimits
from arena.launch.process import Limits, MachineError
from arena.launch.sandbox import WORK_DIR, ChainPlan, Isolation, Sandbox, launch_chain

BUILD_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": WORK_DIR, "LANG": "C.UTF-8"}
LOG_CAP = 64 * 1024  # bytes of build output kept (the tail)
# Unpack the sources, run the build with its stdout on the log, then send the directory back.
SCRIPT = 'tar -xf - || exit 97; exec 0</dev/null; sh -c "$1" 1>&2 || exit $?; exec tar -cf - .'


@dataclass(frozen=True)
class BuildLimits:
    """What a build may use."""

    timeout_s: float = 120.0
    disk_mb: int = 256  # its disk budget: sources, objects, the result and /tmp together
    memory_mb: int = 1024
    processes: int = 64
    output_mb: int = 64  # the built directory as a tar


@dataclass(frozen=True)
class BuildRun:
    """What a build did."""

    returncode: int | None  # None: killed at the deadline or for its output
    tar: bytes  # the built directory (empty when the build failed)
    log: str  # the tail of its output
    timed_out: bool = False
    too_big: bool = False  # its result exceeded output_mb

    @property
    def ok(self) -> bool:
        """True when the build succeeded and sent its directory back."""
        return self.returncode == 0 and not self.timed_out and not self.too_big


def _lease() -> uids.UidLease:
    try:
        return uids.acquire()
    except uids.UidPoolError as exc:
        raise MachineError(str(exc)) from None


def run_build(command: str, sources_tar: bytes, isolation: Isolation, limits: BuildLimits) -> BuildRun:
    """Run `sh -c command` on the sources in the sandbox; the built directory as a tar and the log."""
    if isolation.mode == Sandbox.UID:
        raise MachineError("builds need bubblewrap (or no sandbox at all); uid mode cannot give a private disk")
    lease = _lease() if isolation.own_uid else None
    group = BotCgroup.create(CgroupLimits(processes=limits.processes, memory_mb=limits.memory_mb))
    rlimits = Limits(address_space_mb=max(2048, limits.memory_mb * 2), file_size_mb=limits.output_mb,
                     open_files=256, processes=limits.processes, memory_mb=limits.memory_mb)
    limit_args = rlimits.prlimit_args(own_uid=lease is not None) if shutil.which("prlimit") else []
    workdir = WORK_DIR
    scratch = ""
    if isolation.mode == Sandbox.NONE:  # --insecure: a temporary directory of the organiser's
        scratch = tempfile.mkdtemp(prefix="arena-build-")
        workdir = scratch
    plan = ChainPlan(command=("sh", "-c", SCRIPT, "sh", command), isolation=isolation, workdir=workdir,
                     writable=(scratch,) if scratch else (), uid=lease.uid if lease is not None else None,
                     limit_args=tuple(limit_args), disk_mb=limits.disk_mb,
                     procs_files=tuple(group.procs_files()) if group is not None else ())
    try:
        with launch_chain(plan) as (argv, fds):
            process = subprocess.Popen(argv, cwd=scratch or "/", stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=dict(BUILD_ENV), start_new_session=True,
                                       pass_fds=fds)
        return _talk(process, sources_tar, limits, group)
    finally:
        if group is not None:
            group.kill()
            group.remove()
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


def _talk(process: subprocess.Popen[bytes], sources: bytes, limits: BuildLimits,
          group: BotCgroup | None) -> BuildRun:
    """Feed the sources, read both pipes with caps, stop at the deadline."""
    assert process.stdin is not None and process.stdout is not None and process.stderr is not None
    deadline = time.monotonic() + limits.timeout_s
    cap = limits.output_mb * 2**20
    out = bytearray()
    log = bytearray()
    pending = memoryview(sources)
    timed_out = too_big = False
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
                    except (BrokenPipeError, OSError):
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
                    out += chunk
                    if len(out) > cap:
                        too_big = True
                        open_pipes = 0
                        break
                else:
                    log += chunk
                    if len(log) > 2 * LOG_CAP:
                        del log[:-LOG_CAP]
    finally:
        selector.close()
        if not process.stdin.closed:
            process.stdin.close()
    if timed_out or too_big:
        _kill(process, group)
    try:
        code: int | None = process.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        _kill(process, group)
        process.wait()
        code, timed_out = None, True
    if timed_out or too_big:
        code = None
    process.stdout.close()
    process.stderr.close()
    text = bytes(log[-LOG_CAP:]).decode("utf-8", "replace")
    return BuildRun(code, bytes(out) if code == 0 else b"", text, timed_out, too_big)
