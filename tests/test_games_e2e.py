"""Every game end to end through the real referee: all seat counts, chance events, CLI output."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, ROOT, run

NEVER_STUCK = str(FIXTURES / "never_stuck.py")


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=180)


@pytest.mark.parametrize(
    ("game", "bots", "sets"),
    [
        ("arrows", ["greedy", "random"], []),
        ("tiles", ["greedy", "random"], []),
        ("tenten", ["greedy"], ["--set", "max_rounds=8"]),
        ("blocky", ["smart", "random"], ["--set", "turns=3"]),
        ("blocky", ["smart", "random", "random"], ["--set", "turns=2"]),
        ("blocky", ["smart", "random", "random", "smart"], ["--set", "turns=2"]),
    ],
)
def test_match_show_and_json_for_every_game(tmp_path: Path, game: str, bots: list[str], sets: list[str]) -> None:
    log = tmp_path / "m.msgpack"
    shown = arena("match", game, *bots, *sets, "--seed", "3", "--show", "--log", str(log))
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.count("chose") >= 1
    out = arena("match", game, *bots, *sets, "--seed", "3", "--json", "--log", str(log), "--force")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert len(result["scores"]) == len(result["ranks"]) == len(bots)
    assert result["reason"] in ("normal", "blocked") and result["offender"] is None
    assert verify(read_log(log)).ok


def test_chance_events_reach_every_seat_in_order(tmp_path: Path) -> None:
    result, _ = run("blocky", ["smart", "random", "random"], {"turns": 4, "max_depth": 2}, seed=11,
                    log=tmp_path / "b.msgpack")
    log = read_log(tmp_path / "b.msgpack")
    assert result.reason == "normal" and verify(log).ok
    result, _ = run("tenten", ["greedy"], {"max_rounds": 5}, seed=2, log=tmp_path / "t.msgpack")
    log = read_log(tmp_path / "t.msgpack")
    offers = [r for r in log.records if r["kind"] == "event"]
    assert offers and all("offer" in r["event"][1] for r in offers)
    assert verify(log).ok


@pytest.mark.parametrize("game", ["arrows", "tiles"])
def test_a_seat_without_legal_move_is_never_asked(game: str) -> None:
    reasons = set()
    for seed in range(12):
        result, _ = run(game, [NEVER_STUCK, NEVER_STUCK], seed=seed)
        assert result.reason != "crash", f"seed {seed}: a bot was asked without a legal move"
        reasons.add(result.reason)
    assert "blocked" in reasons


