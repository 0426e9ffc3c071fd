"""A built folder's way to the host: a stream of plain files, folders, packed in the sandbox, made anew by the host.

The collector (`pack`) runs in the build's sandbox, as a uid that is not the builder's,
once every process of the build is gone; it walks the folder without following anything
and refuses what is not a plain file or folder (links, devices, FIFOs, sockets). The host
(`receive`) reads the stream after the sandbox is empty and creates each entry itself,
inside a folder it has just made, with `openat` relative to its parent's descriptor,
`O_EXCL` and `O_NOFOLLOW`: nothing it writes can land outside, replace anything or follow a
link, whatever the stream says, and every name, count and size is checked before it is
used. The format is this module's own, so no archive library's quirks come into it:

    MAGIC, then records: b"D" PATH (a folder) | b"F" MODE PATH SIZE DATA (a file) | b"E" (the end)
    PATH: u16 length + UTF-8 "/"-separated parts; MODE: u8, 1 = executable; SIZE: u64; big-endian

Stdlib only: the collector starts in the sandbox without the arena's dependencies.
"""

from __future__ import annotations

import os
import re
import stat
import struct
import sys
from dataclasses import dataclass

MAGIC = b"ARENA-BUNDLE 1\n"
CHUNK = 256 * 1024
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs it
_CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class BundleError(ValueError):
    """A built folder that cannot be taken (a link, too many files, a malformed stream); one line."""


@dataclass(frozen=True)
class BundleLimits:
    """What one built folder may hold."""

    max_entries: int = 2000  # files and folders
    max_bytes: int = 64 * 2**20  # file contents in all
    max_path: int = 1024  # bytes of one path
    max_depth: int = 32
    max_name: int = 255


def check_name(name: str, limits: BundleLimits) -> None:
    """BundleError unless name is one plain part of a path."""
    if name in ("", ".", "..") or "/" in name or _CONTROL.search(name):
        raise BundleError(f"an unusable name {name[:60]!r}")
    try:
        size = len(name.encode("utf-8"))
    except UnicodeEncodeError:
        raise BundleError(f"a name that is not UTF-8 ({name[:60]!r})") from None
    if size > limits.max_name:
        raise BundleError(f"a name of more than {limits.max_name} bytes ({name[:40]!r}...)")


def _path_bytes(parts: list[str], limits: BundleLimits) -> bytes:
    encoded = "/".join(parts).encode("utf-8")
    if len(encoded) > limits.max_path or len(parts) > limits.max_depth:
        raise BundleError(f"{'/'.join(parts)[:80]!r} lies too deep or its path is too long")
    return struct.pack(">H", len(encoded)) + encoded


# --- in the sandbox ----------------------------------------------------------------------


class _Packer:
    def __init__(self, out: int, limits: BundleLimits) -> None:
        self.out = out
        self.limits = limits
        self.entries = 0
        self.bytes = 0

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self.out, view):]

    def count(self, size: int = 0) -> None:
        self.entries += 1
        self.bytes += size
        if self.entries > self.limits.max_entries:
            raise BundleError(f"more than {self.limits.max_entries} files and folders")
        if self.bytes > self.limits.max_bytes:
            raise BundleError(f"larger than {self.limits.max_bytes >> 20} MiB")

    def folder(self, fd: int, parts: list[str]) -> None:
        with os.scandir(fd) as listing:
            names = sorted(entry.name for entry in listing)
        for name in names:
            path = "/".join([*parts, name])
            check_name(name, self.limits)
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                self.count()
                self.write(b"D" + _path_bytes([*parts, name], self.limits))
                child = _open(name, _DIR_FLAGS, fd, path)
                try:
                    self.folder(child, [*parts, name])
                finally:
                    os.close(child)
            elif stat.S_ISREG(info.st_mode):
                self.file(fd, name, [*parts, name])
            else:
                what = "a symbolic link" if stat.S_ISLNK(info.st_mode) else "a device, FIFO or socket"
                raise BundleError(f"{path!r} is {what}; only plain files and folders are kept")

    def file(self, parent: int, name: str, parts: list[str]) -> None:
        fd = _open(name, _READ_FLAGS, parent, "/".join(parts))
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise BundleError(f"{'/'.join(parts)!r} changed while it was read")
            self.count(info.st_size)
            mode = 1 if info.st_mode & 0o111 else 0
            self.write(b"F" + bytes([mode]) + _path_bytes(parts, self.limits) + struct.pack(">Q", info.st_size))
            left = info.st_size
            while left:
                chunk = os.read(fd, min(CHUNK, left))
                if not chunk:
                    raise BundleError(f"{'/'.join(parts)!r} shrank while it was read")
                self.write(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)


def _open(name: str, flags: int, parent: int, path: str) -> int:
    try:
        return os.open(name, flags, dir_fd=parent)
    except PermissionError:
        raise BundleError(f"{path!r} is not readable by others (chmod o+rX it in the build)") from None


