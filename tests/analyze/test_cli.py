"""`arena analyze GAME`: every game's analyzer, found in its folder; a teacher's game plugs one in by adding a file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers import ROOT

ANALYZER = """
import argparse

from arena.kit.analysis import EXIT_OK, Analyzer, GameRunner, PlannedGame


def add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--games", type=int, default=2)


def run(args: argparse.Namespace, setup: dict, runner: GameRunner) -> int:
    planned = [PlannedGame(f"g{i}", 0, (i % 2, 1 - i % 2), i) for i in range(args.games)]
    played = runner.play("{name}", ["greedy", "random"], [setup], planned, seed=1, workers=1)
    print(setup["rows"], sorted(played), sorted({p.reason for p in played.values()}))
    return EXIT_OK


ANALYZER = Analyzer("a study of the scaffold", add, run)
"""


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, check=False,
                          cwd=cwd, timeout=300)


def test_a_games_own_analyzer_gets_a_subcommand_and_plays_its_games(tmp_path: Path) -> None:
    assert arena("new-game", "squares", str(tmp_path)).returncode == 0
    (tmp_path / "squares" / "analyze.py").write_text(ANALYZER.replace("{name}", "squares"))
    board = tmp_path / "board.json"
    board.write_text(json.dumps({"rows": 4, "cols": 4, "line": 3}))
    listed = arena("--games", str(tmp_path), "analyze", "--help")
    assert "squares" in listed.stdout, listed.stdout
    out = arena("--games", str(tmp_path), "analyze", "squares", str(board), "--games", "2")
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0].startswith("4 ['g0', 'g1'] ['")


def test_a_broken_analyzer_is_left_out_with_a_warning_and_the_others_stay(tmp_path: Path) -> None:
    assert arena("new-game", "squares", str(tmp_path)).returncode == 0
    (tmp_path / "squares" / "analyze.py").write_text("raise RuntimeError('half written')\n")
    out = arena("--games", str(tmp_path), "analyze", "--help")
    assert out.returncode == 0, out.stderr
    assert "squares" not in out.stdout.split("positional arguments")[-1].split("options")[0]
    assert "cannot load the analyzer of game squares: RuntimeError: half written" in out.stderr
