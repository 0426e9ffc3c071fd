"""Pascal arrows modules (the 2001 contest's InitGame/turn units), compiled into stdio bots.

A module is a Turbo Pascal 7 unit that declares, exactly as the contest asked,

    type TPair = record x, y: integer end;
         TFileOfPairs = file of TPair;
    procedure InitGame(var f: TFileOfPairs; sec: longint);
    procedure turn(var d: integer; sec: longint);

It is compiled unchanged with Free Pascal in Turbo Pascal mode (`fpc -Mtp`: `integer` is
16-bit), together with two generated sources: a bridge unit (the only code that sees the
module's names, so nothing the module exports can shadow what the host uses) and a host
program that speaks the stdio protocol (JSON lines, protocol/SPEC.md section 10). For
each `init` the host writes the board as a binary `file of TPair` (`board.dat` in the
bot's working directory), opens it and calls InitGame with `sec` = time_left_ms; for each
`turn` it calls turn with `d` = the opponent's last direction (255 when the module makes
the first move) and answers with the `d` the module left (255 resigns). The contest's
"first player" is the seat that moves first, so pair 2 of the file is that seat's head.

Builds are cached by a hash of the module, the generated sources, the compiler version and
its flags. Each build runs in a private temporary directory that is renamed into place
when complete, so parallel tournament workers compiling the same module never see half a
build (the loser of the race just uses the winner's). Failures are not cached.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path

from arena.pascal_host import BRIDGE_SOURCE, HOST_SOURCE
from arena.process import LaunchError

log = logging.getLogger(__name__)

FPC_FLAGS = ("-Mtp", "-O2", "-Xs", "-XX")  # TP mode for the module; -O2/-Xs/-XX: fast and small
COMPILE_TIMEOUT_S = 120.0
CACHE_ENV = "ARENA_PASCAL_CACHE"  # overrides $XDG_CACHE_HOME/arena/pascal
HOST = "arenahost"
BRIDGE = "arenabridge"
STALE_BUILD_S = 3600.0  # leftover build directories of killed compiles are removed after this
# Units the host is linked with: a module of the same name could not be told apart.
RESERVED_UNITS = frozenset({HOST, BRIDGE, "system", "objpas", "baseunix", "unixtype", "ctypes", "si_prc"})
INTERFACE = "TPair, TFileOfPairs, InitGame(var f: TFileOfPairs; sec: longint), turn(var d: integer; sec: longint)"

_COMMENTS = re.compile(rb"\{[^}]*\}|\(\*.*?\*\)|//[^\n]*", re.DOTALL)
_UNIT_HEADER = re.compile(rb"\s*unit\s+([A-Za-z_][A-Za-z0-9_]*)\s*;", re.IGNORECASE)
_POSITIONED = re.compile(r"^(?P<file>[^\s(]+)\((?P<pos>\d+(?:,\d+)?)\) (?P<kind>Error|Fatal): (?P<text>.*)$")

# The bridge is compiled in TP mode like the module; it alone `uses` the module, and it
# qualifies the System routines it calls because a module may export its own `Close`.
def cache_root() -> Path:
    """Where compiled modules are kept: $ARENA_PASCAL_CACHE, else the user's cache directory."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arena" / "pascal"


def unit_name(source: bytes, filename: str = "module") -> str:
    """The name in the module's `unit NAME;` header; LaunchError when it is not a unit."""
    match = _UNIT_HEADER.match(_COMMENTS.sub(b" ", source.removeprefix(b"\xef\xbb\xbf")))
    if match is None:
        raise LaunchError(f"{filename}: not a Turbo Pascal unit (expected `unit NAME;` at the top)")
    name = match.group(1).decode("ascii").lower()
    if name in RESERVED_UNITS:
        raise LaunchError(f"{filename}: the unit name {name!r} is used by the arena's host; rename the unit")
    return name


def generated_sources(unit: str) -> dict[str, str]:
    """The bridge unit and host program for a module unit, by file name."""
    return {f"{BRIDGE}.pas": BRIDGE_SOURCE.replace("@UNIT@", unit), f"{HOST}.pas": HOST_SOURCE}


