"""`arena verify DIR` on a real tournament directory, untouched and tampered with file by file."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from arena.logs.signing import key_id
from arena.tournament.audit.verify import config_fingerprint
from arena.tournament.plan.config import config_from_data
from tests.helpers import badbot
from tests.tournament.helpers import cli, write_config

TOTAL = 3 * 10 * 4  # three pairs, ten setups, four games per pairing


def small_config(path: Path, name: str = "verify") -> Path:
    """A blocking round robin of three reference bots on small boards: 120 matches in a few seconds."""
    return write_config(path, {
        "name": name, "game": "blocking", "seed": 5, "games_per_pairing": 4, "concurrency": 2,
        "bots": ["random", "sequential", "maxblock"], "sandbox": "none",
        "setups": {"random": {"count": 10, "min_size": 4, "max_size": 6}},
    })


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One finished tournament directory, played once for the whole module (copy it before editing)."""
    base = tmp_path_factory.mktemp("played")
    out = base / "out"
    done = cli("tournament", str(small_config(base / "verify.toml")), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture
def copy(played: Path, tmp_path: Path) -> Path:
    """A private copy of the tournament directory."""
    return Path(shutil.copytree(played, tmp_path / "out"))


def verify(directory: Path) -> subprocess.CompletedProcess[str]:
    """Run `arena verify DIR`; it must never show a traceback."""
    done = cli("verify", str(directory))
    assert "Traceback" not in done.stderr, done.stderr
    return done


def problems(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The problem lines (every line but the summary)."""
    return done.stdout.splitlines()[:-1]


def edit_store(directory: Path, *statements: str) -> None:
    """Change the store as a forger would: drop the append-only triggers, then edit."""
    with sqlite3.connect(directory / "results.sqlite") as db:
        db.execute("DROP TRIGGER IF EXISTS matches_no_update")
        db.execute("DROP TRIGGER IF EXISTS matches_no_delete")
        for statement in statements:
            db.execute(statement)
    db.close()


def test_an_untouched_directory_verifies(played: Path) -> None:
    done = verify(played)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [f"verified {TOTAL} matches, {TOTAL} logs: OK"]


def test_the_fingerprint_is_the_configs_own() -> None:
    config = config_from_data({"game": "blocking", "bots": ["random", "sequential"], "seed": 9})
    assert config_fingerprint(json.loads(json.dumps(config.to_data()))) == config.fingerprint()


def test_a_deleted_log(copy: Path) -> None:
    (copy / "logs" / "s0-r0-b0-b1.msgpack").unlink()
    done = verify(copy)
    assert done.returncode == 1
    assert problems(done) == [f"{copy}/logs/s0-r0-b0-b1.msgpack: missing (the row of match s0-r0-b0-b1 says it "
                              "was played)"]
    assert done.stdout.splitlines()[-1] == f"verified {TOTAL} matches, {TOTAL - 1} logs: 1 problem"


def test_a_truncated_log(copy: Path) -> None:
    path = copy / "logs" / "s1-r0-b1-b2.msgpack"
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    done = verify(copy)
    assert done.returncode == 1
    lines = problems(done)
    assert lines and all(line.startswith(f"{path}: ") for line in lines), lines
    assert any("truncated" in line for line in lines), lines
    assert any(line.startswith(f"{path}: signature TRUNCATED: ") for line in lines), lines


def test_a_log_with_a_flipped_byte(copy: Path) -> None:
    path = copy / "logs" / "s2-r1-b0-b2.msgpack"
    data = bytearray(path.read_bytes())
    for at in (len(data) // 2, len(data) - 40):  # the middle, and inside the last record or its mac
        flipped = data.copy()
        flipped[at] ^= 0x01
        path.write_bytes(bytes(flipped))
        done = verify(copy)
        assert done.returncode == 1
        lines = problems(done)
        assert lines and all(str(path) in line or "s2-r1-b0-b2" in line for line in lines), lines
        assert any(line.startswith(f"{path}: signature FORGED: ") for line in lines), lines


def test_logs_signed_with_another_key_are_forged(copy: Path) -> None:
    (copy / "log.key").write_text("ab" * 32 + "\n")  # the logs were signed with another key
    done = verify(copy)
    assert done.returncode == 1
    # one line for the one kind of problem, counted, with the first logs as examples
    [line] = problems(done)
    assert line.startswith(f"{TOTAL} times: signature FORGED: signed by key "), line
    assert line.endswith(f"not by the key it was checked with ({key_id(bytes.fromhex('ab' * 32))}) (e.g. "
                         "s0-r0-b0-b1.msgpack, s0-r0-b1-b0.msgpack, s0-r0-b0-b2.msgpack, ...; --all lists every one)")
    every = cli("verify", str(copy), "--all")
    lines = every.stdout.splitlines()[:-1]
    assert len(lines) == TOTAL and all(": signature FORGED: " in line for line in lines), lines[:3]


def test_a_missing_key(copy: Path) -> None:
    (copy / "log.key").unlink()
    done = verify(copy)
    assert done.returncode == 1
    assert problems(done) == [f"{copy}/log.key: missing, so no log's signature can be checked"]


def test_an_edited_score_in_the_store(copy: Path) -> None:
    row = sqlite3.connect(copy / "results.sqlite").execute(
        "SELECT scores, ranks FROM matches WHERE match = 's0-r0-b0-b2'").fetchone()
    scores, ranks = json.loads(row[0]), json.loads(row[1])
    edit_store(copy, f"UPDATE matches SET scores = '{json.dumps(scores[::-1])}', ranks = '{json.dumps(ranks[::-1])}' "
                     "WHERE match = 's0-r0-b0-b2'")
    done = verify(copy)
    assert done.returncode == 1
    lines = problems(done)
    assert f"match s0-r0-b0-b2: scores {json.dumps([float(s) for s in scores[::-1]])} in the store, " \
           f"{json.dumps([float(s) for s in scores])} in its log" in lines
    assert f"match s0-r0-b0-b2: ranks {json.dumps(ranks[::-1])} in the store, {json.dumps(ranks)} in its log" in lines
    assert any("append-only triggers" in line for line in lines)
    # The reports were written from the honest store: they now disagree with it too.
    csv_ranks = f"; ranks {json.dumps(ranks)} but the store says {json.dumps(ranks[::-1])}"
    assert any(line.startswith(f"{copy}/matches.csv row ") and "(s0-r0-b0-b2): scores" in line and csv_ranks in line
               for line in lines)
    assert any(line.startswith(f"{copy}/standings.json: ") for line in lines)


def test_a_forger_who_restores_the_triggers_is_still_caught(copy: Path) -> None:
    edit_store(copy, "UPDATE matches SET reason = 'timeout', offender = 1 WHERE match = 's3-r1-b1-b0'")
    with sqlite3.connect(copy / "results.sqlite") as db:  # the triggers back, as the store creates them
        db.execute("CREATE TRIGGER matches_no_update BEFORE UPDATE ON matches "
                   "BEGIN SELECT RAISE(ABORT, 'results are append-only'); END")
        db.execute("CREATE TRIGGER matches_no_delete BEFORE DELETE ON matches "
                   "BEGIN SELECT RAISE(ABORT, 'results are append-only'); END")
    done = verify(copy)
    assert done.returncode == 1
    lines = problems(done)
    assert not any("triggers" in line for line in lines)
    assert "match s3-r1-b1-b0: reason timeout in the store, blocked in its log" in lines


def test_an_extra_row_and_a_missing_row(copy: Path) -> None:
    columns = ("ord, round, setup, seed, bots, names, scores, ranks, reason, offender, plies, played, detail, "
               "duration_s, time_used_ms, log, worker, finished")
    with sqlite3.connect(copy / "results.sqlite") as db:  # appending needs no dropped trigger
        db.execute(f"INSERT INTO matches SELECT 's0-r7-b0-b1', {columns} FROM matches WHERE match = 's0-r0-b0-b1'")
    edit_store(copy, "DELETE FROM matches WHERE match = 's4-r1-b2-b1'")
    done = verify(copy)
    assert done.returncode == 1
    lines = problems(done)
    assert "match s0-r7-b0-b1: a result row, but no such match is scheduled" in lines
    assert ("match s4-r1-b2-b1: no result row, but its log exists (a game in flight when the run stopped, or a "
            "row deleted)") in lines
    assert lines[0].startswith(f"incomplete: {TOTAL - 1} of {TOTAL} matches have a result, 1 has none yet "
                               "(s4-r1-b2-b1); the same command with --resume --out ")


def test_an_edited_matches_csv(copy: Path) -> None:
    path = copy / "matches.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    row = rows[17]
    match = row[header.index("match")]
    r0, r1 = header.index("seat0_rank"), header.index("seat1_rank")
    before = [row[r0], row[r1]]
    row[r0], row[r1] = row[r1], row[r0]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(rows)
    done = verify(copy)
    assert done.returncode == 1
    assert problems(done) == [f"{path} row 17 ({match}): ranks [{before[1]}, {before[0]}] but the store says "
                              f"[{before[0]}, {before[1]}]"]


def test_an_edited_standings_json(copy: Path) -> None:
    path = copy / "standings.json"
    data = json.loads(path.read_text())
    first = data["bots"][0]
    first["points"] += 1
    path.write_text(json.dumps(data, indent=1))
    done = verify(copy)
    assert done.returncode == 1
    assert problems(done) == [f"{path}: bots[0] ({first['name']}).points is {first['points']} but the store gives "
                              f"{first['points'] - 1}"]


def test_malformed_values_are_problems_not_tracebacks(copy: Path) -> None:
    edit_store(copy, "UPDATE matches SET scores = '\"lots\"' WHERE match = 's0-r0-b1-b0'")
    done = verify(copy)
    assert done.returncode == 1
    assert "match s0-r0-b1-b0: malformed row: scores" in problems(done)
    standings = cli("standings", str(copy))
    assert standings.returncode == 2 and "Traceback" not in standings.stderr
    assert len(standings.stderr.splitlines()) == 1 and "cannot be scored" in standings.stderr


@pytest.mark.parametrize("kind", ["missing", "empty", "no store"])
def test_not_a_results_directory_exits_2(tmp_path: Path, kind: str) -> None:
    directory = tmp_path / "dir"
    if kind != "missing":
        directory.mkdir()
    if kind == "empty":
        (directory / "results.sqlite").write_bytes(b"")
    done = verify(directory)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and str(directory) in done.stderr, done.stderr


def test_crashes_and_forfeits_verify_and_a_forged_forfeit_does_not(tmp_path: Path) -> None:
    config = write_config(tmp_path / "crash.toml", {
        "name": "crash", "game": "blocking", "games_per_pairing": 8, "concurrency": 1, "sandbox": "none",
        "bots": ["random", "sequential", {"spec": badbot("exit_at_start"), "name": "crasher"}],
        "setups": {"fixed": {"rows": 5, "cols": 5}}, "strikes": {"max_strikes": 3},
    })
    out = tmp_path / "out"
    assert cli("tournament", str(config), "--out", str(out), "--quiet").returncode == 0
    done = verify(out)
    assert done.returncode == 0, done.stdout
    with sqlite3.connect(out / "results.sqlite") as db:
        match, ranks = db.execute("SELECT match, ranks FROM matches WHERE played = 0 ORDER BY rowid").fetchone()
    edit_store(out, f"UPDATE matches SET ranks = '{json.dumps(json.loads(ranks)[::-1])}' WHERE match = '{match}'")
    done = verify(out)
    assert done.returncode == 1
    assert any(line.startswith(f"match {match}: a forfeit") for line in problems(done)), done.stdout
