"""`arena tournament GAME BOT BOT…`: a tournament named on the command line, and what it writes to a log."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_cli import arena
from tests.tournament.helpers import write_config


def test_a_tournament_without_a_config_logs_one_line_per_game(tmp_path: Path) -> None:
    log = tmp_path / "log"
    with open(log, "w") as stderr:  # not a terminal: plain lines, no bar
        done = subprocess.run([sys.executable, "-m", "arena.cli", "tournament", "blocking", "maxblock", "random",
                               "sequential", "--games", "4", "--budget-ms", "1000"], cwd=tmp_path,
                              stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=300)
    assert done.returncode == 0
    table = done.stdout.splitlines()
    assert table[0].startswith("blocking-maxblock-random-sequential (blocking): 12/12 matches (complete")
    assert {line.split("|")[2].strip() for line in table[3:6]} == {"maxblock", "random", "sequential"}
    said = log.read_bytes()
    assert b"\r" not in said
    finished = [line for line in said.decode().splitlines() if line.startswith("Finished game ")]
    assert sorted(int(line.split()[2]) for line in finished) == list(range(1, 13)), said.decode()
    assert all(line.endswith(("1-0 {blocked}", "0-1 {blocked}")) for line in finished), finished
    # the same engine as a config: the stored config holds the bots, the games and the clock
    stored = json.loads((tmp_path / "results" / "blocking-maxblock-random-sequential" / "standings.json").read_text())
    assert stored["matches"]["scheduled"] == 12
    verify = arena("verify", str(tmp_path / "results" / "blocking-maxblock-random-sequential"))
    assert verify.returncode == 0, verify.stdout


def test_a_gauntlet_with_a_move_cap_plays_the_first_bot_against_the_others(tmp_path: Path) -> None:
    done = arena("tournament", "blocking", "perfect", "random", "sequential", "--format", "gauntlet", "--move-ms",
                 "200", "--games", "2", "--json", "--sandbox", "none", "--set", "rows=4", "--set", "cols=4",
                 cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["matches"]["scheduled"] == 4  # perfect against random and against sequential, both seats
    assert {b["name"]: b["games"] for b in data["bots"]} == {"perfect": 4, "random": 2, "sequential": 2}
    with open(tmp_path / data["dir"] / "matches.csv") as f:
        assert sum(1 for _ in f) == 5
    plan = arena("tournament", "blocking", "perfect", "random", "--move-ms", "200", "--dry-run", cwd=tmp_path)
    assert plan.returncode == 0 and plan.stdout.startswith("blocking-perfect-random: blocking, round-robin, 2 bots")


def test_options_of_a_named_tournament_with_a_config_and_too_many_bots_for_a_match_are_told(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "maxblock"]})
    done = arena("tournament", str(config), "--budget-ms", "500", cwd=tmp_path)
    assert done.returncode == 2 and done.stderr == (
        "arena tournament: error: --budget-ms goes with a game and its bots (arena tournament GAME BOT BOT... "
        "--budget-ms ...); a config sets it itself\n")
    match = arena("match", "blocking", "maxblock", "random", "sequential", cwd=tmp_path)
    assert match.returncode == 2 and match.stderr == (
        "arena match: error: blocking: players must be 2, got 3 (one BOT per seat); for a tournament of 3 bots: "
        "arena tournament blocking maxblock random sequential\n")
    alone = arena("tournament", "blocking", "random", cwd=tmp_path)
    assert alone.returncode == 2 and "at least two bots" in alone.stderr
