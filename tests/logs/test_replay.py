"""Replay of every game: text view, --at, JSON round trip, verification of edited and cut logs, --bot."""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgpack
import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from arena.logs.matchlog import parse_log, read_log
from arena.logs.replay import render_replay, verify
from arena.viewer.cli import run_replay
from arena.viewer.rerun import seat_requests
from tests.helpers import ROOT, badbot, run
from tests.logs.test_signing import cut_to_timeout, edit_move_time, split, timeout_as_crash
from tests.viewer.matches import GAMES, play, play_with_events, snapshots

NO_CONFIG = ROOT / "tests" / "no-such-config"  # XDG_CONFIG_HOME of the replays here: no user key, none made


@pytest.fixture(autouse=True)
def _no_user_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(NO_CONFIG))


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    directory = tmp_path_factory.mktemp("logs")
    return {game: play(game, directory) for game in GAMES}


def edited(path: Path, change: Any) -> bytes:
    """The JSON dump of a log after change(dump) edited it, as `arena replay --json` would give it."""
    dump = json.loads(json.dumps(read_log(path).to_json_data()))
    change(dump)
    return json.dumps(dump).encode()


def moves_of(dump: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in dump["records"] if r["kind"] == "move"]


def replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "replay", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={**os.environ, "XDG_CONFIG_HOME": str(NO_CONFIG)})


def replay_args(log: Path, **options: Any) -> argparse.Namespace:
    return argparse.Namespace(log=str(log), **{"json": False, "verify": False, "at": None, "bot": [], **options})


@pytest.mark.parametrize("game", GAMES)
def test_log_verifies_and_prints_every_ply(logs: dict[str, Path], game: str) -> None:
    log = read_log(logs[game])
    assert verify(log).ok, verify(log).message
    text = "\n".join(render_replay(log))
    states = snapshots(log)
    assert len(states) == log.plies + 1 >= 3
    rules = get_game(game)
    for state in states:
        assert state.render() in text
    for record in log.moves:  # every mover's move, a simultaneous turn's too
        assert f"ply {record['ply']}: seat {record['seat']}" in text
        assert rules.render_move(record["move"]) in text
    assert "clocks" in text and f"result: reason {log.result['reason']}" in text


@pytest.mark.parametrize("game", GAMES)
def test_at_shows_exactly_that_position(logs: dict[str, Path], game: str) -> None:
    log = read_log(logs[game])
    states = snapshots(log)
    middle = len(states) // 2
    text = "\n".join(render_replay(log, at=middle))
    assert states[middle].render() in text
    assert f"ply {middle}:" in text and f"ply {middle + 1}:" not in text
    assert "result:" not in text
    assert "no ply 999" in "\n".join(render_replay(log, at=999))


@pytest.mark.parametrize("game", GAMES)
def test_edited_move_is_named_at_its_ply(logs: dict[str, Path], game: str) -> None:
    log = read_log(logs[game])
    states = snapshots(log)
    index = len(log.moves) // 2
    record = log.moves[index]
    ply, seat, logged = record["ply"], record["seat"], record["move"]
    # Another legal move, where there is one: the fingerprint must catch what legality cannot.
    others = [m for m in states[ply - 1].moves_of(seat) if m != logged]
    replacement = others[0] if others else "not a move"

    def change(dump: dict[str, Any]) -> None:
        moves_of(dump)[index]["move"] = replacement

    verdict = verify(parse_log(edited(logs[game], change)))
    assert not verdict.ok and verdict.ply == ply, verdict.message
    assert verdict.message.startswith(f"ply {ply}:")


