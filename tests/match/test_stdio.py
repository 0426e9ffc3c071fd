"""stdio bots: JSON lines on stdin/stdout, with the same clocks and failure handling."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from arena.launch.processes.process import BotProcess, Limits
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import parse_bot_spec
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.match import link, stdio
from arena.match.onematch import MatchPlan, play_match
from arena.setups import complete_setup
from tests.helpers import FIXTURES, run

BOT = f"stdio:{sys.executable} {FIXTURES / 'stdiobot.py'}"


def test_stdio_bot_plays_full_matches(tmp_path: Path) -> None:
    for seed, seats in enumerate([[BOT + " good", "random"], ["maxblock", BOT + " good"]]):
        result, _ = run("blocking", seats, {"rows": 5, "cols": 6}, seed=seed, log=tmp_path / f"{seed}.msgpack")
        assert result.reason == "blocked" and result.offender is None, result.detail
        log = read_log(tmp_path / f"{seed}.msgpack")
        assert verify(log).ok
        stdio_seat = 0 if seed == 0 else 1
        assert "initialised" in log.output[stdio_seat]  # stderr is captured like any bot's


@pytest.mark.parametrize("mode", ["garbage_line", "array_line", "endless_line",
                                  # found by bench/fuzz/wire_json.py: each took the referee down
                                  "lone_surrogate", "integer_past_64_bits", "float_past_infinity"])
def test_bad_stdio_output_is_a_protocol_violation(mode: str, tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    result, elapsed = run("blocking", ["random", f"{BOT} {mode}"], {"rows": 5, "cols": 6}, log=log)
    assert (result.reason, result.offender) == ("protocol", 1), result.detail
    assert result.ranks == [1, 2]
    assert elapsed < 5
    assert verify(read_log(log)).ok  # the referee wrote its whole log


def test_stdio_bot_that_cannot_start_crashes_cleanly() -> None:
    result, _ = run("blocking", ["stdio:/no/such/program", "random"], {"rows": 3, "cols": 3})
    assert (result.reason, result.offender) == ("crash", 0)
    assert "/no/such/program" in result.detail


READER = """
import sys, time
time.sleep(0.3)  # busy when the long line arrives
line = sys.stdin.buffer.readline()
print("read", len(line), file=sys.stderr, flush=True)
time.sleep(30)
"""


def test_a_line_longer_than_the_pipe_waits_for_the_bot_to_read_it_within_a_grace(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "SEND_GRACE_S", 3.0)
    # More than the pipe holds, enlarged.
    long_line = {"type": "end", "seq": 1, "match": "m", "scores": [], "ranks": [], "reason": "x" * 1_500_000}
    script = tmp_path / "reader.py"
    for reads, grace in ((True, 3.0), (False, 0.3)):
        script.write_text(READER if reads else "import time\ntime.sleep(30)\n")
        monkeypatch.setattr(link, "SEND_GRACE_S", grace)
        process = BotProcess(parse_bot_spec(f"stdio:{sys.executable} {script}", "blocking"), "", "", stdio=True)
        process.start()
        try:
            started = time.monotonic()
            sent = stdio.PipeLink(process).send(long_line)
            waited = time.monotonic() - started
            assert sent is reads and waited < grace + 1.0, (reads, sent, waited)
            if reads:  # the whole line arrived, in one piece
                deadline = time.monotonic() + 10
                while "read" not in process.output_text() and time.monotonic() < deadline:
                    process.drain_output()
                assert f"read {len(stdio.encode_json_line(long_line))}" in process.output_text()
            else:
                assert waited >= grace
        finally:
            process.kill()


UNFLUSHED = """
import json, sys
out = open(1, "w", buffering=65536)  # a full buffer never flushed: a C bot without fflush
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "init":
        out.write(json.dumps({"type": "ready", "seq": message["seq"]}) + "\\n")
"""
LINES_ON_STDIN = """
import sys
for line in sys.stdin:
    pass
