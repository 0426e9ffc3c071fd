"""`arena analyze`: the tiles analyzer, its experiment, errors, and the per-game registry."""

from __future__ import annotations

import argparse
import json
import pkgutil
from pathlib import Path

import pytest

from arena.analyze import cli as analyze
from arena.cli.main import main

SETUPS = Path(__file__).resolve().parents[2] / "configs" / "setups"
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


def test_another_game_plugs_in_with_one_registration(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    seen = {}

    def add(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--depth", type=int, default=1)

    def run(args: argparse.Namespace, setup: dict) -> int:
        seen.update(setup=setup, depth=args.depth)
        print("analysed")
        return 0

    path = tmp_path / "board.json"
    path.write_text(json.dumps({"rows": 3, "cols": 4}))
    analyze.register_analyzer(analyze.Analyzer("blocking", "test analyzer", add, run))
    try:
        code, out, _ = run_cli(capsys, "blocking", str(path), "--depth", "3")
    finally:
        del analyze.ANALYZERS["blocking"]
    assert code == 0 and out == "analysed\n"
    assert seen == {"setup": {"rows": 3, "cols": 4, "blocked": []}, "depth": 3}


def test_every_analyze_module_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    imported = []
    fake = [pkgutil.ModuleInfo(None, name, False) for name in ("fake", "cli", "registry")]  # type: ignore[arg-type]
    monkeypatch.setattr(analyze.pkgutil, "iter_modules", lambda path: fake)
    monkeypatch.setattr(analyze.importlib, "import_module", imported.append)
    analyze.load_analyzer_modules()
    assert imported == ["arena.analyze.fake"]
