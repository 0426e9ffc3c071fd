"""Pascal arrows modules: real fpc builds, real host processes, real matches and a tournament."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.games.arrows import setup_to_pairs
from arena.matchlog import read_log
from arena.pascal import CACHE_ENV, compile_module, first_error, unit_name
from arena.plugins import bots_for
from arena.process import LaunchError
from arena.replay import verify
from arena.tournament.config import config_from_data
from arena.tournament.runner import Coordinator, RunOptions
from tests.helpers import FIXTURES, ROOT, require, run

EXAMPLE = ROOT / "bots" / "examples" / "territory.pas"
STRANGER = FIXTURES / "stranger.pas"
PROBE = FIXTURES / "pascal_probe.pas"
FAILURES = ("timeout", "crash", "protocol", "illegal")
BOARD = {"cols": 5, "rows": 4, "heads": [[1, 1], [5, 4]], "dirs": [2, 6], "blocked": [[3, 2], [2, 3]]}


def spec(path: Path) -> str:
    """The BOT spec of a module, relative to the repository like a user would type it."""
    return f"pascal:{path.relative_to(ROOT)}"


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
    """The example, stranger and probe modules, compiled once per session."""
    require("fpc")
    return {path.stem: Path(compile_module(path)[0]) for path in (EXAMPLE, STRANGER, PROBE)}


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


def test_first_error_is_one_line_naming_the_module() -> None:
    output = ("Compiling arenahost.pas\nCompiling mybot.pas\n"
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
    assert "reason blocked" in done.stdout and "territory.pas" in done.stdout
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
    done = subprocess.run([str(built["pascal_probe"])], input="".join(json.dumps(m) + "\n" for m in lines),
                          check=False, capture_output=True, text=True, timeout=10, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert replies == [{"type": "ready", "seq": 1}, {"type": "move", "seq": 2, "move": 255},
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
    stranger = spec(STRANGER)
    played = [r for r in standings.records if stranger in r.names]
    assert {r.names.index(stranger) for r in played} == {0, 1}  # first and second player
    for record in standings.records:
        assert record.reason not in FAILURES, (record.match, record.reason, record.detail)
        assert verify(read_log(tmp_path / "out" / record.log)).ok
    assert all(r.reason == "blocked" for r in played)
