"""Pascal arrows modules: real fpc builds, real libraries served by the SDK, real matches and a tournament."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.games.arrows.rules import setup_to_pairs
from arena.launch.pascal import pascal
from arena.launch.pascal.pascal import (
    CACHE_ENV,
    COMPILE_ENV,
    compile_module,
    find_fpc,
    first_error,
    module_includes,
    run_compiler,
    unit_name,
)
from arena.launch.processes.process import LaunchError
from arena.launch.sandbox.sandbox import Sandbox, SandboxError, resolve_sandbox
from arena.launch.specs.botspec import BotSpecError, parse_bot_spec
from arena.launch.specs.plugins import bots_for
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.outcomes import FAILURES
from arena.tournament.plan.config import config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES, ROOT, require, run

EXAMPLE = ROOT / "bots" / "examples" / "territory.pas"
STRANGER = FIXTURES / "stranger.pas"
PROBE = FIXTURES / "pascal_probe.pas"
INCLUDED = FIXTURES / "pascal_included.pas"  # with pascal_included.inc beside it
SECRET_VARIABLE = "ARENA_TEST_SECRET"
SECRET = "organiser-secret-7f3a9c"
MODES = [Sandbox.BWRAP, Sandbox.UID, Sandbox.NONE]
BOARD = {"cols": 5, "rows": 4, "heads": [[1, 1], [5, 4]], "dirs": [2, 6], "blocked": [[3, 2], [2, 3]]}


def spec(path: Path) -> str:
    """The BOT spec of a module, relative to the repository like a user would type it.

    The probe and the include test use what Free Pascal allows beyond the contest's rules.
    """
    tail = ":rules=fpc" if path in (PROBE, INCLUDED) else ""
    return f"pascal:{path.relative_to(ROOT)}{tail}"


@pytest.fixture(scope="session", autouse=True)
def pascal_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private build cache for the session, seen by tournament workers too."""
    cache = tmp_path_factory.mktemp("pascal-cache")
    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(cache)
    yield cache
    if old is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = old


@pytest.fixture(scope="session")
def built() -> dict[str, Path]:
    """The example, stranger, probe and included modules, compiled once per session."""
    require("fpc")
    return {path.stem: Path(compile_module(path)[0]) for path in (EXAMPLE, STRANGER, PROBE, INCLUDED)}


def serve_on_pipes(library: Path, messages: list[dict], cwd: Path) -> subprocess.CompletedProcess[str]:
    """The SDK serving a compiled module on its pipes, fed these referee messages as JSON lines."""
    return subprocess.run([sys.executable, "-m", "protocol.run", "--stdio", "--pascal", str(library),
                           "--interface", "arena.games.arrows.pascal"],
                          input="".join(json.dumps(m) + "\n" for m in messages), check=False, capture_output=True,
                          text=True, timeout=30, cwd=cwd, env={**os.environ, "PYTHONPATH": str(ROOT)})


def module_with(folder: Path, line: str, name: str = "leak.pas") -> Path:
    """The stranger module renamed after the file, with one line added as line 5 (after `unit`)."""
    head, tail = STRANGER.read_text().split("unit Stranger;\n", 1)
    path = folder / name
    path.write_text(f"{head}unit {Path(name).stem};\n{line}\n{tail}")
    return path