"""


def test_a_stdio_bot_that_never_flushes_is_told_so(tmp_path: Path) -> None:
    (tmp_path / "unflushed.py").write_text(UNFLUSHED)
    result, _ = run("blocking", [f"stdio:{sys.executable} {tmp_path / 'unflushed.py'}", "random"],
                          {"rows": 3, "cols": 3}, clock=ClockSettings(budget_ms=300))
    assert (result.reason, result.offender) == ("timeout", 0)
    assert result.detail.endswith("; nothing arrived on its standard output before the deadline (is it flushed?)")
    # the control: a stdio bot that flushes and then thinks too long gets no such hint
    slow, _ = run("blocking", [f"{BOT} slow", "random"], {"rows": 3, "cols": 3}, clock=ClockSettings(budget_ms=300))
    assert slow.reason == "timeout" and "flushed" not in slow.detail, slow.detail


def test_a_stdio_program_started_as_a_zeromq_bot_is_told_what_it_is(tmp_path: Path) -> None:
    (tmp_path / "lines.py").write_text(LINES_ON_STDIN)
    result, _ = run("blocking", [f"exec:{sys.executable} {tmp_path / 'lines.py'}", "random"], {"rows": 3, "cols": 3})
    assert (result.reason, result.offender) == ("crash", 0)
    assert "exited with status 0 at start-up; a ZeroMQ bot (exec:) connects to $ARENA_ENDPOINT and says hello " \
           "first (SPEC.md section 2): a program that reads JSON lines on its standard input is a stdio: bot" \
           in result.detail, result.detail
    # started as what it is, the same program is no crash at start-up
    fine, _ = run("blocking", [f"stdio:{sys.executable} {tmp_path / 'lines.py'}", "random"], {"rows": 3, "cols": 3},
                  clock=ClockSettings(budget_ms=300))
    assert fine.reason == "timeout" and "ZeroMQ" not in fine.detail


RECORDER = """
import json, sys
for raw in sys.stdin.buffer:
    sys.stderr.write("RAW " + raw.hex() + "\\n")
    sys.stderr.flush()
    message = json.loads(raw)
    if message["type"] == "init":
        print(json.dumps({"type": "ready", "seq": message["seq"]}), flush=True)
    elif message["type"] == "turn":
        print(json.dumps({"type": "resign", "seq": message["seq"]}), flush=True)
    elif message["type"] == "bye":
        break
"""


def test_the_referee_writes_compact_utf8_json_one_message_per_line(tmp_path: Path) -> None:
    (tmp_path / "recorder.py").write_text(RECORDER)
    specs = [parse_bot_spec("random", "blocking", display="café-π"),
             parse_bot_spec(f"stdio:{sys.executable} {tmp_path / 'recorder.py'}", "blocking")]
    rules = get_game("blocking")
    log = tmp_path / "m.msgpack"
    play_match(MatchPlan(rules, specs, complete_setup(rules, {"rows": 4, "cols": 4}, 2, 1), 1, ClockSettings(), "m",
                         log, Limits(), Sandbox.NONE))
    lines = [bytes.fromhex(line[4:]) for line in read_log(log).output[1].splitlines() if line.startswith("RAW ")]
    assert len(lines) >= 2 and json.loads(lines[0])["type"] == "init"
    for raw in lines:
        assert raw.endswith(b"\n") and not raw.endswith(b"\r\n") and raw.count(b"\n") == 1
        text = raw.decode("utf-8")
        assert text[:-1] == json.dumps(json.loads(text), separators=(",", ":"), ensure_ascii=False)
    assert "café-π".encode() in lines[0]  # as itself in UTF-8, not \\u escapes


def test_an_sdk_bot_that_cannot_start_says_why_whole_with_no_hint_for_exec_bots(tmp_path: Path) -> None:
    folder = tmp_path / ("a-long-folder-name-" * 6)
    folder.mkdir()
    (folder / "two.py").write_text("from protocol import Bot\n\n\nclass First(Bot):\n    pass\n\n\n"
                                   "class Second(Bot):\n    pass\n")
    result, _ = run("blocking", [str(folder / "two.py"), "random"], {"rows": 3, "cols": 3})
    assert (result.reason, result.offender) == ("crash", 0)
    # Its last line, long with the path twice, is quoted whole: what is wrong and what to do.
    assert f"{folder / 'two.py'} defines 2 Bot subclasses (First, Second)" in result.detail, result.detail
    assert result.detail.endswith(f"name one, {folder / 'two.py'}:First) at start-up"), result.detail
    assert "exec:" not in result.detail  # the hint for programs started as exec: bots is not for it
