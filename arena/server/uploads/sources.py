"""What an entrant uploads, read: one source file or an archive with a manifest, checked member by member.

An archive may not escape its directory: absolute paths, `..`, links, devices and other
special files are refused, as are too many files or too many bytes unpacked, and every
header and decompressed byte is bounded while it streams (arena.launch.archive, never
Python's tarfile). A single top-level folder is promoted and `__MACOSX` litter is dropped.
The language of a single file comes from its extension, each with a documented build
command (docs/server.md). This module only reads: the server runs it in the sandbox, as a
bot uid with limits of its own (arena.server.uploads.unpack), and never on the host.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
import shlex
import sys
import tomllib
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from arena.launch.builds.archive import ArchiveError, ArchiveLimits, Member, read_archive

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MANIFEST = "arena.toml"
MANIFEST_KEYS = ("run", "build", "protocol")
MANIFEST_BYTES = 64 * 1024
COMMAND_CHARS = 4096  # of `run` and of `build`


class SubmissionError(ValueError):
    """An upload that cannot be accepted; the message says what is wrong with it, status the HTTP answer."""

    def __init__(self, message: str, status: int = 422) -> None:
        super().__init__(message)
        self.status = status  # 413: over a limit; 422: not acceptable; 503: the server could not check it now


class Limits(Protocol):
    """What read_upload needs of the contest's upload limits (arena.server.state.config.UploadLimits)."""

    @property
    def max_bytes(self) -> int:
        """The uploaded file's size."""

    @property
    def max_files(self) -> int:
        """An archive's entries."""

    @property
    def max_unpacked_bytes(self) -> int:
        """An archive's files together, unpacked."""


@dataclass(frozen=True)
class Language:
    """How a single source file is built and run (`{file}` is its name, `{python}` the arena's Python)."""

    name: str
    build: str
    run: str  # a BOT spec relative to the built directory ({dir})
    interface: str = ""  # only games whose folder has this module (pascal: the contest's module interface)
    support: tuple[tuple[str, str], ...] = ()  # (name, source): files of the arena the server adds to the built folder


# A Node.js bot reads and writes JSON lines; this preload serves it over ZeroMQ in its own process.
# Found without importing the SDK: the intake's sandbox runs this module without site-packages.
# The server puts a copy in the version's own folder (SHIM), so that its command names no path
# of this installation and the contest's directory can move to another machine.
_SDK = importlib.util.find_spec("protocol")
ZMQ_LINES = (Path(_SDK.origin if _SDK and _SDK.origin else "protocol/__init__.py").resolve().parent
             / "node" / "zmq_lines.js")
SHIM = ".arena-zmq_lines.js"  # no upload can be named so: names start with a letter or digit
LANGUAGES: dict[str, Language] = {
    ".py": Language("python", "{python} -m py_compile {file}", "{dir}/{file}"),
    ".c": Language("c", "cc -O2 -std=c11 -o bot {file} -lzmq -lmsgpackc -lm", "exec:{dir}/bot"),
    ".cpp": Language("c++", "c++ -O2 -std=c++17 -o bot {file} -lzmq -lmsgpackc", "exec:{dir}/bot"),
    ".cc": Language("c++", "c++ -O2 -std=c++17 -o bot {file} -lzmq -lmsgpackc", "exec:{dir}/bot"),
    ".js": Language("javascript", "node --check {file}", f"exec:node --require {{dir}}/{SHIM} {{dir}}/{{file}}",
                    support=((SHIM, str(ZMQ_LINES)),)),
    ".pas": Language("pascal", "test -s {file}", "pascal:{dir}/{file}", interface="pascal"),
}
ARCHIVES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".tar.bz2")


@dataclass
class Sources:
    """An upload, checked: its files and how to build and run it."""

    language: str
    build: str  # a shell command run in the directory ("" : nothing to build)
    run: str  # a BOT spec with {dir} for the built directory
    files: dict[str, bytes] = field(default_factory=dict)
    executable: set[str] = field(default_factory=set)


def archive_kind(filename: str) -> str:
    """The archive suffix of a file name, or "" for a single source file."""
    lower = filename.lower()
    return next((suffix for suffix in ARCHIVES if lower.endswith(suffix)), "")


def upload_name(filename: str) -> str:
    """The name an upload is kept under (the last part of what was sent); SubmissionError unless it is a plain name."""
    base = posixpath.basename(filename.replace("\\", "/"))
    if not NAME.fullmatch(base):
        raise SubmissionError(f"file name {filename[:120]!r}: use letters, digits, '.', '_' or '-'")
    return base


