"""What a bot sent, visible: --trace of every transport, offending bytes quoted, logs never overwritten."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from tests.helpers import FIXTURES, ROOT, require
from tests.tournament.helpers import cli, read_matches, write_config

STDIO_BOT = f"stdio:{sys.executable} {FIXTURES / 'stdiobot.py'}"
ZMQ_RANDOM = f"exec:{sys.executable} -m protocol.run arena.games.blocking.bots.simple:RandomBot"


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120, check=False)


def trace_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_trace_holds_every_message_of_a_match_both_ways(tmp_path: Path) -> None:
    # Against a plain stdio bot: an exec: ZeroMQ bot, a Python bot on its default wire (ZeroMQ),
    # and the same on its pipes (the SDK greets there too).
    for other, wire, via in ((ZMQ_RANDOM, "zeromq", "zmq"), ("random", "", "zmq"), ("random", "pipes", "stdio")):
        trace = tmp_path / f"trace-{via}-{wire}.jsonl"
        done = arena("match", "blocking", other, STDIO_BOT, "--seed", "3", "--set", "rows=5", "--set", "cols=5",
                     "--trace", str(trace), "--json", *(("--transport", wire) if wire else ()), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        result = json.loads(done.stdout)
        lines = trace_lines(trace)
        kinds = Counter((line["seat"], line["dir"], line["message"]["type"]) for line in lines)
        assert {line["via"] for line in lines if line["seat"] == 0} == {via}
        assert {line["via"] for line in lines if line["seat"] == 1} == {"stdio"}
        assert kinds[(0, "from", "hello")] == 1 and kinds[(0, "to", "welcome")] == (via == "zmq")
        assert kinds[(1, "from", "hello")] == 0
        for seat in (0, 1):
            assert kinds[(seat, "to", "init")] == kinds[(seat, "from", "ready")] == 1
            assert kinds[(seat, "to", "turn")] == kinds[(seat, "from", "move")]
            assert kinds[(seat, "to", "end")] == 1 and kinds[(seat, "to", "bye")] == 1
        assert kinds[(0, "from", "move")] + kinds[(1, "from", "move")] == result["plies"]
        assert all(line["match"] == "blocking-3" and line["t"] > 0 for line in lines)


def test_a_stray_line_is_quoted_in_the_failure_the_log_and_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    log = tmp_path / "m.msgpack"
    done = arena("match", "blocking", f"{STDIO_BOT} garbage_line", "random", "--seed", "1", "--log", str(log),
                 "--trace", str(trace), "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["reason"] == "protocol" and result["offender"] == 0
    assert '"this is not json"' in result["detail"], result["detail"]
    shown = arena("replay", str(log), cwd=tmp_path)
    assert "this is not json" in shown.stdout, shown.stdout
    raw = [line for line in trace_lines(trace) if "raw" in line]
    assert raw and raw[0]["raw"] == '"this is not json"' and raw[0]["seat"] == 0


def test_trace_of_a_pascal_module(tmp_path: Path) -> None:
    require("fpc")
    trace = tmp_path / "trace.jsonl"
    done = arena("match", "arrows", f"pascal:{ROOT / 'bots/examples/territory.pas'}", "greedy", "--seed", "2",
                 "--trace", str(trace), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pascal = [line for line in trace_lines(trace) if line["seat"] == 0]
    assert {line["via"] for line in pascal} == {"zmq"}
    assert any(line["dir"] == "from" and line["message"]["type"] == "move" for line in pascal)


def test_tournament_trace_covers_every_match(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "sequential", "maxblock"],
                                                "setups": {"fixed": {"rows": 4, "cols": 4}}, "concurrency": 2})
    done = cli("tournament", str(config), "--out", str(tmp_path / "out"), "--quiet", "--trace", str(trace))
    assert done.returncode == 0, done.stderr
    matches = {row["match"] for row in read_matches(tmp_path / "out")}
    traced = {line["match"] for line in trace_lines(trace)}
    assert matches <= traced and len(matches) == 6


def test_three_same_seed_matches_at_once_leave_three_logs(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "arena.cli", "match", "blocking", "random", "sequential", "--seed", "5"]
    runs = [subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    printed = []
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0, err
        printed.append(next(line.split(": ", 1)[1] for line in out.splitlines() if line.startswith("log: ")))
    assert len(set(printed)) == 3 and len(list((tmp_path / "logs").iterdir())) == 3
    for path in printed:
        verified = arena("replay", path, "--verify", cwd=tmp_path)
        assert verified.returncode == 0, verified.stdout + verified.stderr


def test_an_existing_log_is_never_overwritten_without_force(tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    log.write_bytes(b"precious")
    done = arena("match", "blocking", "random", "random", "--log", str(log), cwd=tmp_path)
    assert done.returncode == 2 and "--force" in done.stderr and log.read_bytes() == b"precious"
    done = arena("match", "blocking", "random", "random", "--log", str(log), "--force", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert log.read_bytes() != b"precious"


def test_a_bot_that_cannot_start_is_a_usage_error_and_writes_no_log(tmp_path: Path) -> None:
    not_executable = tmp_path / "bot.sh"
    not_executable.write_text("#!/bin/sh\n")
    for spec in ("exec:/no/such/program", f"exec:{not_executable}", "stdio:no-such-interpreter bot.js"):
        done = arena("match", "blocking", spec, "random", cwd=tmp_path)
        assert done.returncode == 2, (spec, done.stdout, done.stderr)
        errors = [line for line in done.stderr.splitlines() if "error" in line]
        assert len(errors) == 1 and ("no such program" in errors[0] or "not executable" in errors[0]), done.stderr
        assert "prlimit" not in done.stderr and not (tmp_path / "logs").exists()
