"""The upload's reader in the sandbox: checks an upload, or unpacks it into the build's folder, and says so in JSON.

Run by the server as a bot uid, behind the system-call filter, with a memory, time and
size limit of its own (arena.launch.build): `python -I -S -c BOOT check|unpack FILENAME
INTERFACES MAX_BYTES MAX_FILES MAX_UNPACKED`, the upload on standard input. It prints one JSON
line: the language, build command and run spec, or the error and its HTTP status. `unpack`
also writes the files into the working directory, each created anew (O_EXCL) and never
through a link (O_NOFOLLOW). Stdlib only, so that it starts in a few tens of milliseconds.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Collection
from dataclasses import dataclass

from arena.server.uploads.sources import Sources, SubmissionError, read_upload

MODES = ("check", "unpack")
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


@dataclass(frozen=True)
class UploadBounds:
    """The contest's upload limits, as the command line gives them."""

    max_bytes: int
    max_files: int
    max_unpacked_bytes: int


def arguments(mode: str, filename: str, interfaces: Collection[str], limits: UploadBounds) -> list[str]:
    """The command-line arguments of main() for an upload (interfaces: those the contest's game declares)."""
    return [mode, filename, ",".join(sorted(interfaces)) or "-", str(limits.max_bytes), str(limits.max_files),
            str(limits.max_unpacked_bytes)]


def write_files(sources: Sources, root: str) -> None:
    """Create the sources' files below root (folders 0755, files 0644 or 0755 when executable)."""
    top = os.open(root, _DIR_FLAGS)
    try:
        for path in sorted(sources.files):
            *folders, name = path.split("/")
            parent = os.dup(top)
            try:
                for folder in folders:
                    try:
                        os.mkdir(folder, 0o755, dir_fd=parent)
                    except FileExistsError:
                        pass
                    child = os.open(folder, _DIR_FLAGS, dir_fd=parent)
                    os.close(parent)
                    parent = child
                mode = 0o755 if path in sources.executable else 0o644
                fd = os.open(name, _FILE_FLAGS, mode, dir_fd=parent)
                try:
                    with os.fdopen(fd, "wb", closefd=False) as out:
                        out.write(sources.files[path])
                    os.fchmod(fd, mode)
                finally:
                    os.close(fd)
            finally:
                os.close(parent)
    finally:
        os.close(top)


def main(argv: list[str]) -> int:
    """Check (or unpack) the upload on stdin; one JSON line on stdout; 0 unless the arguments are wrong."""
    if len(argv) != 6 or argv[0] not in MODES:
        print("usage: check|unpack FILENAME INTERFACES MAX_BYTES MAX_FILES MAX_UNPACKED", file=sys.stderr)
        return 2
    mode, filename, interfaces = argv[0], argv[1], frozenset(argv[2].split(",")) - {"-"}
    limits = UploadBounds(*(int(number) for number in argv[3:]))
    data = sys.stdin.buffer.read(limits.max_bytes + 1)
    try:
        sources = read_upload(filename, data, limits, interfaces)
        if mode == "unpack":
            write_files(sources, ".")
    except SubmissionError as exc:
        answer: dict[str, object] = {"error": str(exc), "status": exc.status}
    except OSError as exc:  # the build's disk is full, say: the upload is still refused, with the reason
        answer = {"error": f"{filename}: cannot be unpacked ({exc.strerror})", "status": 413}
    else:
        answer = {"language": sources.language, "build": sources.build, "run": sources.run}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0
