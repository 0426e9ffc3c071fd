"""`arena match GAME A B --games N [--sprt ...]`: series through the tournament runner, as a user runs them."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.tournament.stats.sprt import Pentanomial, llr_logistic, sprt_bounds
from tests.cli.test_cli import arena
from tests.helpers import FIXTURES, ROOT
from tests.tournament.helpers import rows_in
from tests.tournament.stats.test_sprt import primal_llr

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


def verdicts(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("SPRT: ") or "was accepted" in line]


def test_the_readme_example_and_an_undecided_series_print_one_verdict_each(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    example = re.search(r"^\$ (arena match .*--sprt \S+)\n((?:.+\n)+?)```", readme, re.M)
    assert example is not None
    words = example.group(1).split()[1:] + ["--out", str(tmp_path / "example")]
    done = arena(*words, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = example.group(2).splitlines()
    assert done.stdout.splitlines()[:5] == printed[:5]  # the README shows what the command prints
    [line] = verdicts(done.stdout)
    llr = re.search(r"^LLR: (\S+) ", done.stdout, re.M)
    assert llr is not None and line.startswith(f"SPRT: H1 was accepted (LLR {llr.group(1)} >= 2.94) after ")
    undecided = arena("match", "blocking", "random", "sequential", "--set", "rows=6", "--set", "cols=6", "--games",
                      "40", "--sprt", "elo0=0,elo1=10", "--out", str(tmp_path / "undecided"), cwd=tmp_path)
    assert undecided.returncode == 0, undecided.stderr
    [line] = verdicts(undecided.stdout)
    assert re.fullmatch(r"SPRT: no decision \(LLR -?\d+\.\d\d in \[-2\.94, 2\.94\]\) after 40 games", line), line


def test_a_one_sided_series_prints_no_inf_or_nan(tmp_path: Path) -> None:
    loser = str(FIXTURES / "illegal_bot.py")  # every move it makes is illegal: 0-20
    done = arena("match", "blocking", loser, "random", *SMALL, "--games", "20", "--out", str(tmp_path / "s"),
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Score of illegal_bot vs random: 0 - 20 - 0  [0.000] 20\n"), done.stdout
    assert "Elo difference: < -140.2 (95 %), LOS: 0.0 %" in done.stdout
    assert not re.search(r"\b(inf|nan)\b", done.stdout + done.stderr, re.I), done.stdout
    data = json.loads(arena("match", "blocking", loser, "random", *SMALL, "--games", "20", "--json",
                            "--out", str(tmp_path / "j"), cwd=tmp_path).stdout)
    assert data["elo"] is None and data["elo_upper"] == pytest.approx(-140.2, abs=0.05)


def test_an_interrupted_3000_game_series_verifies_in_a_few_lines(tmp_path: Path) -> None:
    out = tmp_path / "long"
    command = [sys.executable, "-m", "arena.cli", "match", "blocking", "random", "maxblock", "--set", "rows=3",
               "--set", "cols=4", "--games", "3000", "--sandbox", "none", "--out", str(out), "--workers", "2"]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while rows_in(out / "results.sqlite") < 100:
        assert process.poll() is None and time.monotonic() < deadline, "the series did not get going"
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, said = process.communicate(timeout=60)
    assert process.returncode == 130 and said.strip().endswith("(run again with --resume to finish)"), said
    played = rows_in(out / "results.sqlite")
    done = arena("verify", str(out), cwd=tmp_path)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert len(lines) <= 10, lines
    assert lines[0].startswith(f"incomplete: {played} of 3000 matches have a result, {3000 - played} have none yet "
                               "(e.g. "), lines
    assert lines[0].endswith(f"; the same command with --resume --out {out} finishes it")
    assert lines[-1] == f"verified {played} matches, {played} logs: incomplete ({3000 - played} of 3000 matches to " \
                        "play), nothing else wrong", lines