@pytest.fixture
def no_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test when any process starts: a refused module is never compiled."""
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"a process was started: {args}")

    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)


def usable(mode: Sandbox) -> None:
    """Skip when a sandbox mode cannot work here (fail under CI when bwrap is missing)."""
    if mode == Sandbox.BWRAP:
        require("bwrap")
    if mode == Sandbox.UID and os.geteuid() != 0:
        pytest.skip("uid mode needs root")
    try:
        resolve_sandbox(mode)
    except SandboxError as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))


def other_bots() -> list[str]:
    """Reference opponents: greedy, and alphabeta when it is registered."""
    names = {bot.name for bot in bots_for("arrows")}
    return [name for name in ("greedy", "alphabeta") if name in names]


# --- helpers that need no compiler -------------------------------------------------------


def test_unit_name_skips_comments_and_rejects_programs() -> None:
    assert unit_name(b"{ TP7 } (* old *) // new\n  UNIT MyBot ;\ninterface") == "mybot"
    with pytest.raises(LaunchError, match="not a Turbo Pascal unit"):
        unit_name(b"program x; begin end.", "x.pas")
    with pytest.raises(LaunchError, match="used by the arena's host"):
        unit_name(b"unit BaseUnix;", "b.pas")


# Sources found by bench/fuzz/pascal_*.py and its review: each opener searched the rest of the
# text for its closer, so 100 kB of them took seconds to minutes (a 2 MB upload, hours).
SLOW_SOURCES = {
    "unclosed paren comments": b"(*" * 50_000,
    "unclosed brace comments": b"{" * 100_000,
    "unclosed directives": b"unit m; interface implementation " + b"{$" * 50_000,
    "directives in one comment": b"unit m; interface implementation {" + b"{$" * 50_000 + b"} end.",
    "one endless switch chain": b"unit m; interface implementation {$A+" + b",A+" * 33_000 + b"} end.",
}


@pytest.mark.parametrize("name", sorted(SLOW_SOURCES))
def test_unit_name_and_the_directive_checks_read_a_source_once(tmp_path: Path, name: str) -> None:
    source = SLOW_SOURCES[name]
    started = time.monotonic()
    try:
        module_includes(tmp_path / "m.pas", source, unit_name(source, "m.pas"))
    except LaunchError as exc:
        assert "\n" not in str(exc)
        assert "not a Turbo Pascal unit" in str(exc) or "runs on for more than 512 characters" in str(exc)
    else:
        pytest.fail("a directive that never closes was let through")
    assert time.monotonic() - started < 1


def test_many_short_directives_in_a_comment_are_each_checked(tmp_path: Path) -> None:
    ok = b"unit m; interface implementation { " + b"{$R+} " * 20_000 + b"} end."
    assert module_includes(tmp_path / "m.pas", ok, unit_name(ok)) == {}
    bad = ok.replace(b"} end.", b"{$I %HOME%} } end.")
    with pytest.raises(LaunchError, match=r"^m\.pas\(1\): include directive \{\$I %HOME%\} reads the environment"):
        module_includes(tmp_path / "m.pas", bad, "m")


def test_an_include_name_is_looked_up_once_and_names_are_bounded(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # Each lookup tries up to 24 names on disk: 200,000 directives once cost millions of stats.
    calls = []
    real = pascal._locate
    monkeypatch.setattr(pascal, "_locate", lambda *args: calls.append(args) or real(*args))
    same = b"unit m; interface implementation " + b"{$I x.inc}" * 1000 + b" end."
    assert module_includes(tmp_path / "m.pas", same, "m") == {}
    assert len(calls) == 1
    names = b"".join(b"{$I a%d}" % i for i in range(pascal.MAX_INCLUDE_NAMES + 1))
    with pytest.raises(LaunchError, match=r"^m\.pas\(1\): more than 1024 include names; refused$"):
        module_includes(tmp_path / "m.pas", b"unit m; interface implementation " + names, "m")


def test_first_error_is_one_line_naming_the_module() -> None:
    output = ("Compiling arenamodule.pas\nCompiling mybot.pas\n"
              "mybot.pas(10,3) Error: Identifier not found \"x\"\n"
              "mybot.pas(15,1) Fatal: Syntax error, \";\" expected but \"END\" found\n"
              "Fatal: Compilation aborted\nError: /usr/bin/ppcx64 returned an error exitcode\n")
    assert first_error(output, "mybot", "MyBot.PAS") == 'MyBot.PAS(10,3) Error: Identifier not found "x"'
    host = 'arenabridge.pas(17,22) Error: Identifier not found "TFileOfPairs"\n'
    message = first_error(host, "mybot", "mybot.pas")
    assert message.startswith("mybot.pas: does not match the contest interface") and "TFileOfPairs" in message


# --- matches -----------------------------------------------------------------------------


@pytest.mark.parametrize("opponent", other_bots())
def test_example_module_plays_full_matches_in_both_seats(built: dict[str, Path], opponent: str,
                                                        tmp_path: Path) -> None:
    for seed, seats in enumerate([[spec(EXAMPLE), opponent], [opponent, spec(EXAMPLE)]]):
        path = tmp_path / f"{seed}.msgpack"
        result, _ = run("arrows", seats, {"cols": 8, "rows": 8}, seed=seed + 11, log=path)
        assert result.reason == "blocked" and result.offender is None, result.detail
        assert verify(read_log(path)).ok


def test_cli_match_with_show(built: dict[str, Path], tmp_path: Path) -> None:
    log = tmp_path / "cli.msgpack"
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "match", "arrows", spec(EXAMPLE), "greedy", "--show",
         "--seed", "5", "--log", str(log)],
        check=False, cwd=ROOT, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "reason blocked" in done.stdout and "territory (seat " in done.stdout  # named after its file
    assert verify(read_log(log)).ok


def test_board_file_sec_and_directions_reach_the_module(built: dict[str, Path], tmp_path: Path) -> None:
    clock = ClockSettings(budget_ms=5000)
    pairs = ";".join(f"{x} {y}" for x, y in setup_to_pairs(BOARD)) + ";"
    # First player: d = 255, and 255 back is a resignation.
    result, _ = run("arrows", [spec(PROBE), "greedy"], BOARD, clock=clock, log=tmp_path / "a.msgpack")
    assert (result.reason, result.offender) == ("resigned", 0)
    out = read_log(tmp_path / "a.msgpack").output[0]
    assert "probe unit initialised" in out  # the module's writeln went to the log, not the protocol
    assert f"sizes=2,4 records={len(setup_to_pairs(BOARD))} pairs={pairs}" in out  # TP 7 layout
    sec = int(out.split("sec=")[1].split()[0])
    assert 4000 < sec <= 5000
    assert "probe turn d=255 sec=" in out
    # Second player: d is the opponent's direction.
    result, _ = run("arrows", ["greedy", spec(PROBE)], BOARD, clock=clock, log=tmp_path / "b.msgpack")
    log = read_log(tmp_path / "b.msgpack")
    assert (result.reason, result.offender) == ("resigned", 1)
    assert f"probe turn d={log.moves[0]['move']} sec=" in log.output[1]
    # Seat 1 moving first is the contest's first player: its head is pair 2.
    swapped = {**BOARD, "to_move": 1}
    result, _ = run("arrows", ["greedy", spec(PROBE)], swapped, clock=clock, log=tmp_path / "c.msgpack")
    out = read_log(tmp_path / "c.msgpack").output[1]
    assert (result.reason, result.offender) == ("resigned", 1)
    assert "pairs=5 4;5 4;1 1;6 2;2 3;3 2;" in out and "probe turn d=255" in out


def test_one_process_plays_several_matches(built: dict[str, Path], tmp_path: Path) -> None:
    init = {"type": "init", "match": "m", "game": "arrows", "seat": 0, "players": 2, "setup": BOARD,
            "time_left_ms": 900}
    lines = [
        {**init, "seq": 1}, {"type": "turn", "seq": 2, "match": "m", "events": [], "time_left_ms": 800},
        {"type": "end", "seq": 3, "match": "m", "scores": [0.0, 1.0], "ranks": [2, 1], "reason": "resigned",
         "offender": 0, "events": []},
        {**init, "seq": 4, "seat": 1}, {"type": "turn", "seq": 5, "match": "m", "events": [[0, 3]],
                                        "time_left_ms": 700},
        {"type": "bye"},
    ]
    done = serve_on_pipes(built["pascal_probe"], lines, tmp_path)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies[0]["type"] == "hello"  # the SDK serves the module's library, and greets
    assert replies[1:] == [{"type": "ready", "seq": 1}, {"type": "move", "seq": 2, "move": 255},
                       {"type": "ready", "seq": 4}, {"type": "move", "seq": 5, "move": 255}]
    assert done.stderr.count("probe unit initialised") == 1  # the unit's initialisation: once per process
    assert "probe init 1 sec=900" in done.stderr and "probe init 2 sec=900" in done.stderr
    assert "probe turn d=3 sec=700" in done.stderr


# --- failures and the cache ----------------------------------------------------------------


@pytest.mark.parametrize("seat", [0, 1])
def test_syntax_error_is_one_clear_line_and_the_opponent_wins(tmp_path: Path, seat: int) -> None:
    require("fpc")
    broken = tmp_path / "Broken.pas"
    broken.write_text(STRANGER.read_text().replace("Read(f, p); m := p.x;", "Read(f, p) m := p.x;"))
    seats = ["greedy", "greedy"]
    seats[seat] = f"pascal:{broken}"
    result, elapsed = run("arrows", seats, BOARD)
    assert (result.reason, result.offender) == ("crash", seat)
    assert result.ranks[1 - seat] == 1 and result.scores[1 - seat] == 1.0
    assert "\n" not in result.detail
    assert result.detail.startswith("Broken.pas(") and "Fatal: Syntax error" in result.detail, result.detail
    assert elapsed < 10


@pytest.mark.parametrize("change, complaint", [
    (("var d : integer", "var d : longint"), "Call by var"),
    (("x, y: integer", "x, y: longint"), "TPair must be two 16-bit integers"),
])
def test_wrong_interface_is_reported_as_such(tmp_path: Path, change: tuple[str, str], complaint: str) -> None:
    require("fpc")
    module = tmp_path / "wide.pas"
    module.write_text(STRANGER.read_text().replace("unit Stranger;", "unit wide;").replace(*change))
    with pytest.raises(LaunchError) as failure:
        compile_module(module)
    message = str(failure.value)
    assert message.startswith("wide.pas: does not match the contest interface") and complaint in message, message
    assert "\n" not in message


def test_cache_is_reused_and_safe_under_concurrent_builds(built: dict[str, Path], tmp_path: Path,
                                                          pascal_cache: Path) -> None:
    program = built["territory"]
    stamp = program.stat().st_mtime_ns

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"the compiler ran again: {args}")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(subprocess, "run", no_compiler)
        started = time.monotonic()
        assert compile_module(EXAMPLE) == [str(program)]
        assert time.monotonic() - started < 0.5
    assert program.stat().st_mtime_ns == stamp
    # A module nobody compiled yet, built by four workers at once: one build wins, all agree.
    fresh = tmp_path / "fresh.pas"
    fresh.write_text(f"{{ {tmp_path.name} }}\n" + STRANGER.read_text())
    with ThreadPoolExecutor(4) as pool:
        programs = list(pool.map(lambda _: compile_module(fresh)[0], range(4)))
    assert len(set(programs)) == 1 and Path(programs[0]).is_file()
    assert not list(pascal_cache.glob(".build-*"))  # the losers cleaned up after themselves


# --- a stranger's module in a tournament ------------------------------------------------------


def test_stranger_module_in_a_tournament(built: dict[str, Path], tmp_path: Path) -> None:
    config = config_from_data({
        "name": "pascal", "game": "arrows", "seed": 4, "games_per_pairing": 2, "concurrency": 2,
        "bots": [spec(STRANGER), spec(EXAMPLE), "greedy", "random"],
        "setups": {"random": {"count": 2, "min_size": 5, "max_size": 8}},
        "clock": {"budget_ms": 5000},
    }, base=ROOT)
    coordinator = Coordinator(config, RunOptions(out=tmp_path / "out", quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert standings.finished == standings.scheduled == 6 * 2 * 2
    stranger = STRANGER.stem  # a module is named after its file
    played = [r for r in standings.records if stranger in r.names]
    assert {r.names.index(stranger) for r in played} == {0, 1}  # first and second player
    for record in standings.records:
        assert record.reason not in FAILURES, (record.match, record.reason, record.detail)
        assert verify(read_log(tmp_path / "out" / record.log)).ok
    assert all(r.reason == "blocked" for r in played)


# --- what a module may read, and the compiler's sandbox ------------------------------------


@pytest.mark.parametrize("line", ["{$I %HOME%}", "{$include %ARENA_TEST_SECRET%}", "(*$i %home%*)",
                                  "{$R+,I %HOME%}", "{$I '%HOME%'}", "{$I%PATH}"])
def test_include_of_an_environment_variable_is_refused_before_compiling(tmp_path: Path, no_compiler: None,
                                                                       line: str) -> None:
    with pytest.raises(LaunchError) as failure:
        compile_module(module_with(tmp_path, line))
    assert str(failure.value) == f"leak.pas(5): include directive {line} reads the environment; refused"


@pytest.mark.parametrize("name", ["/etc/hostname", "../outside.inc", "..\\outside.inc", "sub/../../outside.inc",
                                  "link.inc", "linked/outside.inc"])
def test_include_of_a_file_outside_the_module_directory_is_refused(tmp_path: Path, no_compiler: None,
                                                                  name: str) -> None:
    (tmp_path / "outside.inc").write_text("{ the organiser's }")
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "link.inc").symlink_to(tmp_path / "outside.inc")  # symlinks are followed: still outside
    (folder / "linked").symlink_to(tmp_path)
    with pytest.raises(LaunchError) as failure:
        compile_module(module_with(folder, f"{{$I {name}}}"))
    assert str(failure.value) == f"leak.pas(5): {{$I {name}}} reads a file outside the module's directory; refused"


@pytest.mark.parametrize("line, complaint", [
    ("{$L helper.o}", "{$L helper.o} links or loads a file the arena does not compile"),
    ("{$R data.res}", "{$R data.res} links or loads a file the arena does not compile"),
    ("{$LINK helper.o}", "{$LINK helper.o} names files or search paths outside the module"),
    ("{$LINKLIB c}", "{$LINKLIB c} names files or search paths outside the module"),
    ("{$RESOURCE data.res}", "{$RESOURCE data.res} names files or search paths outside the module"),
    ("{$INCLUDEPATH /etc}", "{$INCLUDEPATH /etc} names files or search paths outside the module"),
    ("{$UNITPATH /root}", "{$UNITPATH /root} names files or search paths outside the module"),
    ("{$OBJECTPATH /tmp}", "{$OBJECTPATH /tmp} names files or search paths outside the module"),
    ("{$LIBRARYPATH /tmp}", "{$LIBRARYPATH /tmp} names files or search paths outside the module"),
    ("{$MACRO ON}{$DEFINE hide:=(*}", "{$DEFINE hide:=(*} defines a macro, whose text could hide directives"),
    ("{$MODE DELPHI} uses secrets in '/etc/hostname';", "`uses … in '…'` reads a unit from a named file"),
    ("{$I arenamodule.pas}", "{$I arenamodule.pas} names a file of the arena's own build"),
])
def test_directives_that_pull_in_other_files_are_refused(tmp_path: Path, no_compiler: None, line: str,
                                                        complaint: str) -> None:
    with pytest.raises(LaunchError) as failure:
        compile_module(module_with(tmp_path, line))
    assert str(failure.value) == f"leak.pas(5): {complaint}; refused"


@pytest.mark.parametrize("line", [
    "{$MESSAGE 'a}' } const s = '{$I %HOME%}';",  # fpc reads the quoted brace: that 'string' is code
    "{ { } ' } {$I %HOME%} '",  # fpc nests comments in its own modes: so is this one
    "const s = 'no end {$I %HOME%}",
    "// {$I %HOME%}",
    "{ {$I %HOME%} }",
    "{$DEFINE x {$I %HOME%}}",
])
def test_directives_hidden_from_a_naive_reading_are_still_found(tmp_path: Path, no_compiler: None,
                                                               line: str) -> None:
    with pytest.raises(LaunchError, match=r"^leak\.pas\(5\): include directive \{\$I %HOME%\} reads the environment"):
        compile_module(module_with(tmp_path, line))


def test_an_include_file_ending_inside_a_comment_is_refused(tmp_path: Path, no_compiler: None) -> None:
    (tmp_path / "open.inc").write_text("{ fpc carries this comment on into the module")
    with pytest.raises(LaunchError) as failure:
        compile_module(module_with(tmp_path, "{$I open.inc} ' } {$I %HOME%} '"))
    assert str(failure.value) == ("open.inc: ends inside a comment, which fpc would carry on into the file "
                                  "including it; refused")


def test_switches_builtins_strings_and_own_includes_are_allowed(tmp_path: Path) -> None:
    line = ("{$I+} {$I-} {$R+} {$R-} {$L-} {$I+,R-} (*$I-*) {$IOCHECKS ON} {$DEFINE ARENA} "
            "const v = {$I %FPCVERSION%} + {$i %date%} + '{$I %HOME%} {$L x.o} it''s';")
    module = module_with(tmp_path, line)
    assert module_includes(module, module.read_bytes(), "leak") == {}
    (tmp_path / "moves.inc").write_text("{ moves }")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "deeper.inc").write_text("{$I moves}")  # fpc tries .inc, here and beside the module
    module = module_with(tmp_path, f"{line} {{$I sub\\deeper.inc}}")
    assert module_includes(module, module.read_bytes(), "leak") == {"sub/deeper.inc": b"{$I moves}",
                                                                   "moves.inc": b"{ moves }"}


def test_first_error_names_an_include_file() -> None:
    output = 'Compiling mybot.pas\nmoves.inc(3,5) Error: Identifier not found "q"\n'
    assert first_error(output, "mybot", "mybot.pas", ["sub/moves.inc"]) == \
        'sub/moves.inc(3,5) Error: Identifier not found "q"'


def test_module_with_an_include_file_compiles_and_plays(built: dict[str, Path], tmp_path: Path) -> None:
    assert (built["pascal_included"].parent / "pascal_included.inc").is_file()  # copied into the build
    for seed, seats in enumerate([[spec(INCLUDED), "greedy"], ["greedy", spec(INCLUDED)]]):
        path = tmp_path / f"{seed}.msgpack"
        result, _ = run("arrows", seats, {"cols": 8, "rows": 8}, seed=seed + 3, log=path)
        assert result.reason == "blocked" and result.offender is None, result.detail
        match = read_log(path)
        assert verify(match).ok
        out = match.output[seats.index(spec(INCLUDED))]
        assert "included: compiled by fpc 3." in out and "and text {$I %HOME%} stays text" in out


def test_editing_an_include_file_rebuilds_the_module(built: dict[str, Path], tmp_path: Path) -> None:
    for path in (INCLUDED, INCLUDED.with_suffix(".inc")):
        shutil.copy(path, tmp_path)
    module, include = tmp_path / INCLUDED.name, tmp_path / "pascal_included.inc"
    assert compile_module(module) == [str(built["pascal_included"])]  # the same bytes: the same build
    include.write_text(include.read_text() + "{ edited }\n")
    rebuilt = compile_module(module)[0]
    assert rebuilt != str(built["pascal_included"]) and Path(rebuilt).is_file()
    include.write_text(include.read_text().replace("Advance(mine, d);", "Advance(mine, d) q;"))
    with pytest.raises(LaunchError, match=r"^pascal_included\.inc\(\d+,\d+\) (Error|Fatal): "):
        compile_module(module)


@pytest.mark.parametrize("mode", MODES)
def test_compile_in_each_sandbox_mode(tmp_path: Path, mode: Sandbox) -> None:
    require("fpc")
    usable(mode)
    # A cache closed to other uids, as one under /root: uid mode builds in /tmp and copies it in.
    cache = tmp_path / "closed" / "pascal"
    cache.parent.mkdir(mode=0o700)
    scratch = Path(tempfile.mkdtemp(prefix="arena-scratch-"))  # a /tmp of this test's own
    os.chmod(scratch, 0o755)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv(CACHE_ENV, str(cache))
            patch.setattr(tempfile, "tempdir", str(scratch))
            program = Path(compile_module(module_with(tmp_path, f"{{ {mode} }}"), sandbox=mode)[0])
        assert not list(scratch.iterdir())  # the build in /tmp (uid mode) is gone
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    entry = program.parent
    assert entry.parent == cache and stat.S_IMODE(entry.stat().st_mode) == 0o755
    for path in [entry, *entry.rglob("*")]:  # nothing of the cache belongs to, or is writable by, a bot uid
        info = path.lstat()
        assert info.st_uid == os.geteuid() and info.st_gid == os.getegid() and not info.st_mode & 0o002, path
    assert not list(cache.glob(".build-*"))
    done = serve_on_pipes(program, [{"type": "bye"}], tmp_path)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("mode", MODES)
def test_the_compiler_runs_as_a_bot_uid_with_an_empty_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 mode: Sandbox) -> None:
    require("fpc")
    usable(mode)
    isolation = resolve_sandbox(mode)
    monkeypatch.setenv(SECRET_VARIABLE, SECRET)
    kept = tmp_path / "organiser.txt"  # under pytest's folder, closed to other uids
    kept.write_text(SECRET)
    build = Path(tempfile.mkdtemp(prefix="arena-compiler-test-"))
    try:
        env = dict(line.split("=", 1) for line in run_compiler(["env"], build, isolation).stdout.splitlines())
        assert env == {**COMPILE_ENV, "PWD": str(build)}  # PWD: set by the chain's own sh
        uid = int(run_compiler(["id", "-u"], build, isolation).stdout)
        status = run_compiler(["grep", "Seccomp:", "/proc/self/status"], build, isolation).stdout
        assert status.split() == ["Seccomp:", "0" if mode == Sandbox.NONE else "2"], status  # the filter
        assert uid not in (0, os.geteuid()) if isolation.own_uid else uid == os.geteuid()
        assert isolation.own_uid == (mode != Sandbox.NONE and os.geteuid() == 0)
        peek = run_compiler(["cat", str(kept)], build, isolation)
        assert (SECRET in peek.stdout) == (mode == Sandbox.NONE)  # only the organiser's own user reads it
        # fpc itself, asked for the variable by a directive that only this direct call lets through
        (build / "peek.pas").write_text("program peek; begin writeln('[', {$I %ARENA_TEST_SECRET%}, '][', "
                                        "{$I %HOME%}, ']') end.")
        done = run_compiler([find_fpc(), "peek.pas"], build, isolation)
        assert done.returncode == 0, done.stdout
        assert SECRET not in done.stdout + done.stderr and f"{SECRET_VARIABLE}" in done.stdout  # fpc: not found
        ran = subprocess.run([str(build / "peek")], capture_output=True, text=True, timeout=10, check=False)
        assert ran.stdout == "[][]\n"
        owners = {path.lstat().st_uid for path in [build, *build.rglob("*")]}
        assert owners == {os.geteuid()}  # lent to the bot uid for the compile only
    finally:
        shutil.rmtree(build, ignore_errors=True)


def test_a_module_reading_a_secret_loses_and_the_secret_stays_out(built: dict[str, Path], tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, SECRET)
    for line, seat in (("{$I %ARENA_TEST_SECRET%}", 0), ("{$I /etc/hostname}", 1)):
        module = module_with(tmp_path, line)
        seats = [spec(INCLUDED), spec(INCLUDED)]
        seats[seat] = f"pascal:{module}:rules=fpc"  # a directive: only Free Pascal's own rules let it compile
        path = tmp_path / f"{seat}.msgpack"
        result, _ = run("arrows", seats, BOARD, log=path)
        assert (result.reason, result.offender) == ("crash", seat)
        assert result.detail.startswith(f"leak.pas(5): {line} ") or result.detail.startswith(
            f"leak.pas(5): include directive {line} "), result.detail
        assert SECRET not in repr(result) and SECRET.encode() not in path.read_bytes()
    result, _ = run("arrows", [spec(INCLUDED), "greedy"], BOARD, log=tmp_path / "played.msgpack")
    assert result.reason == "blocked", result.detail  # a module that compiles plays with the secret set, too
    assert SECRET not in repr(result) and SECRET.encode() not in (tmp_path / "played.msgpack").read_bytes()


def test_a_game_without_a_pascal_interface_refuses_a_module_in_one_line() -> None:
    with pytest.raises(BotSpecError, match=r"^pascal: modules play the games whose folder has a Pascal interface "
                                           r"\(pascal\.py\): arrows; blocking has none$"):
        parse_bot_spec(f"pascal:{EXAMPLE}", "blocking")
    assert parse_bot_spec(f"pascal:{EXAMPLE}", "arrows").interface == "arena.games.arrows.pascal"

