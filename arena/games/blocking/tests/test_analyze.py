"""`arena analyze blocking`: who wins more often by board size and strategies, run as a user runs it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT


def analyze(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "analyze", "blocking", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=300, check=False)


def test_perfect_play_wins_as_first_on_3x3_and_as_second_on_4x4() -> None:
    out = analyze("--sizes", "3x3,4x4", "--bots", "perfect,random,maxblock", "--games", "4", "--json")
    assert out.returncode == 0, out.stderr
    results = json.loads(out.stdout)
    assert len(results) == 2 * 9
    assert {"rows", "cols", "first", "second", "games", "first_wins", "second_wins"} <= results[0].keys()
    by = {(r["rows"], r["cols"], r["first"], r["second"]): r for r in results}
    assert by[(3, 3, "perfect", "perfect")]["first_wins"] == 4
    assert by[(4, 4, "perfect", "perfect")]["second_wins"] == 4
    for r in results:
        assert r["games"] == 4 and r["first_wins"] + r["second_wins"] == 4  # blocking has no draws
        if r["first"] == "perfect" and r["rows"] == 3:
            assert r["first_wins"] == 4  # the first player's win on 3x3 holds against anyone


def test_the_text_report_names_the_favoured_seat_per_size() -> None:
    out = analyze("--sizes", "2x2", "--bots", "sequential,random", "--games", "2")
    assert out.returncode == 0, out.stderr
    assert "2x2:" in out.stdout and "sequential vs random" in out.stdout
    assert "in all: the first player won 8 of 8 games (100 %): the first player is favoured" in out.stdout


@pytest.mark.parametrize(("args", "message"), [
    (("--sizes", "3x"), "--sizes: '3x' is not ROWSxCOLS"),
    (("--bots", "nobody"), "unknown bot 'nobody'"),
    (("--games", "0"), "'0' must be positive"),
    (("--bots", "random,random"), "each strategy once"),
])
def test_bad_options_get_one_line(args: tuple[str, ...], message: str) -> None:
    out = analyze(*args)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
