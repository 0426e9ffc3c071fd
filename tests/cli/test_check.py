"""`arena check-game` and `arena check-bot`, run as a user would (real processes)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from arena.cli.check import Series, _series_lines, _verdict
from arena.launch.specs.plugins import bots_for
from arena.tournament.workers.worker import MatchRecord
from tests.helpers import FIXTURES, ROOT


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, check=False,
                          cwd=cwd, timeout=120)


def test_check_game_fails_a_broken_game_module() -> None:
    out = arena("check-game", "tests.fixtures.broken_game", "--games", "5")
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert "FAIL  legal moves stay legal over 5 random games" in lines
    assert "FAIL  copies are independent of the original" in lines
    assert any(line.strip().startswith("seed 1, ply 0, 2 players: legal move 3 was refused") for line in lines)
    assert "countdown: 2 of 13 checks FAIL (5 random games)" in lines


def test_check_game_takes_a_file_and_a_named_class() -> None:
    out = arena("check-game", f"{FIXTURES / 'broken_game.py'}:Countdown", "--games", "5")
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.splitlines()[-1] == "countdown: all 13 checks pass (5 random games)"


@pytest.mark.parametrize(("target", "fragment"), [
    ("no_such_package.game", "cannot load no_such_package.game: ModuleNotFoundError"),
    ("tests/fixtures/no_such_file.py", "no such file: tests/fixtures/no_such_file.py"),
    ("tests.fixtures.illegal_bot", "tests.fixtures.illegal_bot defines no Game"),
    ("tests.fixtures.broken_game:Pile", "tests.fixtures.broken_game:Pile is not a Game"),
])
def test_check_game_refuses_a_module_it_cannot_load_in_one_line(target: str, fragment: str) -> None:
    out = arena("check-game", target)
    assert out.returncode == 2
    assert out.stdout == ""
    assert len(out.stderr.splitlines()) == 1 and fragment in out.stderr, out.stderr


def test_check_bot_passes_every_blocking_and_arrows_reference_bot() -> None:
    runs = [(game, bot.name) for game in ("blocking", "arrows") for bot in bots_for(game)]
    assert len(runs) >= 6
    with ThreadPoolExecutor(2) as pool:
        outs = list(pool.map(lambda run: arena("check-bot", *run, "--games", "2", "--budget-ms", "2000"), runs))
    for (game, bot), out in zip(runs, outs):
        assert out.returncode == 0, f"{game} {bot}:\n{out.stdout}{out.stderr}"
        lines = out.stdout.splitlines()
        others = len(bots_for(game))
        assert lines[0].startswith(f"check-bot: {bot} plays {game} against each of {others} reference bots")
        assert len([line for line in lines if line.startswith("vs ")]) == others
        assert lines[-1] == f"PASS: {bot} plays {game} by the rules ({2 * others} games, no failure)"


def test_check_bot_fails_a_bot_that_plays_illegal_moves() -> None:
    out = arena("check-bot", "blocking", "tests/fixtures/illegal_bot.py", "--games", "2")
    assert out.returncode == 1, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    failures = [line for line in lines if line.startswith("    game ")]
    total = 2 * len(bots_for("blocking"))
    assert len(failures) == total
    # Moving first it plays the cell just past the corner; second, the cell the other seat just took.
    assert all("seat 0" in line and "after 0 plies): illegal: illegal move [" in line and "off the" in line
               for line in failures[0::2])
    assert all("after 1 ply): illegal: illegal move [" in line and "already blocked" in line
               for line in failures[1::2])
    assert lines[-1] == f"FAIL: illegal_bot failed {total} of {total} games (illegal {total})"


def test_check_bot_plays_a_solo_game_alone() -> None:
    out = arena("check-bot", "tenten", "random", "--games", "2")
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[1].startswith("alone: 2 games, scores ")
    assert lines[-1] == "PASS: random plays tenten by the rules (2 games, no failure)"


@pytest.mark.parametrize(("args", "fragment"), [
    (["blocking", "nosuchbot"], "unknown bot 'nosuchbot'"),
    (["blocking", "missing.py"], "no such bot file: missing.py"),
    (["chess", "random"], "unknown game 'chess'"),
    (["blocking", "random", "--games", "3"], "--games must be a multiple of 2"),
])
def test_check_bot_refuses_a_bad_spec_in_one_line(args: list[str], fragment: str) -> None:
    out = arena("check-bot", *args)
    assert out.returncode == 2
    assert len(out.stderr.splitlines()) == 1 and fragment in out.stderr, out.stderr


def _record(number: int, bots: list[int], ranks: list[int], reason: str = "blocked",
            offender: int | None = None, detail: str = "") -> MatchRecord:
    return MatchRecord(ord=number, match=f"s0-r0-b{bots[0]}-b{bots[1]}", round=0, setup=0, seed=7, bots=bots,
                       names=[["mine", "maxblock"][b] for b in bots], scores=[float(r == 1) for r in ranks],
                       ranks=ranks, reason=reason, offender=offender, plies=3, detail=detail)


def test_a_reference_bot_failure_is_reported_and_not_counted(capsys: pytest.CaptureFixture[str]) -> None:
    series = Series("maxblock", [_record(0, [0, 1], [1, 2], "timeout", 1, "no move within 100 ms + 200 ms margin"),
                                 _record(1, [1, 0], [1, 1], "normal")])
    lines = _series_lines(series, "mine", 8)
    assert lines[0] == "vs maxblock  W 1  D 1  L 0"
    assert lines[1] == "    reference bot maxblock failed, not counted against mine:"
    assert lines[2].endswith("after 3 plies): timeout: no move within 100 ms + 200 ms margin")
    assert _verdict([series], "mine", "blocking") == 0
    out = capsys.readouterr().out.splitlines()
    assert out == ["note: reference bots failed 1 game (listed above); not counted against mine",
                   "PASS: mine plays blocking by the rules (2 games, no failure)"]
