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

The compiler reads whatever a module names, so a module is checked first: directives that
read the environment (`{$I %HOME%}`) or files outside the module's directory, and those
that link, load or search other files, are refused. Include files from the module's own
directory are copied into the build. The compiler then runs in the bot sandbox: its own
uid, namespaces, cgroup and rlimits, an environment of nothing but PATH, stdin from
/dev/null, seeing only the build directory and the system's toolchain.

Builds are cached by a hash of the module, its include files, the generated sources, the
compiler version and its flags. Each build runs in a private temporary directory that is
renamed into place when complete, so parallel tournament workers compiling the same module
never see half a build (the loser of the race just uses the winner's). Failures are not
cached.
"""

from __future__ import annotations

import hashlib
import logging
import os
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Collection, Mapping, Sequence
from functools import lru_cache
from pathlib import Path, PurePosixPath

from arena.launch.pascal.pascal_host import BRIDGE_SOURCE, LIBRARY_SOURCE
from arena.launch.processes.cgroups import BotCgroup, CgroupLimits
from arena.launch.processes.process import LaunchError, Limits, MachineError
from arena.launch.sandbox import uids
from arena.launch.sandbox.sandbox import (
    ChainPlan,
    Isolation,
    Sandbox,
    launch_chain,
    resolve_sandbox,
    unreachable,
)
from arena.launch.specs.pascal_source import (
    MAX_DIRECTIVE,
    STATIC_DATA_LIMIT,
    ObjectFileError,
    directive_at,
    directive_end,
    scan,
    static_data_size,
)

log = logging.getLogger(__name__)

FPC_FLAGS = ("-Mtp", "-O2", "-Xs", "-XX")  # TP mode for the module; -O2/-Xs/-XX: fast and small
COMPILE_TIMEOUT_S = 120.0
COMPILE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin"}  # nothing of the organiser's environment
COMPILE_LIMITS = Limits(address_space_mb=2048, processes=64)
COMPILE_CGROUP = CgroupLimits(processes=64, memory_mb=1024)
CACHE_ENV = "ARENA_PASCAL_CACHE"  # overrides $XDG_CACHE_HOME/arena/pascal
HOST = "arenamodule"  # the generated library: fpc writes it as libarenamodule.so
LIBRARY = f"lib{HOST}.so"
BRIDGE = "arenabridge"
STALE_BUILD_S = 3600.0  # leftover build directories of killed compiles are removed after this
TMP_PREFIX = "arena-pascal-"  # builds outside the cache (uid mode, cache closed to other uids)
# Units the host is linked with: a module of the same name could not be told apart.
RESERVED_UNITS = frozenset({HOST, BRIDGE, "system", "objpas", "baseunix", "unixtype", "ctypes", "si_prc", "si_dll"})
INTERFACE = "TPair, TFileOfPairs, InitGame(var f: TFileOfPairs; sec: longint), turn(var d: integer; sec: longint)"

# {$I %NAME%} names fpc 3.2 answers itself; every other name is read from the environment.
FPC_BUILTINS = frozenset({"DATE", "DATEYEAR", "DATEMONTH", "DATEDAY", "TIME", "TIMEHOUR", "TIMEMINUTE",
                          "TIMESECOND", "FILE", "LINE", "LINENUM", "CURRENTROUTINE", "FPCVERSION", "FPCDATE",
                          "FPCTARGET", "FPCTARGETCPU", "FPCTARGETOS"})
INCLUDE_DIRECTIVES = frozenset({"I", "INCLUDE"})  # {$I+}/{$I-} (I/O checks) are switches
SWITCH_OR_FILE = frozenset({"L", "R"})  # {$L+}/{$R+} are switches; {$L name}/{$R name} load files
FILE_DIRECTIVES = frozenset({"LINK", "LINKLIB", "LINKFRAMEWORK", "RESOURCE", "INCLUDEPATH", "UNITPATH",
                             "OBJECTPATH", "LIBRARYPATH", "FRAMEWORKPATH"})
MACRO_DIRECTIVES = frozenset({"DEFINE", "DEFINEC"})  # with `:=` a macro, whose text fpc rescans
MAX_INCLUDES = 256
MAX_INCLUDE_NAMES = 1024  # distinct names one module's include directives may look up (each costs ~24 stats)

_SPACE = re.compile(rb"\s*")
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT_CLOSERS = ((b"{", b"}"), (b"(*", b"*)"), (b"//", b"\n"))
_POSITIONED = re.compile(r"^(?P<file>[^\s(]+)\((?P<pos>\d+(?:,\d+)?)\) (?P<kind>Error|Fatal): (?P<text>.*)$")


# The bridge is compiled in TP mode like the module; it alone `uses` the module, and it
# qualifies the System routines it calls because a module may export its own `Close`.
def cache_root() -> Path:
    """Where compiled modules are kept: $ARENA_PASCAL_CACHE, else the user's cache directory."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "arena" / "pascal"


def _skip_blanks(source: bytes, pos: int) -> int | None:
    """The offset of the first byte from pos on that is neither white space nor in a comment.

    None when a comment is never closed. Each comment is looked at once, so a source of many
    unclosed openers costs no more than reading it.
    """
    while True:
        pos = _SPACE.match(source, pos).end()  # type: ignore[union-attr] - \s* always matches
        for opener, closer in _COMMENT_CLOSERS:
            if source.startswith(opener, pos):
                end = source.find(closer, pos + len(opener))
                if end < 0:
                    return len(source) if closer == b"\n" else None
                pos = end + len(closer)
                break
        else:
            return pos


def unit_name(source: bytes, filename: str = "module") -> str:
    """The name in the module's `unit NAME;` header; LaunchError when it is not a unit."""
    source = source.removeprefix(b"\xef\xbb\xbf")
    name = None
    pos = _skip_blanks(source, 0)
    keyword = _WORD.match(source, pos) if pos is not None else None
    if keyword is not None and keyword.group().lower() == b"unit":
        pos = _skip_blanks(source, keyword.end())
        word = _WORD.match(source, pos) if pos is not None and pos > keyword.end() else None
        if word is not None and (pos := _skip_blanks(source, word.end())) is not None and source.startswith(b";", pos):
            name = word.group().decode("ascii").lower()
    if name is None:
        raise LaunchError(f"{filename}: not a Turbo Pascal unit (expected `unit NAME;` at the top)")
    if name in RESERVED_UNITS:
        raise LaunchError(f"{filename}: the unit name {name!r} is used by the arena's host; rename the unit")
    return name


def generated_sources(unit: str) -> dict[str, str]:
    """The bridge unit and the library source for a module unit, by file name."""
    return {f"{BRIDGE}.pas": BRIDGE_SOURCE.replace("@UNIT@", unit), f"{HOST}.pas": LIBRARY_SOURCE}


# --- directives a module may not use --------------------------------------------------------


def _judge(name: str, argument: str, shown: str) -> tuple[str, str]:
    """(why the directive is refused, or "") and (the file it includes, or "")."""
    if name in INCLUDE_DIRECTIVES and not (name == "I" and argument in ("+", "-")):
        target = argument
        if len(target) >= 2 and target[0] == target[-1] and target[0] in "'\"":
            target = target[1:-1]  # fpc strips the quotes first: {$I '%HOME%'} reads HOME too
        if not target.startswith("%"):
            return "", target
        variable = target[1:]
        variable = variable.removesuffix("%")  # fpc: the closing % is optional
        if variable.upper() in FPC_BUILTINS:
            return "", ""
        return f"include directive {shown} reads the environment; refused", ""
    if name in SWITCH_OR_FILE and argument not in ("+", "-"):
        return f"{shown} links or loads a file the arena does not compile; refused", ""
    if name in FILE_DIRECTIVES:
        return f"{shown} names files or search paths outside the module; refused", ""
    if name in MACRO_DIRECTIVES and ":=" in argument:
        return f"{shown} defines a macro, whose text could hide directives; refused", ""
    return "", ""


def _locate(name: str, here: str, top: Path, reserved: Collection[str]) -> tuple[str, str]:
    """Where fpc would find an include, relative to the module's directory ("" when nowhere),
    and what is wrong with it: "" (nothing), "outside" (the module's directory) or "reserved".

    fpc looks in the including file's directory, then in its working directory (the build's
    top, a copy of the module's directory), trying the name as written, in lower and in upper
    case, and without an extension also with .inc, .pp and .pas.
    """
    name = name.replace("\\", "/")  # fpc turns DOS separators into Unix ones
    if posixpath.isabs(name):
        return "", "outside"
    first = posixpath.normpath(posixpath.join(here, name))
    if first == ".." or first.startswith("../"):
        return "", "outside"
    names = [name] if posixpath.splitext(posixpath.basename(name))[1] else [
        name + ext for ext in ("", ".inc", ".pp", ".pas")]
    candidates = [posixpath.normpath(posixpath.join(base, variant)) for candidate in names
                  for base in dict.fromkeys((here, "."))
                  for variant in dict.fromkeys((candidate, candidate.lower(), candidate.upper()))]
    candidates = [rel for rel in candidates if rel != ".." and not rel.startswith("../")]  # above the build: nothing
    if any(rel.split("/")[0].lower() in reserved for rel in candidates):
        return "", "reserved"  # fpc would find the arena's own file in the build
    root = str(top)
    inside = root if root.endswith(os.sep) else root + os.sep
    for rel in candidates:
        path = os.path.join(root, rel)
        if os.path.isfile(path):  # False for unreadable folders and symlink loops: fpc finds nothing there either
            real = os.path.realpath(path)  # a symlink may point out of the directory
            return rel, "" if real.startswith(inside) else "outside"
    return "", ""


def _check_file(shown: str, here: str, content: bytes, top: Path, reserved: set[str], found: dict[str, bytes],
                looked: dict[tuple[str, str], tuple[str, str]], included: bool) -> list[tuple[str, str, bytes]]:
    """Refuse what one source file may not do; add its new include files to found and return them.

    looked keeps where each include name was found (or not) from each folder: a name written
    many times is looked up once.
    """
    text = content.decode("latin-1")  # byte for byte: fpc reads 8-bit text

    def where(offset: int) -> str:  # counted only for a refusal: once per file, not per directive
        return f"{shown}({text.count(chr(10), 0, offset) + 1})"

    scanned = scan(text)
    new: list[tuple[str, str, bytes]] = []
    for offset in scanned.directives:
        if directive_end(text, offset) is None:
            raise LaunchError(f"{where(offset)}: a directive runs on for more than {MAX_DIRECTIVE} characters "
                              "without its closing brace; refused")
        written, parts = directive_at(text, offset)
        for name, argument in parts:
            problem, include = _judge(name, argument, written)
            if problem:
                raise LaunchError(f"{where(offset)}: {problem}")
            if not include:
                continue
            if include.startswith("*"):
                raise LaunchError(f"{where(offset)}: {written}: include names with * are not supported; refused")
            located = looked.get((include, here))
            if located is None:
                if len(looked) >= MAX_INCLUDE_NAMES:
                    raise LaunchError(f"{where(offset)}: more than {MAX_INCLUDE_NAMES} include names; refused")
                located = looked[include, here] = _locate(include, here, top, reserved)
            rel, problem = located
            if problem == "outside":
                raise LaunchError(f"{where(offset)}: {written} reads a file outside the module's directory; refused")
            if problem:
                raise LaunchError(f"{where(offset)}: {written} names a file of the arena's own build; refused")
            if not rel or rel in found:
                continue
            if len(found) >= MAX_INCLUDES:
                raise LaunchError(f"{where(offset)}: more than {MAX_INCLUDES} include files; refused")
            try:
                found[rel] = (top / rel).read_bytes()
            except OSError as exc:
                raise LaunchError(f"{where(offset)}: cannot read {rel}: {exc.strerror}") from None
            new.append((rel, posixpath.dirname(rel) or ".", found[rel]))
    in_uses = False
    words = scanned.words
    for i, token in enumerate(words):
        in_uses = token == "uses" or (in_uses and token != ";")
        if in_uses and token == "in" and i + 1 < len(words) and words[i + 1] == "'":
            raise LaunchError(f"{where(scanned.offsets[i])}: `uses … in '…'` reads a unit from a named file; refused")
    if included and scanned.open_comment:
        raise LaunchError(f"{shown}: ends inside a comment, which fpc would carry on into the file including it; "
                          "refused")
    return new


def module_includes(source: Path, data: bytes, unit: str) -> dict[str, bytes]:
    """The files a module includes from its own directory (relative path → bytes).

    LaunchError, one line naming the file and line, for a directive that reads the
    environment or a file outside the module's directory, links or loads other files, sets
    search paths or defines a macro, and for `uses NAME in 'file'`.
    """
    top = source.absolute().parent.resolve()
    reserved = {f"{unit}.pas", f"{HOST}.pas", f"{BRIDGE}.pas", LIBRARY, "units", "compile.log"}
    found: dict[str, bytes] = {}
    looked: dict[tuple[str, str], tuple[str, str]] = {}
    pending = _check_file(source.name, ".", data, top, reserved, found, looked, included=False)
    while pending:
        shown, here, content = pending.pop()
        pending += _check_file(shown, here, content, top, reserved, found, looked, included=True)
    return found


# --- the compiler ----------------------------------------------------------------------------


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
        done = subprocess.run([fpc, "-iV"], check=False, capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL, env=dict(COMPILE_ENV))
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise LaunchError(f"cannot run {fpc}: {exc}") from None
    return done.stdout.strip() or "unknown"


def build_key(source: bytes, unit: str, version: str, includes: Mapping[str, bytes] | None = None) -> str:
    """The cache key of one module build (its include files count: editing one rebuilds)."""
    digest = hashlib.sha256()
    extra = [part for rel, content in sorted((includes or {}).items()) for part in (rel.encode(), content)]
    for part in (b"arena-pascal-3", version.encode(), " ".join(FPC_FLAGS).encode(), unit.encode(),
                 *(text.encode() for text in generated_sources(unit).values()), source, *extra):
        digest.update(len(part).to_bytes(8, "little") + part)
    return digest.hexdigest()[:32]


def first_error(output: str, unit: str, filename: str, includes: Collection[str] = ()) -> str:
    """The compiler's first error as one line, naming the module's own file (or its include file)."""
    own = {PurePosixPath(rel).name.lower(): rel for rel in includes}
    fallback = ""
    for line in output.splitlines():
        line = line.strip()
        found = _POSITIONED.match(line)
        if found:
            where = Path(found["file"]).name.lower()
            if where == f"{unit}.pas":
                return f"{filename}({found['pos']}) {found['kind']}: {found['text']}"
            if where in own:
                return f"{own[where]}({found['pos']}) {found['kind']}: {found['text']}"
            # An error in the generated code: the module's interface is not the contest's.
            return f"{filename}: does not match the contest interface ({INTERFACE}): {found['text']}"
        if not fallback and ("Error:" in line or "Fatal:" in line) and "Compilation aborted" not in line \
                and "returned an error exitcode" not in line:
            fallback = line
    return f"{filename}: {fallback or 'fpc failed without an error message'}"


def _chown_tree(top: Path, uid: int, gid: int) -> None:
    """Give a directory and everything in it to uid:gid, never following a symlink."""
    paths = [str(top)]
    for folder, dirs, files in os.walk(top):
        paths += [os.path.join(folder, name) for name in dirs + files]
    for path in paths:
        try:
            os.lchown(path, uid, gid)
        except FileNotFoundError:
            continue


def _lease() -> uids.UidLease:
    """A uid of the pool, waiting a little while all are in use; MachineError when none frees up."""
    for attempt in range(5):
        try:
            return uids.acquire()
        except uids.UidPoolError as exc:
            if attempt == 4:
                raise MachineError(str(exc)) from None
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("not reached")


def run_compiler(command: Sequence[str], build: Path, isolation: Isolation) -> subprocess.CompletedProcess[str]:
    """Run a compiler command in the build directory inside the sandbox of isolation.

    With a uid of its own the build directory is lent to that uid and taken back afterwards,
    so the cache never stays writable by a bot uid. The command runs in its own cgroup, under
    rlimits, with stdin from /dev/null and nothing of the organiser's environment but PATH;
    in bwrap mode it sees the system read-only and the build directory, nothing else.
    """
    lease = _lease() if isolation.own_uid else None
    group = None
    try:
        if lease is not None:
            _chown_tree(build, lease.uid, lease.uid)
        group = BotCgroup.create(COMPILE_CGROUP)
        limit_args = COMPILE_LIMITS.prlimit_args(own_uid=lease is not None) if shutil.which("prlimit") else []
        plan = ChainPlan(command=tuple(command), isolation=isolation, workdir=str(build), writable=(str(build),),
                         readable=(), uid=lease.uid if lease is not None else None, limit_args=tuple(limit_args),
                         disk_mb=None, procs_files=tuple(group.procs_files()) if group is not None else ())
        with launch_chain(plan) as (argv, fds):
            return subprocess.run(argv, cwd=build, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  errors="replace", timeout=COMPILE_TIMEOUT_S, env=dict(COMPILE_ENV),
                                  check=False, pass_fds=fds)
    finally:
        if group is not None:
            group.kill()
            group.remove()
        if lease is not None:
            if group is None:  # no cgroup to empty: end whatever of the compile still runs as that uid
                uids.kill_uid(lease.uid)
            _chown_tree(build, os.geteuid(), os.getegid())
            lease.release()


def _closed(root: Path) -> bool:
    """True when a uid in none of our groups cannot enter root (say it sits under /root, 0700)."""
    return bool(unreachable(str(root))) or not os.stat(root).st_mode & 0o001


def _workspace(root: Path, isolation: Isolation) -> tuple[Path, Path]:
    """A fresh build directory, and the directory to remove when done.

    In uid mode the compiler runs on the host as another uid, which must reach the build: with
    the cache closed to it, the build happens in /tmp and is copied into the cache afterwards.
    """
    if isolation.mode == Sandbox.UID and _closed(root):
        holder = Path(tempfile.mkdtemp(prefix=TMP_PREFIX))
        os.chmod(holder, 0o711)  # the compiler's uid may pass through, not look around
        build = holder / "build"
        build.mkdir()
        return build, holder
    build = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
    return build, build


def _write_sources(build: Path, unit: str, data: bytes, includes: Mapping[str, bytes]) -> None:
    """The module, its include files (as laid out beside it) and the generated sources."""
    (build / f"{unit}.pas").write_bytes(data)
    for rel, content in includes.items():
        (build / rel).parent.mkdir(parents=True, exist_ok=True)
        (build / rel).write_bytes(content)
    for name, text in generated_sources(unit).items():
        (build / name).write_text(text)
    (build / "units").mkdir()


def _sweep_stale_builds(root: Path) -> None:
    """Remove build directories left by compiles that were killed long ago."""
    now = time.time()
    for entry in [*root.glob(".build-*"), *Path(tempfile.gettempdir()).glob(f"{TMP_PREFIX}*")]:
        try:
            if now - entry.stat().st_mtime > STALE_BUILD_S:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            continue


def compile_module(source: Path, *, sandbox: Sandbox = Sandbox.AUTO, contest: bool = False) -> list[str]:
    """Compile a Turbo Pascal unit with its generated stdio host in the sandbox; return the command to run.

    With contest, a module whose static data (its object file's .data and .bss) exceeds the
    contest's 50 KB is refused (the source rules are checked when the BOT spec is read).
    """
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise LaunchError(f"cannot read Pascal module {source}: {exc.strerror}") from None
    unit = unit_name(data, source.name)
    includes = module_includes(source, data, unit)
    fpc = find_fpc()
    root = cache_root()
    final = root / build_key(data, unit, fpc_version(fpc), includes)
    program = final / LIBRARY
    if program.is_file():
        if contest:
            _check_static_data(final, unit, source.name)
        return [str(program)]
    isolation = resolve_sandbox(sandbox)
    try:
        root.mkdir(parents=True, exist_ok=True)
        build, holder = _workspace(root, isolation)
    except OSError as exc:
        raise LaunchError(f"cannot create the Pascal build cache {root}: {exc.strerror}") from None
    staging = build
    try:
        seconds = _build(source, build, fpc, unit, data, includes, isolation)
        log.info("compiled %s in %.2f s (sandbox %s) into %s", source, seconds, isolation.mode, final)
        if holder != build:  # built in /tmp: copied into the cache by the arena's user
            staging = Path(tempfile.mkdtemp(prefix=".build-", dir=root))
            shutil.copytree(build, staging, symlinks=True, dirs_exist_ok=True)
        os.chmod(staging, 0o755)  # a bot's own uid runs the program from here, read-only
        os.chmod(staging / LIBRARY, 0o755)
        if final.exists() and not program.is_file():  # an entry damaged by hand: replace it
            shutil.rmtree(final, ignore_errors=True)
        try:
            os.rename(staging, final)
        except OSError:
            if not program.is_file():  # not a lost race: the cache is unusable
                raise LaunchError(f"cannot store the compiled module in {final}") from None
    finally:
        for leftover in {holder, staging}:
            if leftover.exists():
                shutil.rmtree(leftover, ignore_errors=True)
    _sweep_stale_builds(root)
    if contest:
        _check_static_data(final, unit, source.name)
    return [str(program)]


def _build(source: Path, build: Path, fpc: str, unit: str, data: bytes, includes: Mapping[str, bytes],
           isolation: Isolation) -> float:
    """Write the module and its generated host into build, compile them there with fpc in the sandbox; seconds taken."""
    _write_sources(build, unit, data, includes)
    command = (fpc, *FPC_FLAGS, f"-FU{build / 'units'}", f"-FE{build}", f"{HOST}.pas")
    started = time.monotonic()
    try:
        done = run_compiler(command, build, isolation)
    except subprocess.TimeoutExpired:
        raise LaunchError(f"{source.name}: fpc did not finish within {COMPILE_TIMEOUT_S:.0f} s") from None
    except OSError as exc:
        raise LaunchError(f"cannot run {fpc}: {exc.strerror}") from None
    (build / "compile.log").write_text(done.stdout + done.stderr)
    if done.returncode != 0 or not (build / LIBRARY).is_file():
        raise LaunchError(first_error(done.stdout + done.stderr, unit, source.name, includes))
    return time.monotonic() - started


def _check_static_data(build: Path, unit: str, shown: str) -> None:
    """LaunchError when the module's static data exceeds the contest's limit (as its object file says)."""
    try:
        size = static_data_size((build / "units" / f"{unit}.o").read_bytes())
    except OSError:
        return  # no object file to measure (another toolchain layout): nothing to report
    except ObjectFileError as exc:  # the limit cannot be checked: the module does not pass unchecked
        raise LaunchError(f"{shown}: the compiled module's object file cannot be read ({exc}); refused") from None
    if size is not None and size > STATIC_DATA_LIMIT:
        raise LaunchError(f"{shown}: the contest allows {STATIC_DATA_LIMIT // 1024} KB of static data; the module "
                          f"has {size} bytes of variables and typed constants (rules=fpc turns the check off)")


def main(argv: list[str] | None = None) -> int:
    """`python -m arena.launch.pascal [--sandbox MODE] unit.pas…`: compile modules, print each program or its error."""
    names = list(argv if argv is not None else sys.argv[1:])
    sandbox = Sandbox.AUTO
    if len(names) >= 2 and names[0] == "--sandbox":
        sandbox, names = Sandbox(names[1]), names[2:]
    status = 0
    for name in names:
        try:
            print(compile_module(Path(name), sandbox=sandbox)[0])
        except LaunchError as exc:
            print(exc, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main())
