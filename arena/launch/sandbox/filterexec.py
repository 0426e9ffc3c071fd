"""Load the system-call filter, then exec the rest of a bot's launch chain (`uid` mode).

`python -I -S filterexec.py FD -- PROGRAM ARGV...` reads a classic-BPF program (struct
sock_filter array, arena.launch.sandbox.seccomp) from FD until its end, closes FD, sets
no_new_privs, installs the filter with prctl(PR_SET_SECCOMP) and execs PROGRAM, which
inherits it for good. It runs as root between `unshare` and `setpriv`, the place bubblewrap
loads the same filter in `bwrap` mode. Stdlib only and started with `-I -S`, like launcher.py.
"""

from __future__ import annotations

import ctypes
import os
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
EXIT_LAUNCH_FAILED = 127


class SockFprog(ctypes.Structure):
    """struct sock_fprog: the program's length in instructions and its address."""

    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _fail(why: str) -> None:
    print(f"arena: cannot load the system-call filter: {why}", file=sys.stderr, flush=True)
    os._exit(EXIT_LAUNCH_FAILED)


def _environment_as_given() -> dict[bytes, bytes]:
    """The environment this process was exec'd with (Python's C-locale coercion adds LC_CTYPE to its own)."""
    with open("/proc/self/environ", "rb") as f:
        block = f.read()
    return dict(item.split(b"=", 1) for item in block.split(b"\0") if b"=" in item)


def main(argv: list[str]) -> None:
    """Install the filter read from argv[0] and exec argv[2:]; never returns."""
    if len(argv) < 3 or argv[1] != "--" or not argv[0].isdigit():
        _fail("usage: filterexec.py FD -- PROGRAM ARGV...")
    fd = int(argv[0])
    data = b""
    while chunk := os.read(fd, 65536):
        data += chunk
    os.close(fd)
    if not data or len(data) % 8:
        _fail(f"{len(data)} bytes is no program")
    code = ctypes.create_string_buffer(data, len(data))
    program = SockFprog(len(data) // 8, ctypes.cast(code, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    one, zero = ctypes.c_ulong(1), ctypes.c_ulong(0)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, one, zero, zero, zero) != 0:
        _fail(f"no_new_privs: {os.strerror(ctypes.get_errno())}")
    if libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(program), zero, zero) != 0:
        _fail(os.strerror(ctypes.get_errno()))
    environment = _environment_as_given()
    try:
        os.execvpe(argv[2], argv[2:], environment)
    except OSError as exc:
        _fail(f"cannot start {argv[2]}: {exc.strerror}")


if __name__ == "__main__":
    main(sys.argv[1:])
