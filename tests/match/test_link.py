"""The link contract: the referee knows seats' links, not sockets; any wire that keeps the contract plays.

A link of this file's own (a bot thread behind a socket pair, with no process) stands for
a wire the arena does not have yet: a bot on another machine that may lose its link and
come back, and whose network time is not charged.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from arena.clock import ClockSettings
from arena.games import get_game
from arena.games.blocking.bots.simple import SequentialBot
from arena.match.link import Inbox, InboxLink, LinkState, Via
from arena.match.player import Player
from arena.match.referee import Referee
from arena.setups import complete_setup
from protocol.codec import decode_json_line, encode_json_line
from protocol.run import answer
from tests.helpers import ROOT

MATCH_PACKAGE = ROOT / "arena" / "match"
BOARD = {"rows": 5, "cols": 5}


def imported_modules(path: Path) -> set[str]:
    """Every module a source file imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_referee_imports_no_zmq() -> None:
    assert not {m for m in imported_modules(MATCH_PACKAGE / "referee.py") if m.split(".")[0] == "zmq"}
    # Nor does any link of the match layer: ZeroMQ seats speak ZMTP themselves (protocol/zmtp.py).
    # The one exception is the listener of remote seats (CURVE over TCP is libzmq's), loaded only
    # by a match that has a remote seat.
    for path in MATCH_PACKAGE.glob("*.py"):
        if path.name != "listener.py":
            assert not {m for m in imported_modules(path) if m.split(".")[0] == "zmq"}, path


MATCH_IN_A_FRESH_PROCESS = """
import gc, json, os, sys
from arena.api import play_match
from arena.match import hub

made = []  # every ipc folder a hub makes, looked at while it exists
expect = hub.Hub.expect


def counted(self, *args):
    link = expect(self, *args)
    made.append(os.path.isdir(self.directory))
    return link


hub.Hub.expect = counted
result = play_match("blocking", ["random", "sequential"], setup={"rows": 5, "cols": 5}, seed=3, sandbox="none",
                    transport=sys.argv[1], trace=sys.argv[2])
contexts = 0
if "zmq" in sys.modules:  # the command's other parts may load pyzmq; no match may make a context
    import zmq
    contexts = sum(isinstance(o, zmq.Context) for o in gc.get_objects())
print(json.dumps({"reason": result["reason"], "zmq_contexts": contexts, "seats_made": sum(made),
                  "hub_dirs": [n for n in os.listdir(os.environ["TMPDIR"]) if n.startswith("arena-hub-")]}))
"""


def test_a_pipes_only_match_makes_no_zeromq_object_and_no_ipc_folder(tmp_path: Path) -> None:
    seen = {}
    for wire in ("pipes", "zeromq"):
        tmp = tmp_path / wire
        tmp.mkdir()
        trace = tmp_path / f"{wire}.jsonl"
        done = subprocess.run([sys.executable, "-c", MATCH_IN_A_FRESH_PROCESS, wire, str(trace)], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120, check=False,
                              env={**os.environ, "TMPDIR": str(tmp), "PYTHONPATH": str(ROOT)})
        assert done.returncode == 0, done.stderr
        seen[wire] = json.loads(done.stdout.splitlines()[-1])
        assert seen[wire]["reason"] == "blocked"
        vias = {json.loads(line)["via"] for line in trace.read_text().splitlines()}
        assert vias == {"stdio" if wire == "pipes" else "zmq"}
    # Pipes: no ZeroMQ socket, context or ipc folder was made.
    assert seen["pipes"] == {"reason": "blocked", "zmq_contexts": 0, "seats_made": 0, "hub_dirs": []}
    # ZeroMQ: a seat each, in a folder removed afterwards; the seats speak ZMTP themselves, without libzmq.
    assert seen["zeromq"] == {"reason": "blocked", "zmq_contexts": 0, "seats_made": 2, "hub_dirs": []}


