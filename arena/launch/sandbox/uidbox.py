"""The file system of a bot in `uid` mode: scratch places of its own, the machine read-only, its own /proc.

`python -I -S uidbox.py [--size BYTES] --work DIR --owner UID [--keep PATH]... [--writable PATH]...
[--mask FD:DEST]... -- PROGRAM ARGV...` runs as root in the namespaces util-linux `unshare`
made for the bot (`--mount --pid`: its mounts are private; its children are in the new pid
namespace). It forks the namespace's first process, which

1. makes every mount of the machine read-only, recursively (mount_setattr): the bot writes
   nowhere another bot could read, not even the world-writable places beyond the three
   scratch ones (`/run/lock`, say);
2. mounts a /proc of its pid namespace (no other process in it) and binds the neutral
   stand-ins of arena.launch.sandbox.procmask, read from descriptors, over the machine-wide files;
   hides /sys (other bots' cgroup files are readable there) under an empty read-only tmpfs;
3. mounts one tmpfs of the disk budget and shows folders of it at `/tmp`, `/var/tmp` and
   `/dev/shm`, the bot's working directory among them (or bound over its path elsewhere);
4. binds back, at their own paths, what the bot needs that lay under those places (its ipc
   socket, the arena's Python or project): read-only, but writable folders (a build's) and
   the socket stay writable;

then execs the rest of the chain (filterexec.py, setpriv, prlimit, the bot), which stays
process 1 of its namespace. This process waits outside the namespace, as bwrap's does, and
ends the way the bot ended; the bot dies with it. The places bwrap builds in `bwrap` mode
(arena.launch.sandbox.sandbox), with the kernel's calls only. Stdlib only and started with `-I -S`,
like filterexec.py.
"""

from __future__ import annotations

import ctypes
import os
import signal
import stat
import struct
import sys

BOX = "/tmp"  # where the budget's tmpfs is mounted first; its folder "tmp" is then shown there
PLACES = {"/tmp": "tmp", "/var/tmp": "var-tmp", "/dev/shm": "shm"}  # as bwrap's BUDGET_LINKS
MASKS = f"{BOX}/proc-masks"  # hidden with the box's root once /tmp shows its folder
EXIT_LAUNCH_FAILED = 127
PR_SET_PDEATHSIG = 1
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MOUNT_ATTR_RDONLY = 0x1
AT_FDCWD, AT_RECURSIVE = -100, 0x8000
SYS_MOUNT_SETATTR = 442  # the same number on every architecture (Linux 5.12)
LIBC = ctypes.CDLL(None, use_errno=True)


class BoxError(Exception):
    """A step of the box failed (the message says which)."""


def _fail(why: str) -> None:
    print(f"arena: cannot build the bot's file system: {why}", file=sys.stderr, flush=True)
    os._exit(EXIT_LAUNCH_FAILED)


def _bytes(text: str | None) -> bytes | None:
    return text.encode() if text is not None else None


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    if LIBC.mount(_bytes(source), _bytes(target), _bytes(fstype), ctypes.c_ulong(flags), _bytes(data)) != 0:
        raise BoxError(f"mount {fstype or source} on {target}: {os.strerror(ctypes.get_errno())}")