def pack(root: str, out: int, limits: BundleLimits) -> int:
    """Write root's files and folders to the descriptor out; the number of entries; BundleError for anything else."""
    packer = _Packer(out, limits)
    packer.write(MAGIC)
    top = os.open(root, _DIR_FLAGS)
    try:
        packer.folder(top, [])
    finally:
        os.close(top)
    packer.write(b"E")
    return packer.entries


def main(argv: list[str]) -> int:
    """`pack ROOT MAX_ENTRIES MAX_BYTES`: the bundle on stdout, or one line on stderr and status 1."""
    if len(argv) != 4 or argv[0] != "pack":
        print("usage: pack ROOT MAX_ENTRIES MAX_BYTES", file=sys.stderr)
        return 2
    limits = BundleLimits(max_entries=int(argv[2]), max_bytes=int(argv[3]))
    try:
        pack(argv[1], sys.stdout.fileno(), limits)
    except (BundleError, OSError) as exc:
        print(f"the built folder cannot be taken: {exc}", file=sys.stderr)
        return 1
    return 0


# --- on the host -------------------------------------------------------------------------


class _Reader:
    """Exact reads from a descriptor, bounded by the stream's size."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = b""

    def take(self, size: int) -> bytes:
        while len(self.buffer) < size:
            chunk = os.read(self.fd, CHUNK)
            if not chunk:
                raise BundleError("the stream ends in the middle of a record")
            self.buffer += chunk
        data, self.buffer = self.buffer[:size], self.buffer[size:]
        return data

    def copy(self, size: int, out: int) -> None:
        while size:
            if not self.buffer:
                self.buffer = os.read(self.fd, min(CHUNK, size))
                if not self.buffer:
                    raise BundleError("the stream ends in the middle of a file")
            piece, self.buffer = self.buffer[:size], self.buffer[size:]
            view = memoryview(piece)
            while view:
                view = view[os.write(out, view):]
            size -= len(piece)

    def at_end(self) -> bool:
        return not self.buffer and not os.read(self.fd, 1)


def _parts(reader: _Reader, limits: BundleLimits) -> list[str]:
    (length,) = struct.unpack(">H", reader.take(2))
    if length == 0 or length > limits.max_path:
        raise BundleError(f"a path of {length} bytes")
    try:
        parts = reader.take(length).decode("utf-8").split("/")
    except UnicodeDecodeError:
        raise BundleError("a path that is not UTF-8") from None
    if len(parts) > limits.max_depth:
        raise BundleError(f"a path more than {limits.max_depth} folders deep")
    for part in parts:
        check_name(part, limits)
    return parts


def _parent(root: int, folders: list[str]) -> int:
    """A new descriptor of a folder created by this receive (opened part by part, never through a link)."""
    fd = os.dup(root)
    try:
        for name in folders:
            child = os.open(name, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def receive(fd: int, dest: str, limits: BundleLimits) -> int:
    """Create the bundle read from fd as the new folder dest (its parent must exist); the number of entries.

    BundleError: the stream is refused (whatever was created so far stays for the caller to remove).
    """
    os.mkdir(dest, 0o700)
    root = os.open(dest, _DIR_FLAGS)
    reader = _Reader(fd)
    folders: set[tuple[str, ...]] = {()}
    taken: set[tuple[str, ...]] = set()
    entries = total = 0
    try:
        if reader.take(len(MAGIC)) != MAGIC:
            raise BundleError("not a bundle")
        while True:
            tag = reader.take(1)
            if tag == b"E":
                if not reader.at_end():
                    raise BundleError("data after the end of the bundle")
                break
            if tag not in (b"D", b"F"):
                raise BundleError(f"an unknown record {tag!r}")
            entries += 1
            if entries > limits.max_entries:
                raise BundleError(f"more than {limits.max_entries} files and folders")
            executable = reader.take(1) == b"\x01" if tag == b"F" else False
            parts = _parts(reader, limits)
            key = tuple(parts)
            if key in taken:
                raise BundleError(f"{'/'.join(parts)!r} appears twice")
            if key[:-1] not in folders:
                raise BundleError(f"{'/'.join(parts)!r} comes before its folder")
            taken.add(key)
            parent = _parent(root, parts[:-1])
            try:
                if tag == b"D":
                    os.mkdir(parts[-1], 0o755, dir_fd=parent)
                    folders.add(key)
                    continue
                (size,) = struct.unpack(">Q", reader.take(8))
                total += size
                if total > limits.max_bytes:
                    raise BundleError(f"larger than {limits.max_bytes >> 20} MiB")
                mode = 0o755 if executable else 0o644
                out = os.open(parts[-1], _CREATE_FLAGS, 0o600, dir_fd=parent)
                try:
                    reader.copy(size, out)
                    os.fchmod(out, mode)
                finally:
                    os.close(out)
            finally:
                os.close(parent)
        os.fchmod(root, 0o755)
    except (OSError, struct.error) as exc:
        raise BundleError(f"the stream cannot be taken: {exc}") from None
    finally:
        os.close(root)
    return entries
