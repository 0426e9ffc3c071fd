"""`arena analyze tiles`: the exact searches, the experiment, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli.main import main

SETUPS = Path(__file__).resolve().parents[1] / "setups"
OPENING = str(SETUPS / "tiles-opening.txt")
MIDGAME = str(SETUPS / "tiles-midgame.json")


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["analyze", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_tiles_report_names_every_method(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tiles", OPENING)
    assert code == 0
    assert "plain negamax (besteScore)   score +0, best move [0, \"g\"], 5,593 states" in out
    assert "alpha-beta + table           score +0" in out
    assert "monte-carlo (bepaalGoedeZet) move" in out
    assert "to move: seat 0" in out  # the position itself is shown


def test_tiles_json_agrees_between_searches(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tiles", MIDGAME, "--json", "--simulations", "20", "--seed", "4")
    assert code == 0
    data = json.loads(out)
    plain, fast = data["searches"]
    assert plain["finished"] and fast["finished"]
    assert plain["score"] == fast["score"] == 1
    assert plain["states"] >= fast["states"] > 0
    assert data["montecarlo"]["simulations"] == 20
    assert data["montecarlo"]["move"] in [m for m, _ in data["montecarlo"]["means"]]


def test_plain_negamax_gives_up_at_its_state_limit(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tiles", OPENING, "--max-states", "100")
    assert code == 0
    assert "plain negamax (besteScore)   gave up after 101 states" in out
    assert "alpha-beta + table           score +0" in out


def test_experiment_table_undoes_every_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tiles", OPENING, "--experiment", "--json", "--simulations", "10")
    assert code == 0
    data = json.loads(out)
    rows = data["rows"]
    assert [row["undone"] for row in rows] == list(range(1, data["moves"] + 1))
    for row in rows:
        assert row["negamax"]["score"] == row["alphabeta"]["score"]
    # More moves to look ahead, more states: the plain search's count never shrinks.
    counts = [row["negamax"]["states"] for row in rows]
    assert counts == sorted(counts) and counts[0] >= 1
    assert rows[-1]["to_move"] == 0


def test_experiment_prints_a_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "tiles", MIDGAME, "--experiment", "--simulations", "10")
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["undone", "to", "move", "negamax", "states", "negamax", "s",
                                "alpha-beta", "states", "alpha-beta", "s", "score"]
    assert len(lines) > 2


def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_cli(capsys, "tiles", str(tmp_path / "missing.txt"))
    assert code == 2 and err.count("\n") == 1 and "cannot read setup file" in err
    bad = tmp_path / "bad.txt"
    bad.write_text("ggxb\n1 2\n1 2\n0 0\n0 0\n0\n")
    code, _, err = run_cli(capsys, "tiles", str(bad))
    assert code == 2 and err.count("\n") == 1 and "line 1" in err
    with pytest.raises(SystemExit) as exc:
        main(["analyze", "nosuchgame", OPENING])
    assert exc.value.code == 2


def test_a_finished_position_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = tmp_path / "done.json"
    done.write_text(json.dumps({"pot": "g", "plates": 1, "plate_size": 1, "rows": 1, "row_len": 1,
                                "boards": [[[1, 0]], [[0, 0]]], "to_move": 1}))
    code, _, err = run_cli(capsys, "tiles", str(done))
    assert code == 2 and "already over" in err