def find_fpc() -> str:
    """The Free Pascal compiler's path; LaunchError saying how to install it when missing."""
    fpc = shutil.which("fpc")
    if fpc is None:
        raise LaunchError("Free Pascal is not installed (fpc not found): apt-get install fp-compiler")
    return fpc


@lru_cache(maxsize=4)
def fpc_version(fpc: str) -> str:
    """The compiler's version string (part of the cache key)."""
    try:
        done = subprocess.run([fpc, "-iV"], check=False, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LaunchError(f"cannot run {fpc}: {exc}") from None
    return done.stdout.strip() or "unknown"


def build_key(source: bytes, unit: str, version: str) -> str:
    """The cache key of one module build."""
    digest = hashlib.sha256()
    for part in (b"arena-pascal-1", version.encode(), " ".join(FPC_FLAGS).encode(), unit.encode(),
                 *(text.encode() for text in generated_sources(unit).values()), source):
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:32]


def first_error(output: str, unit: str, filename: str) -> str:
    """The compiler's first error as one line, naming the module's own file."""
    fallback = ""
    for line in output.splitlines():
        line = line.strip()
        found = _POSITIONED.match(line)
        if found:
            where = Path(found["file"]).name.lower()
            if where == f"{unit}.pas":
                return f"{filename}({found['pos']}) {found['kind']}: {found['text']}"
            # An error in the generated code: the module's interface is not the contest's.
            return f"{filename}: does not match the contest interface ({INTERFACE}): {found['text']}"
        if not fallback and ("Error:" in line or "Fatal:" in line) and "Compilation aborted" not in line \
                and "returned an error exitcode" not in line:
            fallback = line
    return f"{filename}: {fallback or 'fpc failed without an error message'}"


def _sweep_stale_builds(root: Path) -> None:
    """Remove build directories left by compiles that were killed long ago."""
    now = time.time()
    for entry in root.glob(".build-*"):
        try:
            if now - entry.stat().st_mtime > STALE_BUILD_S:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def compile_module(source: Path) -> list[str]:
    """Compile a Turbo Pascal unit with its generated stdio host; return the command to run."""
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise LaunchError(f"cannot read Pascal module {source}: {exc.strerror}") from None
    unit = unit_name(data, source.name)
    fpc = find_fpc()
    root = cache_root()
    final = root / build_key(data, unit, fpc_version(fpc))
    program = final / HOST
    if program.is_file():
        return [str(program)]
    try:
        root.mkdir(parents=True, exist_ok=True)
        build = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    except OSError as exc:
        raise LaunchError(f"cannot create the Pascal build cache {root}: {exc.strerror}") from None
    try:
        (build / f"{unit}.pas").write_bytes(data)
        for name, text in generated_sources(unit).items():
            (build / name).write_text(text)
        (build / "units").mkdir()
        argv = [fpc, *FPC_FLAGS, f"-FU{build / 'units'}", f"-FE{build}", f"{HOST}.pas"]
        started = time.monotonic()
        try:
            done = subprocess.run(argv, check=False, cwd=build, capture_output=True, text=True, errors="replace",
                                  timeout=COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise LaunchError(f"{source.name}: fpc did not finish within {COMPILE_TIMEOUT_S:.0f} s") from None
        except OSError as exc:
            raise LaunchError(f"cannot run {fpc}: {exc.strerror}") from None
        (build / "compile.log").write_text(done.stdout + done.stderr)
        if done.returncode != 0 or not (build / HOST).is_file():
            raise LaunchError(first_error(done.stdout + done.stderr, unit, source.name))
        log.info("compiled %s in %.2f s into %s", source, time.monotonic() - started, final)
        if final.exists() and not program.is_file():  # an entry damaged by hand: replace it
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(build, final)
        except OSError:
            if not program.is_file():  # not a lost race: the cache is unusable
                raise LaunchError(f"cannot store the compiled module in {final}") from None
    finally:
        if build.exists():
            shutil.rmtree(build, ignore_errors=True)
    _sweep_stale_builds(root)
    return [str(program)]


def main(argv: list[str] | None = None) -> int:
    """`python -m arena.pascal unit.pas…`: compile modules, print each program or its error."""
    status = 0
    for name in argv if argv is not None else sys.argv[1:]:
        try:
            print(compile_module(Path(name))[0])
        except LaunchError as exc:
            print(exc, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
