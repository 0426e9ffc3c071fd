"""The Python API (`from arena import ...`): a match, a series, a tournament and a rendered log, in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import arena
from arena import ArenaError, play_match, render, run_series, run_tournament
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import ROOT


def test_import_arena_stays_light() -> None:
    code = "import sys, arena; print(sorted(m for m in sys.modules if m.startswith(('arena.', 'zmq'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
    assert sorted(arena.__all__) == ["ArenaError", "play_match", "render", "run_series", "run_tournament"]


def test_play_match_returns_the_json_of_arena_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = play_match("blocking", ["perfect", "random"], setup={"rows": 3, "cols": 3}, seed=7, budget_ms=5000)
    cli = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", "perfect", "random", "--set",
                          "rows=3", "--set", "cols=3", "--seed", "7", "--budget-ms", "5000", "--json"],
                         capture_output=True, text=True, cwd=tmp_path, check=True)
    expected = json.loads(cli.stdout)
    assert result.keys() == expected.keys()
    assert {k: v for k, v in result.items() if k != "log"} == {k: v for k, v in expected.items() if k != "log"}
    assert result["seed"] == 7 and verify(read_log(tmp_path / result["log"])).ok


def test_run_series_plays_pairs_and_stops_on_sprt(tmp_path: Path) -> None:
    data = run_series("blocking", ["perfect", "random"], 200, setup={"rows": 5, "cols": 5},
                      sprt={"elo0": 0, "elo1": 50}, out=tmp_path / "s", workers=2)
    assert data["sprt"] == "H1" and data["stopped_early"] and data["games"] == 2 * sum(data["pentanomial"])
    assert data["a"] == "perfect" and data["dir"] == str(tmp_path / "s")


def test_run_tournament_from_a_dict(tmp_path: Path) -> None:
    config = {"name": "api", "game": "tiles", "bots": ["greedy", "random"], "seed": 3,
              "setups": {"random": {"count": 1}}, "games_per_pairing": 2}
    standings = run_tournament(config, out=tmp_path / "t", workers=1)
    assert standings["matches"] == {"scheduled": 2, "finished": 2, "played": 2, "forfeits": 0}
    assert (tmp_path / "t" / "standings.json").exists()
    with pytest.raises(ArenaError, match="already holds 2/2 results"):
        run_tournament(config, out=tmp_path / "t")


def test_render_shows_the_viewer_in_a_frame(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = play_match("blocking", ["perfect", "random"], setup={"rows": 3, "cols": 3}, seed=1)
    shown = render(result["log"])
    frame = shown._repr_html_()
    assert frame.startswith("<iframe srcdoc=\"") and 'sandbox="allow-scripts"' in frame
    assert "<script" not in frame  # the page is escaped into the attribute, not run in the notebook
    page = shown.save(tmp_path / "match.html").read_text()
    assert "perfect" in page and "<script" in page


@pytest.mark.parametrize(("call", "message"), [
    (lambda: play_match("chess", ["a", "b"]), "unknown game 'chess'"),
    (lambda: play_match("blocking", "perfect"), "a list of BOT specs"),
    (lambda: play_match("blocking", ["perfect", "nobody"]), "nobody"),
    (lambda: run_series("blocking", ["perfect", "random"], 3), "multiple of the seats"),
    (lambda: run_series("blocking", ["perfect", "random"], 0), "a positive number of games"),
    (lambda: run_tournament({"game": "blocking"}), "bots: missing"),
    (lambda: render("/nonexistent.msgpack"), "nonexistent"),
])
def test_bad_input_raises_arena_error(call, message: str) -> None:
    with pytest.raises(ArenaError, match=message):
        call()