def _read_only(path: str, read_only: bool = True, recursive: bool = False) -> None:
    """Set (or clear) the read-only attribute of the mount at path, and of those below it if recursive."""
    attr = struct.pack("=QQQQ", MOUNT_ATTR_RDONLY if read_only else 0, 0 if read_only else MOUNT_ATTR_RDONLY, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    flags = AT_RECURSIVE if recursive else 0
    if LIBC.syscall(SYS_MOUNT_SETATTR, AT_FDCWD, path.encode(), flags, buffer, len(attr)) != 0:
        raise BoxError(f"mount_setattr on {path}: {os.strerror(ctypes.get_errno())}")


def in_box(path: str) -> str:
    """Where path is made in the box before /tmp shows its folder ("" when outside the scratch places)."""
    for place, name in PLACES.items():
        if path == place or path.startswith(place + "/"):
            return f"{BOX}/{name}{path[len(place):]}"
    return ""


def _folders(path: str) -> None:
    """path's missing parents, 0755 (root's: the bot passes, it cannot change them)."""
    missing = []
    parent = os.path.dirname(path)
    while not os.path.exists(parent):
        missing.append(parent)
        parent = os.path.dirname(parent)
    for folder in reversed(missing):
        os.mkdir(folder)
        os.chmod(folder, 0o755)


def _bind_back(fd: int, dest: str, writable: bool) -> None:
    """Bind what fd (O_PATH) names at dest, an empty stand-in made first; read-only unless writable."""
    if not os.path.exists(dest):
        _folders(dest)
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            os.mkdir(dest)
        else:
            os.close(os.open(dest, os.O_WRONLY | os.O_CREAT, 0o600))
    _mount(f"/proc/self/fd/{fd}", dest, None, MS_BIND | MS_REC)
    _read_only(dest, read_only=not writable, recursive=True)


def _masks(masks: list[tuple[int, str]]) -> None:
    """Each mask's content (read from its descriptor) bound read-only over its /proc file."""
    os.mkdir(MASKS, 0o700)
    for number, (fd, dest) in enumerate(masks):
        data = b""
        while chunk := os.read(fd, 65536):
            data += chunk
        os.close(fd)
        if not os.path.exists(dest):
            continue
        copy = f"{MASKS}/{number}"
        with open(copy, "wb") as f:
            f.write(data)
        os.chmod(copy, 0o444)
        _mount(copy, dest, None, MS_BIND)
        _mount(None, dest, None, MS_BIND | MS_REMOUNT | MS_RDONLY)


def _work(work: str, owner: int, writable: list[str]) -> None:
    """The working directory: a folder of the box, at its own path (bound there when it lies elsewhere)."""
    if work in writable:
        return
    inside = in_box(work) or f"{BOX}/work"
    _folders(inside)
    os.mkdir(inside, 0o700)
    os.chown(inside, owner, owner)
    if not in_box(work):
        _mount(inside, work, None, MS_BIND)


def build(size: int | None, work: str, owner: int, keep: list[str], writable: list[str],
          masks: list[tuple[int, str]]) -> None:
    """Steps 1 to 4 of the module's description, in this process's (new) mount namespace."""
    held = [(os.open(path, os.O_PATH | os.O_CLOEXEC), path, path in writable)
            for path in sorted(set(keep) | set(writable)) if os.path.exists(path)]
    _read_only("/", recursive=True)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    # Every bot's cgroup files (its processes, memory, CPU time) are world-readable in /sys: none
    # is shown, as bwrap shows no /sys.
    _mount("arena-no-sys", "/sys", "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=0555")
    _mount("arena-box", BOX, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=0755{f',size={size}' if size else ''}")
    for name in PLACES.values():
        os.mkdir(f"{BOX}/{name}")
        os.chmod(f"{BOX}/{name}", 0o1777)
    _masks(masks)
    for fd, path, rw in held:
        inside = in_box(path)
        # A scratch place itself (a script's folder /tmp on Python's path, say) stays the bot's own.
        if (inside or rw) and path not in PLACES:
            _bind_back(fd, inside or path, rw)
        os.close(fd)
    _work(work, owner, writable)
    for place, name in PLACES.items():
        if place != BOX and os.path.isdir(place) and not os.path.islink(place):
            _mount(f"{BOX}/{name}", place, None, MS_BIND | MS_REC)
    _mount(f"{BOX}/{PLACES[BOX]}", BOX, None, MS_BIND | MS_REC)  # last: the box's root is hidden from now on
    os.chdir(work)


def _parse(argv: list[str]) -> tuple[dict[str, list[str]], list[str]]:
    options: dict[str, list[str]] = {"--size": [], "--work": [], "--owner": [], "--keep": [], "--writable": [],
                                     "--mask": []}
    while argv and argv[0] != "--":
        if argv[0] not in options or len(argv) < 2:
            _fail(f"usage: uidbox.py [--size BYTES] --work DIR --owner UID [--keep PATH]... [--writable PATH]... "
                  f"[--mask FD:DEST]... -- PROGRAM ARGV... (not {argv[0]!r})")
        options[argv[0]].append(argv[1])
        argv = argv[2:]
    if len(argv) < 2 or len(options["--work"]) != 1 or len(options["--owner"]) != 1:
        _fail("usage: uidbox.py [--size BYTES] --work DIR --owner UID ... -- PROGRAM ARGV...")
    return options, argv[1:]


def _environment_as_given() -> dict[bytes, bytes]:
    """The environment this process was exec'd with (Python's C-locale coercion adds LC_CTYPE to its own)."""
    with open("/proc/self/environ", "rb") as f:
        block = f.read()
    return dict(item.split(b"=", 1) for item in block.split(b"\0") if b"=" in item)


def _mirror(status: int) -> None:
    """End this process the way the bot ended (SIGKILL and SIGSTOP cannot be given a default action)."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):
            signal.signal(sig, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # only reached for signals whose default action is not to die
    os._exit(os.waitstatus_to_exitcode(status))


def _first_process(options: dict[str, list[str]], program: list[str], environment: dict[bytes, bytes],
                   alive: int) -> None:
    """The pid namespace's first process: build the box, exec the program; never returns.

    Its parent lies outside its pid namespace (getppid() says 0): whether the parent died
    before the death signal was set, the end of file on alive (a pipe it holds open) tells.
    """
    if LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        _fail(f"prctl: {os.strerror(ctypes.get_errno())}")
    try:
        if os.read(alive, 1) == b"":
            os._exit(EXIT_LAUNCH_FAILED)  # the parent is gone: nobody waits for the bot
    except BlockingIOError:
        pass
    os.close(alive)
    masks = [(int(fd), dest) for fd, _, dest in (item.partition(":") for item in options["--mask"])]
    try:
        build(int(options["--size"][0]) if options["--size"] else None, options["--work"][0],
              int(options["--owner"][0]), options["--keep"], options["--writable"], masks)
    except (BoxError, OSError) as exc:
        _fail(str(exc))
    try:
        os.execvpe(program[0], program, environment)
    except OSError as exc:
        _fail(f"cannot start {program[0]}: {exc.strerror}")


def main(argv: list[str]) -> None:
    """Fork the namespace's first process (the box, then the program after `--`) and wait for it; never returns."""
    options, program = _parse(argv)
    environment = _environment_as_given()
    alive, holder = os.pipe()
    os.set_blocking(alive, False)
    try:
        child = os.fork()
    except OSError as exc:
        _fail(f"fork: {exc.strerror}")
    if child == 0:
        os.close(holder)
        _first_process(options, program, environment, alive)
    os.close(alive)
    for fd in (0, 1, 2):  # the pipes are the bot's: a stdio bot's end of file must be its own
        os.close(fd)
    _, status = os.waitpid(child, 0)
    _mirror(status)


if __name__ == "__main__":
    main(sys.argv[1:])