@pytest.mark.parametrize("game", GAMES)
def test_edited_score_and_cut_log_fail(logs: dict[str, Path], game: str) -> None:
    def change(dump: dict[str, Any]) -> None:
        dump["result"]["scores"][0] += 1

    verdict = verify(parse_log(edited(logs[game], change)))
    assert not verdict.ok and "result: scores" in verdict.message
    data = logs[game].read_bytes()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    next(unpacker)  # the header: the cut falls half-way through what follows it
    half = parse_log(data[: (unpacker.tell() + len(data)) // 2])
    verdict = verify(half)
    assert half.truncated and verdict.truncated and not verdict.ok
    played = len(snapshots(half)) - 1  # the plies complete before the cut (a turn cut half-way is not)
    assert f"truncated after ply {played}" in verdict.message
    text = "\n".join(render_replay(half))
    assert "log is truncated" in text and f"{half.plies} plies shown" in text


def test_edited_clock_fails(logs: dict[str, Path]) -> None:
    def change(dump: dict[str, Any]) -> None:
        moves_of(dump)[2]["time_ms"] += 50

    verdict = verify(parse_log(edited(logs["blocking"], change)))
    assert not verdict.ok and verdict.ply == 3 and "clock" in verdict.message


def test_edited_tenten_offer_fails(logs: dict[str, Path]) -> None:
    def change(dump: dict[str, Any]) -> None:
        event = [r for r in dump["records"] if r["kind"] == "event"][1]
        event["event"][1]["offer"][0] = [[0, 0]] if event["event"][1]["offer"][0] != [[0, 0]] else [[0, 0], [1, 0]]

    verdict = verify(parse_log(edited(logs["tenten"], change)))
    assert not verdict.ok and "differs from the seeded generator" in verdict.message


def test_edited_blocky_smash_fails(tmp_path: Path) -> None:
    path = play_with_events("blocky", tmp_path, "smash")
    assert verify(read_log(path)).ok

    def change(dump: dict[str, Any]) -> None:
        event = next(r for r in dump["records"] if r["kind"] == "event" and "smash" in r["event"][1])
        block = event["event"][1]["block"]
        block[0], block[1] = block[1], block[0]
        if block[0] == block[1]:
            block[0] = 0 if block[1] != 0 else 1

    verdict = verify(parse_log(edited(path, change)))
    assert not verdict.ok and "smash" in verdict.message and "seeded generator" in verdict.message


def test_illegal_move_log_verifies_and_its_offender_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "illegal.msgpack"
    result, _ = run("blocking", [badbot("illegal"), "random"], {"rows": 4, "cols": 4}, seed=2, log=path)
    assert result.reason == "illegal"
    assert verify(read_log(path)).ok

    def change(dump: dict[str, Any]) -> None:
        dump["result"]["offender"] = 1

    assert not verify(parse_log(edited(path, change))).ok


def test_cli_json_dump_is_accepted_back(logs: dict[str, Path], tmp_path: Path) -> None:
    dumped = replay(str(logs["tiles"]), "--json")
    assert dumped.returncode == 0, dumped.stderr
    dump = tmp_path / "tiles.json"
    dump.write_text(dumped.stdout)
    assert replay(str(dump), "--verify").returncode == 0
    assert replay(str(dump)).stdout == replay(str(logs["tiles"])).stdout
    data = json.loads(dumped.stdout)
    moves_of(data)[1]["move"] = [0, "x"]
    dump.write_text(json.dumps(data))
    failed = replay(str(dump), "--verify")
    assert failed.returncode == 1 and "FAILED ply 2:" in failed.stdout


def test_run_replay_statuses(logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_replay(replay_args(logs["arrows"], verify=True)) == 0
    assert run_replay(replay_args(logs["arrows"], at=1)) == 0
    assert run_replay(replay_args(logs["arrows"], at=999)) == 2
    cut = tmp_path / "cut.msgpack"
    data = logs["blocking"].read_bytes()
    cut.write_bytes(data[: len(data) * 3 // 4])  # past the header and the first move
    capsys.readouterr()
    assert run_replay(replay_args(cut, verify=True)) == 1
    out = capsys.readouterr().out
    assert "truncated" in out and "ply 1: seat 0" in out
    assert run_replay(replay_args(tmp_path / "missing.msgpack")) == 2


@pytest.mark.parametrize(("game", "bots", "setup"), [
    ("blocky", ["random", "random"], {"turns": 150, "max_depth": 3}),
    ("blocking", ["random", "random"], {"rows": 50, "cols": 50}),
])
def test_long_log_is_small_and_verifies_fast(tmp_path: Path, game: str, bots: list[str], setup: dict) -> None:
    path = tmp_path / "long.msgpack"
    run(game, bots, setup, seed=3, log=path)
    started = time.perf_counter()
    log = read_log(path)
    verdict = verify(log)
    elapsed = time.perf_counter() - started
    plies = len(log.moves)
    assert verdict.ok and plies >= 300, verdict.message
    assert path.stat().st_size * 300 / plies < 64 * 1024, path.stat().st_size
    assert elapsed * 300 / plies < 1.0, elapsed


def test_seat_requests_rebuild_what_the_referee_sent(logs: dict[str, Path]) -> None:
    log = read_log(logs["tenten"])
    requests = seat_requests(log, 0)
    assert requests[0].message["type"] == "init" and requests[0].message["setup"] == log.header["setup"]
    assert requests[0].message["time_left_ms"] == log.header["clock"]["budget_ms"]
    offers = [r["event"] for r in log.records if r["kind"] == "event"]
    sent = [event for request in requests[1:] for event in request.message["events"]]
    assert sent == offers  # every offer reaches the only seat, in order
    assert [r.answer for r in requests[1:]] == [m["move"] for m in log.moves]
    two = read_log(logs["blocking"])
    seat1 = seat_requests(two, 1)
    assert seat1[1].message["events"] == [[0, two.moves[0]["move"]]]
    assert seat1[1].message["time_left_ms"] == int(two.moves[0]["clocks"][1])


@pytest.mark.parametrize("game", GAMES)
def test_rerun_logged_bots_agree(logs: dict[str, Path], game: str, capsys: pytest.CaptureFixture[str]) -> None:
    seats = read_log(logs[game]).header["players"]
    assert run_replay(replay_args(logs[game], bot=[str(s) for s in range(seats)])) == 0
    assert capsys.readouterr().out.count("OK all") == seats


def test_rerun_other_bot_reports_first_difference(logs: dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    log = read_log(logs["blocking"])
    first = log.moves[0]["move"]
    other = "sequential" if first != [0, 0] else "random"
    assert run_replay(replay_args(logs["blocking"], bot=[f"0={other}"])) == 1
    out = capsys.readouterr().out
    assert "DIFFERS ply 1: the bot plays" in out and f"the log has {first!r}" in out
    assert run_replay(replay_args(logs["blocking"], bot=["7=random"])) == 2
    assert run_replay(replay_args(logs["blocking"], bot=["0=nosuchbot"])) == 2


def test_rerun_reads_json_dump(logs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dump = tmp_path / "d.json"
    dump.write_text(json.dumps(read_log(logs["tiles"]).to_json_data()))
    assert run_replay(replay_args(dump, bot=["1"])) == 0
    data = copy.deepcopy(json.loads(dump.read_text()))
    moves_of(data)[1]["move"] = [9, "g"]  # seat 1's first move, as if the bot had played it
    dump.write_text(json.dumps(data))
    assert run_replay(replay_args(dump, bot=["1"])) == 1
    assert "DIFFERS ply 2" in capsys.readouterr().out


# --- what a log says about time and failures must follow from its own records -------------

QUICK = ClockSettings(budget_ms=300, margin_ms=50, startup_ms=5000)


def failed_match(tmp_path: Path, mode: str, seat: int, clock: ClockSettings = QUICK) -> Path:
    """A blocking match in which badbot MODE on seat fails (or not), logged without a key."""
    path = tmp_path / f"{mode}-{seat}-{clock.mode}.msgpack"
    bots = [badbot(mode), "random"] if seat == 0 else ["random", badbot(mode)]
    run("blocking", bots, {"rows": 5, "cols": 5}, seed=2, clock=clock, log=path)
    return path


def reencoded(records: list[dict[str, Any]]) -> bytes:
    return b"".join(msgpack.packb(r, use_bin_type=True) for r in records)


@pytest.mark.parametrize(("mode", "seat", "clock"), [
    ("hang", 1, QUICK), ("hang_at_init", 0, QUICK), ("spin", 0, ClockSettings(budget_ms=300, margin_ms=50, mode="cpu")),
    ("hang", 0, ClockSettings(budget_ms=5000, move_cap_ms=120, increment_ms=7, margin_ms=30)),
    ("crash_mid_game", 1, QUICK), ("crash_at_init", 1, QUICK), ("flood", 1, QUICK), ("malformed", 0, QUICK),
    ("illegal", 1, QUICK), ("no_hello", 0, QUICK), ("twice", 0, QUICK),
])
def test_genuine_failure_logs_verify(tmp_path: Path, mode: str, seat: int, clock: ClockSettings) -> None:
    log = read_log(failed_match(tmp_path, mode, seat, clock))
    verdict = verify(log)
    assert verdict.ok, verdict.message


def test_forgeries_that_contradict_the_log_fail_without_a_key(tmp_path: Path) -> None:
    timeout = failed_match(tmp_path, "hang", 1)
    won = tmp_path / "won.msgpack"
    run("blocking", ["maxblock", "random"], {"rows": 5, "cols": 6}, seed=3, log=won)
    assert read_log(timeout).result["reason"] == "timeout" and read_log(won).result["reason"] == "blocked"
    for path, forgery, message in [
        (timeout, timeout_as_crash, "result: seat 1 used"),
        (won, edit_move_time, "result: seat 0 used"),
        (won, cut_to_timeout, "result: timeout of seat 0 after"),
    ]:
        body, _ = split(path.read_bytes())
        forgery(body)
        verdict = verify(parse_log(reencoded(body)))
        assert not verdict.ok and message in verdict.message, (forgery.__name__, verdict.message)


def test_timeout_and_init_contradictions_fail(tmp_path: Path) -> None:
    body, _ = split(failed_match(tmp_path, "hang", 1).read_bytes())
    result = next(r for r in body if r["kind"] == "result")
    result["offender"] = 0  # seat 1 was to move
    result["scores"], result["ranks"] = [0.0, 1.0], [2, 1]
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "timeout of seat 0, but seat 1 was to move" in verdict.message
    body, _ = split(failed_match(tmp_path, "hang", 1).read_bytes())
    ready = next(r for r in body if r["kind"] == "ready" and r["seat"] == 1)
    body.remove(ready)
    next(r for r in body if r["kind"] == "end")["records"] -= 1
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "seat(s) [1] never answered init" in verdict.message
    body, _ = split(failed_match(tmp_path, "hang", 1).read_bytes())
    body.insert(2, dict(body[1]))  # a second ready of the same seat
    next(r for r in body if r["kind"] == "end")["records"] += 1
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "answered init twice" in verdict.message
    body, _ = split(failed_match(tmp_path, "hang", 1).read_bytes())
    del next(r for r in body if r["kind"] == "result")["time_used_ms"]
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "no time_used_ms" in verdict.message


@pytest.mark.parametrize(("game", "setup"), [("blocking", {"rows": 5, "cols": 5}), ("tenten", {"size": 6})])
def test_the_rebuilt_requests_equal_the_messages_the_referee_sent(tmp_path: Path, game: str, setup: dict) -> None:
    """One set of message builders: `arena replay --bot` sends every seat exactly what the referee sent."""
    log, trace = tmp_path / "m.msgpack", tmp_path / "trace.jsonl"
    bots = ["random", "random"] if game == "blocking" else ["greedy"]
    out = subprocess.run([sys.executable, "-m", "arena.cli", "match", game, *bots, "--seed", "4", "--log", str(log),
                          "--trace", str(trace), *[f"--set={k}={v}" for k, v in setup.items()]],
                         capture_output=True, text=True, check=False, timeout=120)
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    for seat in range(len(bots)):
        sent = [line["message"] for line in lines if line["seat"] == seat and line["dir"] == "to"
                and line["message"]["type"] in ("init", "turn")]
        rebuilt = [request.message for request in seat_requests(read_log(log), seat)]
        assert [{k: v for k, v in m.items() if k != "seq"} for m in sent] == \
               [{k: v for k, v in m.items() if k != "seq"} for m in rebuilt]
        assert len(sent) >= 2
