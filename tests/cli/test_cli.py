"""The `arena` command line, run as a user would (a real subprocess)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgpack
import pytest

from tests.helpers import FIXTURES, ROOT


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def scripted(moves: str) -> str:
    return f"exec:{sys.executable} -m protocol.run {FIXTURES / 'scripted.py'} -o moves={moves}"


def test_json_output_has_exactly_the_documented_keys(tmp_path: Path) -> None:
    out = arena("match", "blocking", "maxblock", "random", "--set", "rows=8", "--set", "cols=8", "--json",
                "--log", str(tmp_path / "m.msgpack"))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert set(result) == {"game", "players", "scores", "ranks", "reason", "offender", "detail", "plies", "log", "seed"}
    assert result["game"] == "blocking" and result["reason"] == "blocked" and result["offender"] is None
    assert sorted(result["ranks"]) == [1, 2] and result["plies"] > 0
    assert Path(result["log"]).exists()


def test_same_seed_same_random_board(tmp_path: Path) -> None:
    results = [
        json.loads(arena("match", "blocking", "sequential", "maxblock", "--seed", "4", "--set", "density=0.1",
                         "--json", "--log", str(tmp_path / f"{i}.msgpack")).stdout)
        for i in range(2)
    ]
    assert results[0]["plies"] == results[1]["plies"] and results[0]["scores"] == results[1]["scores"]
    headers = [msgpack.Unpacker(open(tmp_path / f"{i}.msgpack", "rb"), raw=False).unpack() for i in range(2)]
    assert headers[0]["setup"] == headers[1]["setup"]


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["match", "chess", "random", "random"], "unknown game 'chess'"),
        (["match", "blocking", "random", "nosuchbot"], "unknown bot 'nosuchbot'"),
        (["match", "blocking", "random", "random", "--set", "rows=abc"], "rows must be an integer"),
        (["match", "blocking", "random", "random", "--set", "rows"], "expected KEY=VALUE"),
        (["match", "blocking", "random", "random", "--setup", "no/such/file.json"], "cannot read setup file"),
        (["match", "blocking", "random"], "players must be 2"),
        (["match", "blocking", "random", "random", "--seed", "-3"], "must not be negative"),
        (["match", "blocking", "random", "random", "--budget-ms", "x"], "is not an integer"),
        (["match", "blocking", "missing.py", "random"], "no such bot file"),
        (["match", "arrows", "alphabeta:node=5", "random"],
         "bad options for alphabeta:node=5: unknown option 'node' (options of alphabeta: nodes, seed=0)"),
        (["match", "arrows", "alphabeta:nodes=0", "random"], "nodes must be a positive integer, got 0"),
        (["replay", "no/such/log"], "cannot read"),
        (["bots", "chess"], "unknown game"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], fragment: str) -> None:
    out = arena(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert fragment in lines[0]
    assert "Traceback" not in out.stderr


def test_bad_setup_file_content(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"rows": 3, "cols": 3, "blocked": [[9, 9]]}')
    out = arena("match", "blocking", "random", "random", "--setup", str(bad))
    assert out.returncode == 2 and "blocked[0] = [9, 9] is off the 3x3 board" in out.stderr
    bad.write_text("{not json")
    out = arena("match", "blocking", "random", "random", "--setup", str(bad))
    assert out.returncode == 2 and "bad.json" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_set_overrides_setup_file(tmp_path: Path) -> None:
    setup = tmp_path / "s.toml"
    setup.write_text("rows = 3\ncols = 3\n")
    log = tmp_path / "m.msgpack"
    out = arena("match", "blocking", "sequential", "sequential", "--setup", str(setup), "--set", "cols=1",
                "--json", "--log", str(log))
    assert out.returncode == 0, out.stderr
    header = msgpack.Unpacker(open(log, "rb"), raw=False).unpack()
    assert header["setup"] == {"rows": 3, "cols": 1, "blocked": []}


def test_games_and_bots_listings() -> None:
    games = arena("games")
    assert games.returncode == 0 and "blocking" in games.stdout
    bots = arena("bots", "blocking")
    names = [line.split()[1] for line in bots.stdout.splitlines()]
    assert {"sequential", "random", "maxblock"} <= set(names)
    # Each bot's options, with their defaults, from its constructor.
    lines = {line.split()[1]: line for line in arena("bots", "tenten").stdout.splitlines()}
    assert lines["lookahead"].endswith("(options: max_width=512, samples=8, candidates=4, seed=0)")
    assert lines["random"].endswith("(options: seed=0)")


def test_replay_prints_boards_and_verify_catches_tampering(tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    assert arena("match", "blocking", "random", "maxblock", "--set", "rows=4", "--set", "cols=6",
                 "--log", str(log), "--seed", "2").returncode == 0
    replay = arena("replay", str(log))
    assert replay.returncode == 0 and "ply 1: seat 0 (random) plays row" in replay.stdout
    assert "result: reason blocked" in replay.stdout
    dump = arena("replay", str(log), "--json")
    data = json.loads(dump.stdout)
    data["records"][[r["kind"] for r in data["records"]].index("move")]["move"] = [99, 99]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    verdict = arena("replay", str(edited), "--verify")
    assert verdict.returncode == 1 and "ply 1" in verdict.stdout and "not legal" in verdict.stdout
    data = json.loads(dump.stdout)
    data["result"]["scores"] = list(reversed(data["result"]["scores"]))
    edited.write_text(json.dumps(data))
    verdict = arena("replay", str(edited), "--verify")
    assert verdict.returncode == 1 and "scores" in verdict.stdout


@pytest.mark.parametrize("command", ["games", "bots", "bots blocking", "match --help"])
def test_a_reader_that_leaves_early_gets_no_traceback(command: str) -> None:
    line = f"{sys.executable} -m arena.cli {command} | head -1; echo \"status ${{PIPESTATUS[0]}}\""
    out = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stderr == "" and len(out.stdout.splitlines()) == 2, out
    assert out.stdout.splitlines()[-1] in ("status 0", "status 141")


def test_a_long_replay_into_head_stops_quietly(tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    assert arena("match", "arrows", "greedy", "random", "--seed", "2", "--set", "cols=30", "--set", "rows=30",
                 "--log", str(log)).returncode == 0
    line = f"{sys.executable} -m arena.cli replay {log} | head -2; echo \"status ${{PIPESTATUS[0]}}\""
    out = subprocess.run(["bash", "-c", line], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stderr == "" and out.stdout.splitlines()[-1] in ("status 0", "status 141"), out


def test_version_and_help_with_defaults_and_every_bot_form() -> None:
    version = arena("--version")
    assert version.returncode == 0 and version.stdout.startswith("arena ")
    text = " ".join(arena("match", "--help").stdout.split())
    for form in ("name:key=value", "path/bot.py", "module:Class", "exec:COMMAND", "stdio:COMMAND",
                 "pascal:PATH/unit.pas"):
        assert form in text
    assert "(default: 10000)" in text and "(default: wall)" in text and "(default: None)" not in text


@pytest.mark.parametrize("value", ["0", "-5"])
def test_one_wording_for_a_number_that_must_be_positive(value: str) -> None:
    out = arena("match", "blocking", "random", "random", "--budget-ms", value)
    assert out.returncode == 2 and out.stderr.strip().endswith(f"argument --budget-ms: '{value}' must be positive")


def test_games_lists_aligned_columns_and_singular_players() -> None:
    out = arena("games").stdout.splitlines()
    lines = [line for line in out if not line.startswith(" ")]  # a game's line, then its folder and its bots
    assert any("  1 player  " in line for line in lines) and not any("1 players" in line for line in lines)
    starts = {line.index(" v1") for line in lines if ":SPEC  " not in line}  # a family's line has no version
    assert len(starts) == 1  # the version column starts at the same place on every game's line
    assert len([line for line in out if line.strip().startswith("folder: ")]) == len(lines)
    assert len([line for line in out if line.strip().startswith("bots: ")]) == len(lines)


def test_view_without_html_writes_beside_the_log(tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    assert arena("match", "blocking", "random", "random", "--log", str(log)).returncode == 0
    out = arena("view", str(log))
    assert out.returncode == 0 and (tmp_path / "m.html").read_text().lower().startswith("<!doctype html>")


def test_display_names_for_a_match_and_a_series(tmp_path: Path) -> None:
    one = arena("match", "blocking", "random", "random", "--name", "v6", "--name", "v7", "--json",
                "--set", "rows=3", "--set", "cols=3", "--log", str(tmp_path / "m.msgpack"))
    assert one.returncode == 0 and json.loads(one.stdout)["players"] == ["v6", "v7"]
    assert "v6" in arena("replay", str(tmp_path / "m.msgpack")).stdout
    series = arena("match", "blocking", "random", "random", "--name", "v6", "--name", "v7", "--games", "2",
                   "--quiet", "--out", str(tmp_path / "s"))
    assert series.returncode == 0 and series.stdout.startswith("Score of v6 vs v7: ")
    wrong = arena("match", "blocking", "random", "random", "--name", "v6")
    assert wrong.returncode == 2 and "give one per BOT (2), not 1" in wrong.stderr


def test_a_registered_bot_option_of_the_wrong_type_is_refused() -> None:
    out = arena("match", "blocking", "random:seed=x", "random")
    assert out.returncode == 2 and 'option seed must be an integer, not "x"' in out.stderr