class ThreadLink(InboxLink):
    """A link of the test's own: the bot runs in a thread behind a socket pair, no process.

    It stands for a wire on another machine (via REMOTE) unless told which wire it is.
    """

    endpoint = "socketpair"
    token = ""

    def __init__(self, bot: Any, grace_ms: float = 0.0, script: dict[int, str] | None = None,
                 via: Via = Via.REMOTE) -> None:
        self.name = "thread"
        self.via = via
        self.grace_ms = grace_ms
        self.tap = None
        self.received = self.ignored = 0
        self._inbox = Inbox()
        self.away = False
        self.gone = False
        self.stop = threading.Event()
        self.script = script or {}  # turn number -> "vanish" | "blink" | "slow"; 0 -> "mute"
        self.ours, theirs = socket.socketpair()
        self.ours.setblocking(False)
        self.thread = threading.Thread(target=self._serve, args=(bot, theirs), daemon=True)
        self.thread.start()

    @property
    def state(self) -> LinkState:
        if self.gone:
            return LinkState.GONE
        if self._inbox.violation:
            return LinkState.VIOLATED
        return LinkState.AWAY if self.away else LinkState.CONNECTED

    def fds(self) -> list[int]:
        return [self.ours.fileno()]

    def send(self, message: dict[str, Any]) -> bool:
        try:
            self.ours.sendall(encode_json_line(message))
        except OSError:
            return False
        return True

    def pump(self) -> None:
        try:
            data = self.ours.recv(65536)
        except BlockingIOError:
            return
        if not data:
            self.gone = True
            return
        for line in data.splitlines():
            self._inbox.messages.append(decode_json_line(line))
            self.received += 1

    def close(self) -> None:
        self.stop.set()
        self.ours.close()

    def _serve(self, bot: Any, sock: socket.socket) -> None:
        turns = 0
        with sock, sock.makefile("rb") as lines:
            for line in lines:
                msg = decode_json_line(line)
                if msg["type"] == "bye":
                    return
                if self.script.get(0) == "mute":  # never a line back
                    continue
                if msg["type"] == "turn":
                    turns += 1
                    act = self.script.get(turns, "")
                    if act == "vanish":  # the link is lost and never comes back
                        self.away = True
                        self.stop.wait(30)
                        return
                    if act == "blink":  # lost for a moment, back before the deadline
                        self.away = True
                        time.sleep(0.15)
                        self.away = False
                    if act == "slow":  # the wire is slow: 150 ms on the way, within the grace
                        time.sleep(0.15)
                reply = answer(bot, msg["type"], msg)
                if reply is not None:
                    try:
                        sock.sendall(encode_json_line(reply))
                    except OSError:  # the referee is done with this seat
                        return


def referee_match(links: list[ThreadLink], clock: ClockSettings) -> Any:
    game = get_game("blocking")
    players = [Player(f"bot{i}", link, None) for i, link in enumerate(links)]
    setup = complete_setup(game, BOARD, 2, 1)
    try:
        return Referee(players, game, setup, 1, clock, "contract").run()
    finally:
        for link in links:
            link.close()


def test_a_seat_that_loses_its_link_for_good_fails_as_disconnect_at_its_deadline() -> None:
    clock = ClockSettings(budget_ms=600, margin_ms=100)
    started = time.monotonic()
    result = referee_match([ThreadLink(SequentialBot(), script={2: "vanish"}), ThreadLink(SequentialBot())], clock)
    assert (result.reason, result.offender) == ("disconnect", 0), result.detail
    assert result.detail.startswith("connection lost and not restored: no move within"), result.detail
    assert result.scores == [0.0, 1.0]  # charged to the seat that left, never to the other
    assert time.monotonic() - started >= 0.1  # it was waited for, not failed at once


def test_a_seat_back_before_its_deadline_plays_on() -> None:
    clock = ClockSettings(budget_ms=5000, margin_ms=100)
    result = referee_match([ThreadLink(SequentialBot(), script={1: "blink"}), ThreadLink(SequentialBot())], clock)
    assert result.reason == "blocked" and result.offender is None, result.detail


def test_the_wires_grace_is_not_charged() -> None:
    # Each reply takes 150 ms on the way; a 100 ms cap with a 200 ms grace is never overrun.
    clock = ClockSettings(budget_ms=10_000, margin_ms=10, move_cap_ms=100)
    slow = {turn: "slow" for turn in range(1, 20)}
    result = referee_match([ThreadLink(SequentialBot(), grace_ms=200, script=slow),
                            ThreadLink(SequentialBot())], clock)
    assert result.reason == "blocked" and result.offender is None, result.detail
    assert result.time_used_ms[0] < 100, result.time_used_ms  # the 150 ms per move were the wire's
    # Without the grace the same wire loses on time.
    result = referee_match([ThreadLink(SequentialBot(), script=slow), ThreadLink(SequentialBot())], clock)
    assert (result.reason, result.offender) == ("timeout", 0), result.detail


def test_the_referee_asks_the_link_which_wire_it_is() -> None:
    # A silent bot on pipes is told to flush its output: the link says it is one (via), whatever
    # its endpoint; the same silence on another wire gets no such hint.
    clock = ClockSettings(budget_ms=200, margin_ms=50)
    hinted = "nothing arrived on its standard output before the deadline (is it flushed?)"
    pipes = referee_match([ThreadLink(SequentialBot(), script={0: "mute"}, via=Via.STDIO),
                           ThreadLink(SequentialBot())], clock)
    assert (pipes.reason, pipes.offender) == ("timeout", 0) and pipes.detail.endswith(hinted), pipes.detail
    remote = referee_match([ThreadLink(SequentialBot(), script={0: "mute"}), ThreadLink(SequentialBot())], clock)
    assert (remote.reason, remote.offender) == ("timeout", 0) and "flushed" not in remote.detail, remote.detail
