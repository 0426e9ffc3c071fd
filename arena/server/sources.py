"""What an entrant uploads, made safe: one source file or an archive with a manifest, checked member by member.

An archive may not escape its directory: absolute paths, `..`, links, devices and other
special files are refused, as are too many files or too many bytes unpacked. A single
top-level folder is promoted and `__MACOSX` litter is dropped. The result is a plain map
of relative paths to bytes (and an executable bit), turned into a tar for the sandboxed
build. The language of a single file comes from its extension, each with a documented
build command (docs/server.md).
"""

from __future__ import annotations

import io
import posixpath
import re
import shlex
import sys
import tarfile
import tomllib
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import protocol

from arena.server.config import UploadLimits

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
MANIFEST = "arena.toml"
MANIFEST_KEYS = ("run", "build", "protocol")


class SubmissionError(ValueError):
    """An upload that cannot be accepted; the message says what is wrong with it."""


@dataclass(frozen=True)
class Language:
    """How a single source file is built and run (`{file}` is its name, `{python}` the arena's Python)."""

    name: str
    build: str
    run: str  # a BOT spec relative to the built directory ({dir})
    games: tuple[str, ...] = ()  # only these games ((): any)


# A Node.js bot reads and writes JSON lines; this preload serves it over ZeroMQ in its own process.
ZMQ_LINES = shlex.quote(str(Path(protocol.__file__).resolve().parent / "node" / "zmq_lines.js"))
LANGUAGES: dict[str, Language] = {
    ".py": Language("python", "{python} -m py_compile {file}", "{dir}/{file}"),
    ".c": Language("c", "cc -O2 -std=c11 -o bot {file} -lzmq -lmsgpackc -lm", "exec:{dir}/bot"),
    ".cpp": Language("c++", "c++ -O2 -std=c++17 -o bot {file} -lzmq -lmsgpackc", "exec:{dir}/bot"),
    ".cc": Language("c++", "c++ -O2 -std=c++17 -o bot {file} -lzmq -lmsgpackc", "exec:{dir}/bot"),
    ".js": Language("javascript", "node --check {file}", f"exec:node --require {ZMQ_LINES} {{dir}}/{{file}}"),
    ".pas": Language("pascal", "test -s {file}", "pascal:{dir}/{file}", games=("arrows",)),
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

    def tar(self) -> bytes:
        """The files as an uncompressed tar (what the build's sandbox receives)."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as out:
            for name in sorted(self.files):
                data = self.files[name]
                info = tarfile.TarInfo(name)
                info.size = len(data)
                info.mode = 0o755 if name in self.executable else 0o644
                out.addfile(info, io.BytesIO(data))
        return buffer.getvalue()


def archive_kind(filename: str) -> str:
    """The archive suffix of a file name, or "" for a single source file."""
    lower = filename.lower()
    return next((suffix for suffix in ARCHIVES if lower.endswith(suffix)), "")


def read_upload(filename: str, data: bytes, limits: UploadLimits, game: str) -> Sources:
    """Check an upload and return its sources; SubmissionError names the first problem."""
    base = posixpath.basename(filename.replace("\\", "/"))
    if not NAME.fullmatch(base):
        raise SubmissionError(f"file name {filename!r}: use letters, digits, '.', '_' or '-'")
    if len(data) > limits.max_bytes:
        raise SubmissionError(f"{base}: {len(data)} bytes, over the limit of {limits.max_bytes}")
    if not data:
        raise SubmissionError(f"{base}: the file is empty")
    if archive_kind(base):
        return _archive(base, data, limits)
    suffix = posixpath.splitext(base)[1].lower()
    language = LANGUAGES.get(suffix)
    if language is None:
        known = ", ".join(sorted(LANGUAGES)) + ", or an archive (" + ", ".join(ARCHIVES) + ") with arena.toml"
        raise SubmissionError(f"{base}: unknown kind of file (known: {known})")
    if language.games and game not in language.games:
        raise SubmissionError(f"{base}: {language.name} modules play {', '.join(language.games)} only, not {game}")
    build = language.build.format(file=shlex.quote(base), python=shlex.quote(sys.executable))
    return Sources(language.name, build, language.run.replace("{file}", base), {base: data})


def _members(name: str, data: bytes) -> list[tuple[str, str, bytes | None, bool]]:
    """(path, kind, content, executable) of every member: kind file, dir or the reason it is refused."""
    found: list[tuple[str, str, bytes | None, bool]] = []
    if name.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                for info in archive.infolist():
                    mode = info.external_attr >> 16
                    kind = "dir" if info.is_dir() else "file"
                    if mode and (mode & 0o170000) not in (0, 0o100000, 0o040000):
                        kind = "a link or special file"
                    found.append((info.filename, kind, None if kind != "file" else archive.read(info),
                                  bool(mode & 0o111)))
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, NotImplementedError) as exc:
            raise SubmissionError(f"{name}: not a readable zip archive ({exc})") from None
        return found
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
            for member in archive:
                if member.isdir():
                    found.append((member.name, "dir", None, False))
                elif member.isreg():
                    extracted = archive.extractfile(member)
                    content = extracted.read() if extracted is not None else b""
                    found.append((member.name, "file", content, bool(member.mode & 0o111)))
                else:
                    found.append((member.name, "a link or special file", None, False))
    except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
        raise SubmissionError(f"{name}: not a readable tar archive ({exc})") from None
    return found


def _archive(name: str, data: bytes, limits: UploadLimits) -> Sources:
    files: dict[str, bytes] = {}
    executable: set[str] = set()
    total = 0
    for raw, kind, content, is_exec in _members_capped(name, data, limits):
        path = raw.replace("\\", "/")
        parts = [p for p in path.split("/") if p not in ("", ".")]
        if path.startswith("/") or ".." in parts or re.match(r"^[A-Za-z]:", path):
            raise SubmissionError(f"{name}: {raw!r} points outside the archive's directory")
        if parts and (parts[0] == "__MACOSX" or parts[-1] == ".DS_Store"):
            continue
        if kind not in ("file", "dir"):
            raise SubmissionError(f"{name}: {raw!r} is {kind}; only plain files and folders are accepted")
        if kind == "dir" or not parts:
            continue
        assert content is not None
        total += len(content)
        if total > limits.max_unpacked_bytes:
            raise SubmissionError(f"{name}: more than {limits.max_unpacked_bytes} bytes unpacked")
        files["/".join(parts)] = content
        if is_exec:
            executable.add("/".join(parts))
    tops = {path.split("/")[0] for path in files}
    if len(tops) == 1 and all("/" in path for path in files):  # one folder holding everything: promote it
        top = tops.pop() + "/"
        files = {path[len(top):]: content for path, content in files.items()}
        executable = {path[len(top):] for path in executable}
    if MANIFEST not in files:
        raise SubmissionError(f"{name}: no {MANIFEST} at the top of the archive (it names the run command)")
    run, build, protocol = _manifest(name, files[MANIFEST])
    prefix = "stdio:" if protocol == "stdio" else "exec:"
    return Sources("archive", build, f"{prefix}sh -c {shlex.quote('cd {dir} && exec ' + run)}", files, executable)


def _members_capped(name: str, data: bytes, limits: UploadLimits) -> list[tuple[str, str, bytes | None, bool]]:
    """The members, refusing an archive with too many before reading them all."""
    if name.lower().endswith(".zip"):
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                infos = archive.infolist()
                if len(infos) > limits.max_files:
                    raise SubmissionError(f"{name}: {len(infos)} entries, over the limit of {limits.max_files}")
                declared = sum(info.file_size for info in infos)
                if declared > limits.max_unpacked_bytes:
                    raise SubmissionError(f"{name}: {declared} bytes unpacked, over the limit of "
                                          f"{limits.max_unpacked_bytes}")
        except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError) as exc:
            raise SubmissionError(f"{name}: not a readable zip archive ({exc})") from None
    else:
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:*") as archive:
                count = size = 0
                for member in archive:
                    count += 1
                    size += max(0, member.size)
                    if count > limits.max_files:
                        raise SubmissionError(f"{name}: more than {limits.max_files} entries")
                    if size > limits.max_unpacked_bytes:
                        raise SubmissionError(f"{name}: more than {limits.max_unpacked_bytes} bytes unpacked")
        except (tarfile.TarError, EOFError, OSError, ValueError) as exc:
            raise SubmissionError(f"{name}: not a readable tar archive ({exc})") from None
    return _members(name, data)


def _manifest(name: str, data: bytes) -> tuple[str, str, str]:
    """(run, build, protocol) of an arena.toml."""
    where = f"{name}: {MANIFEST}"
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SubmissionError(f"{where}: invalid TOML ({exc})") from None
    for key in table:
        if key not in MANIFEST_KEYS:
            raise SubmissionError(f"{where}: unknown key {key!r} (known: {', '.join(MANIFEST_KEYS)})")
    run = table.get("run")
    if not isinstance(run, str) or not run.strip():
        raise SubmissionError(f"{where}: run: missing (the command that starts the bot, e.g. \"./bot\")")
    build = table.get("build", "")
    if not isinstance(build, str):
        raise SubmissionError(f"{where}: build: must be a string (a shell command)")
    protocol = table.get("protocol", "zeromq")
    if protocol not in ("zeromq", "stdio"):
        raise SubmissionError(f"{where}: protocol: {protocol!r} is not zeromq or stdio")
    return run.strip(), build.strip(), protocol


def extract_built(tar: bytes, directory: str, limits: UploadLimits) -> None:
    """Unpack a build's result into directory with tarfile's data filter (no links out, no devices)."""
    count = size = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(tar), mode="r:") as archive:
            for member in archive:
                count += 1
                size += max(0, member.size)
                if count > 10 * limits.max_files or size > 4 * limits.max_unpacked_bytes + 256 * 2**20:
                    raise SubmissionError("the build produced too many files or bytes")
            archive.extractall(directory, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise SubmissionError(f"the build's result could not be unpacked: {exc}") from None
