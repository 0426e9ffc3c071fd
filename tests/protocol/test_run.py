"""The Python SDK's serve loops: over ZeroMQ (how the arena starts Python bots) and on the bot's own pipes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.specs.botspec import Wire
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import ROOT, run

BOARD = {"rows": 4, "cols": 5}

# A Blocking bot that plays the first free cell; {before} runs at import, {turn} at every turn.
TEMPLATE = """
import os, sys, time
from protocol.bot import Bot
{before}

class First(Bot):
    def init_game(self, game, seat, players, setup, time_left_ms, match):
        print("init of seat", seat, "names", self.names, "match", match)
        self.free = {{(r, c) for r in range(setup["rows"]) for c in range(setup["cols"])}}

    def turn(self, events, time_left_ms):
        {turn}
        for _, (r, c) in events:
            self.free -= {{(r + a, c + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}}
        r, c = min(self.free)
        self.free -= {{(r + a, c + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}}
        return [r, c]
"""


def bot_file(tmp_path: Path, before: str = "", turn: str = "pass") -> str:
    path = tmp_path / "first.py"
    path.write_text(TEMPLATE.format(before=before, turn=turn))
    return str(path)


@pytest.mark.parametrize("wire", list(Wire))
def test_a_python_bot_plays_and_what_it_prints_or_reads_is_its_own(tmp_path: Path, wire: Wire) -> None:
    bot = bot_file(tmp_path, before='print("printed at import")',
                   turn='print("stdin gave", repr(sys.stdin.read()))')
    log = tmp_path / "m.msgpack"
    result, _ = run("blocking", [bot, "random"], BOARD, log=log, wire=wire)
    assert (result.reason, result.offender) == ("blocked", None), result.detail
    match = read_log(log)
    assert verify(match).ok
    output = match.output[0]
    # Prints went to the captured output, not into the protocol; stdin is empty, not the referee's lines.
    assert "printed at import" in output and "init of seat 0" in output, output
    assert "stdin gave ''" in output, output
    # The SDK hands the bot what init carried: the players' names (revealed here) and the opaque id.
    assert f"names {match.names} match {match.header['bot_match']}" in output, output


@pytest.mark.parametrize("wire", list(Wire))
def test_a_python_bots_start_up_is_not_charged_to_its_clock(tmp_path: Path, wire: Wire) -> None:
    slow = bot_file(tmp_path, before="time.sleep(1.0)")  # a heavy import, say
    clock = ClockSettings(budget_ms=300, margin_ms=100)
    result, _ = run("blocking", [slow, "random"], BOARD, clock=clock, wire=wire)
    assert (result.reason, result.offender) == ("blocked", None), result.detail
    tight = ClockSettings(budget_ms=300, margin_ms=100, startup_ms=400)
    result, _ = run("blocking", [slow, "random"], BOARD, clock=tight, wire=wire)
    assert (result.reason, result.offender) == ("protocol", 0), result.detail
    assert "no valid hello within 400 ms" in result.detail


def test_a_line_forged_before_the_hello_breaks_the_protocol(tmp_path: Path) -> None:
    # The bot finds the SDK's protocol pipe (a write-only pipe above stderr) and writes a move before its hello.
    forge = """
for fd in sorted(int(n) for n in os.listdir("/proc/self/fd")):
    try:
        flags = int(open(f"/proc/self/fdinfo/{fd}").read().split("flags:")[1].split()[0], 8)
        if fd > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:") and flags & 3 == 1:
            os.write(fd, b'{"type": "move", "seq": 1, "move": [0, 0]}\\n')
    except OSError:
        pass
"""
    result, _ = run("blocking", [bot_file(tmp_path, before=forge), "random"], BOARD, wire=Wire.PIPES)
    assert (result.reason, result.offender) == ("protocol", 0), result.detail
    assert "first line must be a hello, not a 'move'" in result.detail, result.detail


def test_the_sdk_started_by_hand_serves_over_zeromq(tmp_path: Path) -> None:
    bot = bot_file(tmp_path)
    zmq_bot = f"exec:{sys.executable} -m protocol.run {bot}"
    random_bot = f"exec:{sys.executable} -m protocol.run arena.games.blocking.bots.simple:RandomBot"
    result, _ = run("blocking", [zmq_bot, random_bot], BOARD, log=tmp_path / "m.msgpack")
    assert (result.reason, result.offender) == ("blocked", None), result.detail
    assert "init of seat 0" in read_log(tmp_path / "m.msgpack").output[0]
    # Started by hand with neither an endpoint nor --stdio, it says what it needs.
    done = subprocess.run([sys.executable, "-m", "protocol.run", bot], capture_output=True, text=True, cwd=ROOT,
                          timeout=60, check=False, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2 and "ARENA_ENDPOINT and ARENA_TOKEN must be set" in done.stderr, done.stderr


BROKEN = {
    "syntax": ("from protocol.bot import Bot\nclass Broken(Bot)\n    pass\n", "broken.py, line 2: SyntaxError: "),
    "import": ("from protocol.bot import Bot\nimport no_such_module_here\n",
               "broken.py, line 2: ModuleNotFoundError: No module named 'no_such_module_here'"),
    "constructor": ("from protocol.bot import Bot\nclass Broken(Bot):\n    def __init__(self, **options):\n"
                    "        super().__init__(**options)\n        self.table = {}['weights']\n",
                    "broken.py, line 5: KeyError: 'weights'"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_a_bot_that_cannot_load_names_its_file_and_line_in_the_result(tmp_path: Path, kind: str) -> None:
    source, where = BROKEN[kind]
    (tmp_path / "broken.py").write_text(source)
    result, _ = run("blocking", [str(tmp_path / "broken.py"), "random"], BOARD)
    assert (result.reason, result.offender, result.plies) == ("crash", 0, 0)
    assert f"(cannot start bot: {where}" in result.detail, result.detail
    assert "at start-up" in result.detail
