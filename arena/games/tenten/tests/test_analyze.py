"""`arena analyze tenten`: greedy and optimal scores of a sequence, in process and on the CLI."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.main import main
from arena.games.base import SetupError
from tests.helpers import ROOT

from ..analyze import analyze_tenten, highest_score, play_greedy, start
from ..rules import GAME
from .test_strong import exact, short_sequence

DEMO = Path(__file__).resolve().parents[1] / "setups" / "tenten-sequence.json"
DOT = [[0, 0]]
V2 = [[0, 0], [0, 1]]
# Two gaps in the first two rows of a 5x5: the dots can fill them (24), or the 1x2 can (34).
GAPS = {"size": 5, "offer": 1, "sequence": [DOT, DOT, V2],
        "filled": [[k, r] for k in range(1, 5) for r in (1, 2)]}


def replayed_points(setup: dict, moves: list) -> int:
    """The points the engine itself awards for moves played from setup's first position."""
    state, _ = GAME.start(GAME.validate_setup(setup, 1), 1, 0)
    for move in moves:
        assert move in state.legal_moves()
        state.apply(move)
    return state.points


def test_the_report_names_each_method_with_states_and_time() -> None:
    out = io.StringIO()
    analyze_tenten(GAPS, out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "tenten 5x5, 3 blocks offered 1 per round"
    assert lines[1].startswith("greedy (play_greedy)") and " score     24 " in lines[1]
    assert lines[2].startswith("optimal (highest_score)") and " score     34 " in lines[2]
    assert "states visited" in lines[1] and "time" in lines[2]
    assert lines[3].startswith("optimal moves [i, k, r]: ")
    assert len(lines) == 4


def test_reported_moves_score_what_is_reported_on_the_engine() -> None:
    # Neither method is trusted: the engine replays both lines and awards the points itself.
    for seed in range(8):
        setup = short_sequence(seed)
        state = start(setup)
        greedy, best = play_greedy(state), highest_score(state)
        assert replayed_points(setup, greedy.moves) == greedy.score
        assert replayed_points(setup, best.moves) == best.score
        assert best.finished and best.score == exact(seed) >= greedy.score
        assert best.visited > 0 and greedy.visited > 0


def test_a_stopped_analysis_reports_the_best_line_found() -> None:
    out = io.StringIO()
    analyze_tenten(json.loads(DEMO.read_text()), out, max_seconds=0.5)
    greedy, optimal = out.getvalue().splitlines()[1:3]
    assert "stopped after 0.5 s" in optimal
    assert int(optimal.split(" score ")[1].split()[0]) >= int(greedy.split(" score ")[1].split()[0])


def test_a_setup_without_a_sequence_is_refused() -> None:
    with pytest.raises(SetupError, match="sequence"):
        analyze_tenten({"size": 5}, io.StringIO())


def test_json_output_and_errors_on_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "seq.json"
    path.write_text(json.dumps(GAPS))
    assert main(["analyze", "tenten", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["greedy"]["score"] == 24 and data["optimal"]["score"] == 34
    assert data["optimal"]["finished"] and data["optimal"]["visited"] > 0
    assert replayed_points(GAPS, data["optimal"]["moves"]) == 34

    for argv, expected in (
        ([str(path), "--max-seconds", "0"], "--max-seconds must be positive"),
        ([str(tmp_path / "missing.json")], "cannot read setup file"),
    ):
        assert main(["analyze", "tenten", *argv]) == 2
        err = capsys.readouterr().err
        assert expected in err and err.count("\n") == 1
    path.write_text(json.dumps({"size": 5}))
    assert main(["analyze", "tenten", str(path)]) == 2
    err = capsys.readouterr().err
    assert "seq.json" in err and "sequence" in err and err.count("\n") == 1
    path.write_text(json.dumps({**GAPS, "size": 3}))  # filled cells off a 3x3 board
    assert main(["analyze", "tenten", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_installed_command_analyzes_the_demo_sequence() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "analyze", "tenten", str(DEMO), "--max-seconds", "1"],
        check=False, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "tenten 10x10, 12 blocks offered 3 per round"
    greedy = int(lines[1].split(" score ")[1].split()[0])
    optimal = int(lines[2].split(" score ")[1].split()[0])
    assert optimal >= greedy > 0
    moves = json.loads("[" + lines[3].split(": ", 1)[1].replace("] [", "], [") + "]")
    assert len(moves) == 12 and replayed_points(json.loads(DEMO.read_text()), moves) == optimal


def test_the_limit_is_said_at_the_start_and_a_progress_line_runs_on_a_terminal() -> None:
    import pexpect

    child = pexpect.spawn(sys.executable, ["-m", "arena.cli", "analyze", "tenten",
                                           str(DEMO), "--max-seconds", "3"],
                          encoding="utf-8", timeout=60, cwd=str(ROOT), env={**os.environ, "NO_COLOR": "1"})
    child.expect(r"the exact search runs for up to 3 s \(--max-seconds\); Ctrl-C stops it")
    child.expect(r"searching: [\d,]+ states, best score so far \d+, \d+ s left")
    child.expect(r"\r?\ntenten 10x10, 12 blocks offered 3 per round")
    child.expect(r"optimal \(highest_score\)\s+score\s+\d+")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
