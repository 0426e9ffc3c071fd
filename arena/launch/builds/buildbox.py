"""The build's supervisor, in its sandbox: unpack and build as builder, stop every build process, collect as other uid.

Run by arena.launch.builds.build as the first program in the build's bubblewrap sandbox (as root
there when the server is root, with only the capabilities to change uids and to kill;
behind the system-call filter). The host's build command never holds the result's
descriptor, and no process of the builder's uid exists any more when the collector starts:

1. the upload, on standard input, goes to the unpacker (`prepare`), run as the builder's uid;
2. the build command runs as the builder's uid, its output on the log (standard error);
3. every other process of the sandbox is killed (`kill(-1)` in its own pid namespace) until
   none is left but this one and bubblewrap's init;
4. the collector (arena.launch.builds.bundle), as another uid, writes the folder to the result's
   descriptor, a file of the host's that no other process of the sandbox ever had.

This process is not dumpable, so no process of its uid can read or write its memory or open
its descriptors through /proc. It says how it went in one JSON line on standard output:
{"stage": "unpack" | "build" | "stop" | "collect" | "done", "code": N, "message": "..."}.
Stdlib only.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
MESSAGE_BYTES = 4096
STOP_S = 5.0


def _prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(option, value, 0, 0, 0)


def _report(stage: str, code: int = 0, message: str = "") -> int:
    sys.stdout.write(json.dumps({"stage": stage, "code": code, "message": message[:MESSAGE_BYTES]}) + "\n")
    sys.stdout.flush()
    return 0


def _reap() -> None:
    """Collect every exited child (orphans of the build come here: this process is their subreaper)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _others() -> list[int]:
    """The processes of this pid namespace still alive, but this one and its init."""
    me = os.getpid()
    alive = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, me):
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as status:
                state = status.read().rpartition(b")")[2].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            alive.append(int(name))
    return alive


def stop_everything(pid_namespace: bool, group: int | None) -> bool:
    """Kill every process but this one (in its own pid namespace), or the build's process group without one."""
    if not pid_namespace:  # --insecure: no namespace of its own, so only the build's session
        if group is not None:
            try:
                os.killpg(group, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        _reap()
        return True
    deadline = time.monotonic() + STOP_S
    while True:
        try:
            os.kill(-1, signal.SIGKILL)  # every process of the namespace but init and this one
        except ProcessLookupError:
            pass
        _reap()
        if not _others():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)


def _json_line(data: bytes) -> dict[str, Any]:
    try:
        answer = json.loads(data.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {}
    return answer if isinstance(answer, dict) else {}


def main(argv: list[str]) -> int:
    """Run the build the JSON in argv[0] describes: prepare, command, collect (argv lists), result_fd, pid_namespace."""
    _prctl(PR_SET_DUMPABLE, 0)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    plan = json.loads(argv[0])
    result_fd = int(plan["result_fd"])
    unpack = subprocess.run(plan["prepare"], stdin=sys.stdin.fileno(), stdout=subprocess.PIPE, stderr=2,
                            close_fds=True, start_new_session=True, check=False)
    answer = _json_line(unpack.stdout[-MESSAGE_BYTES:])
    if unpack.returncode != 0 or not answer or "error" in answer:
        stop_everything(plan["pid_namespace"], None)
        return _report("unpack", unpack.returncode, str(answer.get("error", "the upload could not be unpacked")))
    with open(os.devnull, "rb") as nothing:
        build = subprocess.Popen(plan["command"], stdin=nothing, stdout=2, stderr=2, close_fds=True,
                                 start_new_session=True)
        code = build.wait()
    if not stop_everything(plan["pid_namespace"], build.pid):
        return _report("stop", code, "processes of the build could not be stopped")
    if code != 0:
        return _report("build", code)
    collect = subprocess.run(plan["collect"], stdin=subprocess.DEVNULL, stdout=result_fd, stderr=subprocess.PIPE,
                             close_fds=True, start_new_session=True, check=False)
    os.close(result_fd)
    if collect.returncode != 0:
        message = collect.stderr[-MESSAGE_BYTES:].decode("utf-8", "replace").strip()
        return _report("collect", collect.returncode, message or f"the collector ended with {collect.returncode}")
    return _report("done")
