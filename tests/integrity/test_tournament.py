"""`arena integrity` on real round robins: a colluding pair is flagged first; without the handshake nothing is.

Six bots play a round robin on a 6 x 6 Blocking board (a first-mover win) through the
tournament runner, real bot processes and the referee: the colluders of
tests/fixtures/handshake_colluder.py, which know each other by their first two moves, and four
reference bots. With a shared secret the thrower loses every game to its partner (perfect
losing moves after the handshake, a `blocked` loss like any other); with two secrets the
same bots never recognise each other. The command is run as an organiser runs it.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import arena
from arena.tournament.results.store import STORE_NAME, ResultsStore
from tests.helpers import FIXTURES

GAMES = 10  # per pairing, half with each seat: the thrower was flagged first in every run at 10 (docs/integrity.md)


def round_robin(out: Path, secrets: tuple[str, str]) -> Path:
    """Play the round robin (colluders with these secrets and four reference bots); its results directory."""
    colluder = str(FIXTURES / "handshake_colluder.py")
    config = {"name": "colluders", "game": "blocking", "seed": 1, "games_per_pairing": GAMES,
              "bots": [{"spec": colluder, "name": "thrower", "options": {"secret": secrets[0], "role": "thrower"}},
                       {"spec": colluder, "name": "partner", "options": {"secret": secrets[1], "role": "partner"}},
                       "perfect", "maxblock", "random", "sequential"],
              "setups": {"fixed": {"rows": 6, "cols": 6}}, "clock": {"budget_ms": 5000, "mode": "cpu"}}
    arena.run_tournament(config, out=out, workers=2)
    return out


def integrity(directory: Path, *options: str) -> subprocess.CompletedProcess[str]:
    """`arena integrity DIR ...` as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", "integrity", str(directory), *options],
                          capture_output=True, text=True, timeout=300, check=False)


def contents(directory: Path) -> dict[str, str]:
    """A digest of every file of a results directory (the check must change none)."""
    return {str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(directory.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def colluding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return round_robin(tmp_path_factory.mktemp("colluding") / "results", ("s3cret", "s3cret"))


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return round_robin(tmp_path_factory.mktemp("honest") / "results", ("mine", "yours"))


def test_the_thrower_and_its_partner_are_flagged_first_and_nothing_changes(colluding: Path) -> None:
    before = contents(colluding)
    done = integrity(colluding)
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    flagged = lines.index(next(line for line in lines if line.startswith("FLAGGED")))
    assert lines[flagged + 1].startswith(f"  1. thrower -> partner: {GAMES} game(s), {GAMES // 2} moving first; "
                                         "thrower scored 0,")
    assert contents(colluding) == before


def test_the_evidence_is_in_the_json(colluding: Path) -> None:
    done = integrity(colluding, "--json")
    assert done.returncode == 1
    data: dict[str, Any] = json.loads(done.stdout)
    report = data["reports"][0]
    assert data["flagged"] == report["flagged"] >= 1 and report["solver"] == "blocking"
    first = report["pairs"][0]
    assert (first["player"], first["opponent"], first["flagged"]) == ("thrower", "partner", True)
    assert first["points"] == 0 and first["expected"] > 2 and first["moved_first"] == GAMES // 2
    # Every game the thrower opened: the handshake, then one move from a won position to a lost one.
    assert first["blunders"]["against"] == [GAMES // 2, GAMES]
    assert first["blunders"]["others"][0] <= 2 < first["blunders"]["others"][1] // 10
    assert first["adjusted"] <= report["alpha"] < report["pairs"][1]["adjusted"]
    assert {(p["player"], p["opponent"]) for p in report["pairs"]} == {
        (a, b) for a in ("thrower", "partner", "perfect", "maxblock", "random", "sequential")
        for b in ("thrower", "partner", "perfect", "maxblock", "random", "sequential") if a != b}


def test_results_alone_still_put_the_pair_first(colluding: Path) -> None:
    done = integrity(colluding, "--json", "--no-blunders")
    report = json.loads(done.stdout)["reports"][0]
    first = report["pairs"][0]
    assert report["solver"] == "off" and first["blunders"]["p"] is None
    assert (first["player"], first["opponent"]) == ("thrower", "partner") and first["p_results"] < 0.1


def test_without_the_handshake_nothing_is_flagged(honest: Path) -> None:
    done = integrity(honest)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no pair flagged (Holm-adjusted p <= 0.05)" in done.stdout
    data = json.loads(integrity(honest, "--json", "--all").stdout)["reports"][0]
    pair = next(p for p in data["pairs"] if (p["player"], p["opponent"]) == ("thrower", "partner"))
    assert pair["points"] > 0 and pair["blunders"]["against"][0] == 0


def test_a_stricter_threshold_flags_fewer(colluding: Path) -> None:
    loose = json.loads(integrity(colluding, "--json", "--alpha", "0.5").stdout)["reports"][0]
    strict = json.loads(integrity(colluding, "--json", "--alpha", "1e-9").stdout)["reports"][0]
    assert loose["flagged"] >= 1 and strict["flagged"] == 0


def test_a_directory_that_cannot_be_checked_is_one_line(tmp_path: Path) -> None:
    def error(directory: Path, *options: str) -> str:
        done = integrity(directory, *options)
        assert done.returncode == 2 and done.stdout == "", done.stdout + done.stderr
        assert len(done.stderr.splitlines()) == 1, done.stderr
        return done.stderr.strip()

    assert error(tmp_path / "nowhere") == f"arena integrity: error: {tmp_path / 'nowhere'}: no such directory"
    (tmp_path / "file").write_text("x")
    assert error(tmp_path / "file").endswith("file: not a directory")
    assert "neither a tournament's results directory (no results.sqlite) nor a contest server's" in error(tmp_path)
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / STORE_NAME).write_bytes(b"not a database at all" * 100)
    assert "not a results store" in error(damaged)
    four = tmp_path / "four"
    four.mkdir()
    ResultsStore.new(four / STORE_NAME, {"config": {"game": "blocky", "players": 4, "bots": ["a", "b", "c", "d"]}}
                     ).close()
    assert error(four).endswith("a 4-player tournament of blocky; the integrity check judges pairs of players, "
                                "in two-player games")
    assert "--alpha: must be between 0 and 1" in error(tmp_path, "--alpha", "1.5")