def read_upload(filename: str, data: bytes, limits: Limits, interfaces: Collection[str]) -> Sources:
    """Check an upload and return its sources; SubmissionError names the first problem.

    interfaces: the module interfaces the contest's game declares (its folder's pascal.py: "pascal").
    """
    base = upload_name(filename)
    if len(data) > limits.max_bytes:
        raise SubmissionError(f"{base}: {len(data)} bytes, over the limit of {limits.max_bytes}", 413)
    if not data:
        raise SubmissionError(f"{base}: the file is empty")
    if archive_kind(base):
        return _archive(base, data, limits)
    suffix = posixpath.splitext(base)[1].lower()
    language = LANGUAGES.get(suffix)
    if language is None:
        known = ", ".join(sorted(LANGUAGES)) + ", or an archive (" + ", ".join(ARCHIVES) + ") with arena.toml"
        raise SubmissionError(f"{base}: unknown kind of file (known: {known})")
    if language.interface and language.interface not in interfaces:
        raise SubmissionError(f"{base}: {language.name} modules play only games with a {language.name} interface "
                              f"({language.interface}.py in the game's folder); this contest's game has none")
    build = language.build.format(file=shlex.quote(base), python=shlex.quote(sys.executable))
    return Sources(language.name, build, language.run.replace("{file}", base), {base: data})


def _archive(name: str, data: bytes, limits: Limits) -> Sources:
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    folders: set[str] = set()
    bounds = ArchiveLimits(max_files=limits.max_files, max_bytes=limits.max_unpacked_bytes)
    try:
        for member in read_archive(data, name.lower().endswith(".zip"), bounds):
            _take(name, member, files, executable, folders)
    except ArchiveError as exc:
        raise SubmissionError(f"{name}: {exc}", 413 if exc.too_large else 422) from None
    tops = {path.split("/")[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):  # one folder holding everything: promote it
        top = tops.pop() + "/"
        files = {path[len(top):]: content for path, content in files.items()}
        executable = {path[len(top):] for path in executable}
    if MANIFEST not in files:
        raise SubmissionError(f"{name}: no {MANIFEST} at the top of the archive (it names the run command)")
    run, build, protocol = parse_manifest(name, files[MANIFEST])
    prefix = "stdio:" if protocol == "stdio" else "exec:"
    # The folder is passed as $0 rather than written into the script: the launcher shows it to
    # the bot at a neutral path (/bot) and rewrites the words of the command that name it.
    script = shlex.quote('cd "$0" && exec ' + run)
    return Sources("archive", build, f"{prefix}sh -c {script} {{dir}}", files, executable)


def _take(name: str, member: Member, files: dict[str, bytes], executable: set[str], folders: set[str]) -> None:
    """Add one member to what the archive holds; SubmissionError for a refused one."""
    parts = member.parts
    if parts and (parts[0] == "__MACOSX" or parts[-1] == ".DS_Store"):
        return
    if member.kind == "special":
        raise SubmissionError(f"{name}: {member.raw!r} is {member.detail}, a link or special file; only plain "
                              "files and folders are accepted")
    path = "/".join(parts)
    for depth in range(1, len(parts)):  # its folders may not be files, nor it a folder
        if "/".join(parts[:depth]) in files:
            raise SubmissionError(f"{name}: {member.raw!r} lies inside a file of the same archive")
    if member.kind == "dir" or not parts:
        if path in files:
            raise SubmissionError(f"{name}: {member.raw!r} is both a file and a folder")
        folders.add(path)
        return
    if path in files or path in folders:
        raise SubmissionError(f"{name}: {member.raw!r} appears twice")
    folders.update("/".join(parts[:depth]) for depth in range(1, len(parts)))
    files[path] = member.content
    if member.executable:
        executable.add(path)


def parse_manifest(name: str, data: bytes) -> tuple[str, str, str]:
    """(run, build, protocol) of an archive's arena.toml; SubmissionError names the first problem."""
    where = f"{name}: {MANIFEST}"
    if len(data) > MANIFEST_BYTES:
        raise SubmissionError(f"{where}: {len(data)} bytes, over the limit of {MANIFEST_BYTES}", 413)
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SubmissionError(f"{where}: invalid TOML ({exc})") from None
    except RecursionError:  # tomllib recurses once per nested array or table
        raise SubmissionError(f"{where}: invalid TOML (nested too deeply)") from None
    for key in table:
        if key not in MANIFEST_KEYS:
            raise SubmissionError(f"{where}: unknown key {key!r} (known: {', '.join(MANIFEST_KEYS)})")
    run = table.get("run")
    if not isinstance(run, str) or not run.strip():
        raise SubmissionError(f"{where}: run: missing (the command that starts the bot, e.g. \"./bot\")")
    build = table.get("build", "")
    if not isinstance(build, str):
        raise SubmissionError(f"{where}: build: must be a string (a shell command)")
    for key, value in (("run", run), ("build", build)):
        if len(value) > COMMAND_CHARS or "\0" in value:
            raise SubmissionError(f"{where}: {key}: at most {COMMAND_CHARS} characters and no NUL")
    protocol = table.get("protocol", "zeromq")
    if protocol not in ("zeromq", "stdio"):
        raise SubmissionError(f"{where}: protocol: {protocol!r} is not zeromq or stdio")
    return run.strip(), build.strip(), protocol
