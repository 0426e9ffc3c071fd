"""`arena match GAME A B --games N [--sprt ...]`: series through the tournament runner, as a user runs them."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.tournament.sprt import Pentanomial, llr_logistic, sprt_bounds
from tests.cli.test_cli import arena
from tests.tournament.test_sprt import primal_llr

SMALL = ("--set", "rows=5", "--set", "cols=5")


def series(tmp_path: Path, *args: str) -> dict:
    out = arena("match", *args, "--json", "--workers", "2", "--out", str(tmp_path / "series"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize(("bots", "decision"), [(("perfect", "random"), "H1"), (("random", "perfect"), "H0")])
def test_sprt_stops_early_and_its_llr_follows_from_the_printed_counts(tmp_path: Path, bots, decision) -> None:
    data = series(tmp_path, "blocking", *bots, *SMALL, "--games", "400", "--sprt", "elo0=0,elo1=50")
    assert data["sprt"] == decision and data["stopped_early"] is True
    assert data["games"] < 400 and data["games"] == data["wins"] + data["draws"] + data["losses"]
    assert sum(data["pentanomial"]) * 2 == data["games"]  # the pairs in flight were finished
    counts = Pentanomial(*data["pentanomial"])
    independent = primal_llr(counts.as_list(), 0.0, 50.0)
    assert data["llr"] == pytest.approx(independent, rel=1e-6)
    assert data["llr"] == pytest.approx(llr_logistic(counts, 0.0, 50.0))
    lower, upper = sprt_bounds(0.05, 0.05)
    assert (data["llr_lower"], data["llr_upper"]) == (pytest.approx(lower), pytest.approx(upper))
    assert (data["llr"] >= upper) if decision == "H1" else (data["llr"] <= lower)
    assert {"elo", "elo_error", "los", "elo0", "elo1", "alpha", "beta"} <= data.keys()
    verify = arena("verify", data["dir"])
    assert verify.returncode == 0, verify.stdout  # the unplayed games are explained by the SPRT's stop


def test_a_series_is_played_in_pairs_and_prints_a_cutechess_summary(tmp_path: Path) -> None:
    out = arena("match", "blocking", "perfect", "random", *SMALL, "--games", "6", "--out", str(tmp_path / "s"),
                "--quiet", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("Score of perfect vs random: ") and lines[0].endswith(" 6")
    assert lines[1].startswith("Elo difference: ") and "LOS: " in lines[1]
    assert lines[2].startswith("Ptnml(0-2): [")
    with sqlite3.connect(tmp_path / "s" / "results.sqlite") as db:
        rows = db.execute("SELECT setup, seed, bots FROM matches ORDER BY ord").fetchall()
    assert len(rows) == 6
    by_setup: dict[int, list] = {}
    for setup, seed, bots in rows:
        by_setup.setdefault(setup, []).append((seed, json.loads(bots)))
    assert len(by_setup) == 3  # a new board for every pair ...
    for pair in by_setup.values():  # ... played twice, with the same seed and the seats swapped
        assert pair[0][0] == pair[1][0] and pair[0][1] == pair[1][1][::-1]
    again = arena("match", "blocking", "perfect", "random", *SMALL, "--games", "6", "--out", str(tmp_path / "s"),
                  "--quiet", "--resume", cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.splitlines()[0] == lines[0]


def test_solo_games_give_every_bot_the_same_boards(tmp_path: Path) -> None:
    data = series(tmp_path, "tenten", "greedy", "random", "--games", "3")
    assert data["games"] == 3 and data["pentanomial"] is None and data["wins"] == 3
    with sqlite3.connect(Path(data["dir"]) / "results.sqlite") as db:
        rows = db.execute("SELECT setup, seed, bots FROM matches").fetchall()
    assert sorted(json.loads(b)[0] for _, _, b in rows) == [0, 0, 0, 1, 1, 1]
    seeds = {(setup, seed) for setup, seed, _ in rows}
    assert len(seeds) == 3  # each board's two games share their seed


def test_more_seats_report_standings(tmp_path: Path) -> None:
    data = series(tmp_path, "blocky", "greedy", "random", "smart", "--games", "3")
    assert data["matches"]["finished"] == 3 and data["stopped_early"] is False
    assert sorted(b["name"] for b in data["bots"]) == ["greedy", "random", "smart"]


@pytest.mark.parametrize(("args", "message"), [
    (("blocking", "random", "random", "--games", "3"), "games must be a multiple of the seats (2)"),
    (("blocking", "random", "random", "--sprt", "elo0=0,elo1=5"), "--sprt is for a series: add --games N"),
    (("blocking", "random", "random", "--games", "2", "--sprt", "elo0=5,elo1=0"), "must be below elo1"),
    (("blocking", "random", "random", "--games", "2", "--sprt", "elo0=0,elo1=5,x=1"), "unknown key 'x'"),
    (("blocking", "random", "random", "--games", "2", "--sprt", "elo0=0"), "elo1 is missing"),
    (("blocking", "random", "random", "--games", "2", "--sprt", "elo0=a,elo1=5"), "--sprt.elo0: must be a number"),
    (("blocking", "random", "random", "--games", "2", "--log", "x.msgpack"), "--log is for a single match"),
    (("blocky", "greedy", "random", "smart", "--games", "3", "--sprt", "elo0=0,elo1=5"), "compares two bots"),
])
def test_bad_series_options_get_one_line(tmp_path: Path, args, message: str) -> None:
    out = arena("match", *args, cwd=tmp_path)
    assert out.returncode == 2 and message in out.stderr and len(out.stderr.strip().splitlines()) == 1, out.stderr
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())
