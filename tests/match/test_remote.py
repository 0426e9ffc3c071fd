"""Remote seats: bots on other machines over TCP with CURVE (arena/match/remote.py, listener.py; SPEC.md section 13).

Real processes on real TCP (127.0.0.1, a free port), real CURVE: the remote bot is
tests/fixtures/remote_bot.py, written from SPEC alone with pyzmq and msgpack, with its own keys.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import msgpack
import pytest
import zmq
import zmq.auth

from arena.api import play_match as api_play_match
from arena.clock import ClockSettings
from arena.games import get_game
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import parse_bot_spec
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.match.link import LinkState
from arena.match.listener import Listener
from arena.match.onematch import MatchPlan, play_match
from arena.match.remote import (
    DEFAULT_GRACE_MS,
    JITTER_MS,
    JITTER_SHARE,
    RemoteSettings,
    peer_name,
    tcp_round_trip_ms,
    uncharged_ms,
)
from arena.match.result import MatchResult
from arena.setups import complete_setup
from protocol.keys import new_key_pair
from tests.helpers import FIXTURES, ROOT, free_port, run, wait_until

REMOTE_BOT = FIXTURES / "remote_bot.py"
SLEEPER = FIXTURES / "sleeper.py"  # 900 ms of wall time (no CPU) before each move
SETUP = {"rows": 4, "cols": 4}
BOARD = {"rows": 8, "cols": 8}  # long enough for a bot to run out of time


@dataclass
class Keys:
    """The referee's key pair and the bots' (alice is allowed; mallory is not)."""

    folder: Path

    def public(self, name: str) -> Path:
        return self.folder / f"{name}.key"

    def secret(self, name: str) -> Path:
        return self.folder / f"{name}.key_secret"


@pytest.fixture
def keys(tmp_path: Path) -> Keys:
    folder = tmp_path / "keys"
    folder.mkdir()
    for name in ("referee", "alice", "mallory"):
        new_key_pair(name, folder)
    return Keys(folder)


def free_endpoint() -> str:
    return f"tcp://127.0.0.1:{free_port()}"


@pytest.fixture
def clients(children: list[subprocess.Popen[str]]) -> list[subprocess.Popen[str]]:
    """The remote bots a test starts (killed and reaped after it)."""
    return children


def start(clients: list[subprocess.Popen[str]], endpoint: str, keys: Keys, mode: str, name: str = "alice",
          ply: int = 0, argv: list[str] | None = None) -> subprocess.Popen[str]:
    """A remote bot in its own process: the SPEC-alone fixture (or argv), with its own keys."""
    command = argv or [sys.executable, str(REMOTE_BOT), endpoint, str(keys.public("referee")),
                       str(keys.secret(name)), mode, str(ply)]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    clients.append(process)
    return process


def match(endpoint: str, keys: Keys, budget_ms: int = 5000, startup_ms: int = 5000, grace_ms: int = 200,
          trace: Path | None = None, log_path: Path | None = None, setup: dict | None = None) -> MatchResult:
    """remote:alice against maxblock on a listener allowing alice's key only."""
    game = get_game("blocking")
    bots = [parse_bot_spec("remote:alice", "blocking"), parse_bot_spec("maxblock", "blocking")]
    plan = MatchPlan(game, bots, complete_setup(game, setup or SETUP, 2, 3), 3,
                     ClockSettings(budget_ms=budget_ms, startup_ms=startup_ms), "remote-test", sandbox=Sandbox.NONE,
                     trace_path=trace, log_path=log_path,
                     remote=RemoteSettings(endpoint, (str(keys.public("alice")),), str(keys.secret("referee")),
                                           network_grace_ms=grace_ms))
    return play_match(plan)


def finish(process: subprocess.Popen[str], timeout: float = 10) -> tuple[int, str]:
    _, err = process.communicate(timeout=timeout)
    return process.returncode, err


def test_a_remote_bot_from_spec_alone_plays_a_match(tmp_path: Path, keys: Keys,
                                                     clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "play")
    trace = tmp_path / "trace.jsonl"
    result = api_play_match("blocking", ["remote:alice", "maxblock"], setup=SETUP, seed=3, sandbox="none",
                            budget_ms=5000, log=tmp_path / "m.msgpack", trace=trace, listen=endpoint,
                            allow=[keys.public("alice")], server_key=keys.secret("referee"))
    assert result["reason"] in ("normal", "blocked") and result["offender"] is None and result["plies"] > 0
    assert finish(bot)[0] == 0  # it got its `bye`
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {line["via"] for line in lines if line["seat"] == 0} == {"remote"}
    moves = [line["message"] for line in lines if line["seat"] == 0 and line["dir"] == "from"]
    assert [m["type"] for m in moves][:2] == ["hello", "ready"] and any(m["type"] == "move" for m in moves)
    assert moves[0]["token"] == "" and moves[0]["name"] == "alice"


def test_unknown_key_and_no_curve_get_nothing_and_the_seat_fails_as_disconnect(
        keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    stranger = start(clients, endpoint, keys, "refused", name="mallory", ply=2500)  # a key not allowed
    plain = start(clients, endpoint, keys, "nocurve", ply=2500)  # no CURVE at all, alice's name
    result = match(endpoint, keys, startup_ms=1500)
    assert (result.reason, result.offender) == ("disconnect", 0)
    assert "no connection within 1500 ms" in result.detail
    assert result.scores == [0.0, 1.0] and result.time_used_ms[1] == 0  # the opponent is not charged
    for process, attack in ((stranger, "refused"), (plain, "nocurve")):
        code, err = finish(process)
        assert code == 0 and f"ATTACK {attack}: blocked" in err, err


def test_a_bot_that_drops_its_connection_and_returns_in_time_plays_on(
        keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "drop", ply=2)
    result = match(endpoint, keys)
    assert result.reason in ("normal", "blocked") and result.offender is None, result.detail
    code, err = finish(bot)
    assert code == 0 and "dropped the connection at turn 2" in err
    # The outage is the bot's time: its clock paid for the reconnection (the fixture waits 0.3 s).
    assert result.time_used_ms[0] >= 300 - 200


def test_a_bot_that_does_not_return_loses_by_disconnect_charged_to_nobody_else(
        tmp_path: Path, keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "vanish", ply=2)
    started = time.monotonic()
    result = match(endpoint, keys, budget_ms=1000, grace_ms=200, log_path=tmp_path / "match.msgpack")
    assert (result.reason, result.offender) == ("disconnect", 0), result.detail
    # The wait it was charged is in its result, not in a record: the log re-simulates (arena verify).
    verdict = verify(read_log(tmp_path / "match.msgpack"))
    assert verdict.ok, verdict.message
    assert "connection lost and not restored" in result.detail
    assert result.scores == [0.0, 1.0]
    assert time.monotonic() - started < 5  # its own remaining time (and grace), then the end
    bot.kill()


def test_the_sdk_plays_remotely_with_connect(keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "", argv=[
        sys.executable, "-m", "protocol.run", "--connect", endpoint, "--server-key", str(keys.public("referee")),
        "--key", str(keys.secret("alice")), "arena.games.blocking.bots.simple:SequentialBot"])
    result = match(endpoint, keys)
    assert result.reason in ("normal", "blocked") and result.offender is None, result.detail
    assert result.names == ["alice", "maxblock"]
    assert finish(bot)[0] == 0


def sdk_bot(clients: list[subprocess.Popen[str]], endpoint: str, keys: Keys, bot: str) -> subprocess.Popen[str]:
    """A bot of the Python SDK playing remotely as alice (`protocol.run --connect`)."""
    return start(clients, endpoint, keys, "", argv=[
        sys.executable, "-m", "protocol.run", "--connect", endpoint, "--server-key", str(keys.public("referee")),
        "--key", str(keys.secret("alice")), bot])


def remote_moves(log: Path) -> list[dict]:
    """The records of the remote seat's (seat 0's) replies: its ready and its moves."""
    return [r for r in read_log(log).records if r.get("kind") in ("ready", "move") and r["seat"] == 0]


def test_a_remote_bot_sleeping_900_ms_a_move_loses_on_time_as_a_local_one_does(
        tmp_path: Path, keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    """Thinking is charged whatever the seat: only the network's own time is not (no flat second a move)."""
    local, _ = run("blocking", [str(SLEEPER), "maxblock"], setup=BOARD, seed=3,
                   clock=ClockSettings(budget_ms=2000, startup_ms=10_000))
    assert (local.reason, local.offender, local.plies) == ("timeout", 0, 4), local.detail
    endpoint = free_endpoint()
    bot = sdk_bot(clients, endpoint, keys, str(SLEEPER))
    remote = match(endpoint, keys, budget_ms=2000, startup_ms=10_000, grace_ms=DEFAULT_GRACE_MS, setup=BOARD,
                   log_path=tmp_path / "remote.msgpack")
    assert (remote.reason, remote.offender, remote.plies) == ("timeout", 0, 4), remote.detail
    assert finish(bot)[0] == 0
    records = remote_moves(tmp_path / "remote.msgpack")
    # What was not charged is loopback's round trip (microseconds) and the jitter allowance, not a second.
    assert [r["kind"] for r in records] == ["ready", "move", "move"]
    assert all(JITTER_MS <= r["network_ms"] < JITTER_MS + 1 for r in records), records
    assert all(r["time_ms"] > 850 for r in records[1:]), records


def test_a_fast_remote_bot_is_not_charged_for_the_network_of_loopback(
        tmp_path: Path, keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    endpoint = free_endpoint()
    bot = sdk_bot(clients, endpoint, keys, "arena.games.blocking.bots.simple:SequentialBot")
    result = match(endpoint, keys, budget_ms=2000, startup_ms=10_000, grace_ms=DEFAULT_GRACE_MS, setup=BOARD,
                   log_path=tmp_path / "remote.msgpack")
    assert result.reason in ("normal", "blocked") and result.offender is None, result.detail
    assert finish(bot)[0] == 0
    records = remote_moves(tmp_path / "remote.msgpack")
    # The network's part of each reply is loopback's measured round trip and the allowance, as the sleeper's
    # was; what the bot was charged beyond it is its own (its SDK, CURVE, libzmq's threads at both ends).
    assert len(records) > 5 and all(JITTER_MS <= r["network_ms"] < JITTER_MS + 1 for r in records), records
    assert result.time_used_ms[0] < 1000, result.time_used_ms  # half its budget, on however busy a machine


def test_the_uncharged_part_is_the_round_trip_and_its_allowance_up_to_the_cap() -> None:
    assert uncharged_ms(None, 1000) == 1000  # not measured: never charged to the bot
    assert uncharged_ms(0.04, 1000) == pytest.approx(0.04 * (1 + JITTER_SHARE) + JITTER_MS)
    assert uncharged_ms(40.0, 1000) == pytest.approx(40 * (1 + JITTER_SHARE) + JITTER_MS)
    assert uncharged_ms(900.0, 1000) == 1000 and uncharged_ms(0.04, 0) == 0


def test_the_round_trip_is_the_kernels_of_that_connection_or_none(tmp_path: Path) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    conn, _ = server.accept()
    for _ in range(3):
        client.sendall(b"ping")
        conn.recv(4)
        conn.sendall(b"pong")
        client.recv(4)
    peer = peer_name(conn.fileno())
    assert peer == client.getsockname()
    measured = tcp_round_trip_ms(conn.fileno(), peer)
    assert measured is not None and 0 <= measured < 50  # loopback: microseconds, on a busy machine a few ms
    assert tcp_round_trip_ms(conn.fileno(), ("127.0.0.1", 1)) is None  # the descriptor now holds another peer
    unix = socket.socket(socket.AF_UNIX)
    unix.bind(str(tmp_path / "s"))
    with open(tmp_path / "file", "w") as file:
        for fd in (unix.fileno(), file.fileno()):  # not TCP: nothing measured
            assert tcp_round_trip_ms(fd, peer) is None
    fd = conn.fileno()
    conn.close()
    assert tcp_round_trip_ms(fd, peer) is None and peer_name(fd) is None  # closed
    for sock in (unix, client, server):
        sock.close()


LINK_DELAY_MS = 25  # each way: a round trip of 50 ms, a continent's
# One match in the referee's namespace: argv is the log, the endpoint, the allowed key and the referee's key.
REFEREE = """
import json, sys
from arena.api import play_match
log, endpoint, allow, key = sys.argv[1:5]
print(json.dumps(play_match("blocking", ["remote:alice", "maxblock"], setup={"rows": 8, "cols": 8}, seed=3,
                            sandbox="none", budget_ms=2000, log=log, listen=endpoint, allow=[allow], server_key=key)))
"""


@pytest.fixture
def slow_link(children: list[subprocess.Popen[str]]) -> tuple[str, str]:
    """Network namespaces for the referee and a bot, linked with LINK_DELAY_MS each way (their nsenter paths)."""
    missing = [tool for tool in ("ip", "nsenter") if shutil.which(tool) is None]
    why = ("network namespaces need root" if os.geteuid() != 0 else "no /dev/net/tun"
           if not os.path.exists("/dev/net/tun") else f"{missing[0]} is not installed" if missing else "")
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"the slow link cannot be made under CI: {why}")
        pytest.skip(why)
    link = subprocess.Popen([sys.executable, str(FIXTURES / "slow_link.py"), str(LINK_DELAY_MS)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    children.append(link)
    assert select.select([link.stdout], [], [], 10)[0], "the slow link did not start"
    ready = link.stdout.readline().split()
    assert ready[:1] == ["READY"], link.stderr.read()
    return ready[1], ready[2]


def test_over_a_slow_link_the_network_is_not_charged_and_thinking_is(
        tmp_path: Path, keys: Keys, clients: list[subprocess.Popen[str]], slow_link: tuple[str, str]) -> None:
    """A real 50 ms round trip (both kernels measure it): a fast bot pays none of it, a sleeper loses on time."""
    referee_ns, bot_ns = slow_link
    results = {}
    for port, bot in ((5601, "arena.games.blocking.bots.simple:SequentialBot"), (5602, str(SLEEPER))):
        endpoint = f"tcp://10.9.0.1:{port}"
        log = tmp_path / f"{port}.msgpack"
        start(clients, endpoint, keys, "", argv=[
            "nsenter", f"--net={bot_ns}", sys.executable, "-m", "protocol.run", "--connect", endpoint,
            "--server-key", str(keys.public("referee")), "--key", str(keys.secret("alice")), bot])
        done = subprocess.run(["nsenter", f"--net={referee_ns}", sys.executable, "-c", REFEREE, str(log), endpoint,
                               str(keys.public("alice")), str(keys.secret("referee"))],
                              cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        results[bot] = json.loads(done.stdout), remote_moves(log)
    fast, records = results["arena.games.blocking.bots.simple:SequentialBot"]
    assert fast["reason"] in ("normal", "blocked") and fast["offender"] is None, fast["detail"]
    link_ms = 2 * LINK_DELAY_MS
    # The measured round trip and its allowance; a flat second no more.
    assert len(records) > 5 and all(link_ms <= r["network_ms"] < 2 * link_ms for r in records), records
    # Every reply took the link's 50 ms at least; what was charged is a small part of that (the bot's own
    # time, and the link's jitter beyond the allowance): charging the network would be 50 ms a reply, this is
    # at most half of it however busy the machine.
    moves = [r for r in records if r["kind"] == "move"]  # the ready record's time is the bot's start-up
    assert sum(r["time_ms"] for r in moves) < len(moves) * link_ms / 2, records
    sleeper, records = results[str(SLEEPER)]
    assert (sleeper["reason"], sleeper["offender"], sleeper["plies"]) == ("timeout", 0, 4), sleeper["detail"]
    assert all(link_ms <= r["network_ms"] < 2 * link_ms for r in records) and records[1]["time_ms"] > 850, records


def test_the_sdk_says_a_bad_key_file_in_one_line(tmp_path: Path, keys: Keys) -> None:
    done = subprocess.run([sys.executable, "-m", "protocol.run", "--connect", "tcp://127.0.0.1:1", "--server-key",
                           str(keys.public("referee")), "--key", str(keys.public("alice")), "random_bot"],
                          cwd=ROOT, capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("holds no secret key (give the NAME.key_secret file)")


def test_the_listener_refuses_other_keys_at_the_handshake_and_a_seat_starts_with_hello(keys: Keys) -> None:
    listener = Listener(RemoteSettings(free_endpoint(), (str(keys.public("alice")),), str(keys.secret("referee"))))
    link = listener.link("alice")
    context = zmq.Context()
    server_key = zmq.auth.load_certificate(keys.public("referee"))[0]

    def client(name: str) -> zmq.Socket:
        public, secret = zmq.auth.load_certificate(keys.secret(name))
        sock = context.socket(zmq.DEALER)
        sock.linger = 0
        sock.curve_serverkey, sock.curve_publickey, sock.curve_secretkey = server_key, public, secret
        sock.connect(listener.endpoint)
        return sock

    try:
        assert link.state is LinkState.AWAY and link.via == "remote" and link.grace_ms == 1000
        stranger = client("mallory")
        stranger.send(msgpack.packb({"type": "hello", "protocol": 1, "token": "", "name": "alice"}))
        assert wait_until(lambda: listener.refused >= 1)
        assert stranger.poll(300) == 0 and link.state is LinkState.AWAY  # nothing back, no seat
        alice = client("alice")
        alice.send(msgpack.packb({"type": "move", "seq": 1, "move": [0, 0]}))  # before its hello: ignored
        assert wait_until(lambda: listener.ignored == 1)
        alice.send(msgpack.packb({"type": "hello", "protocol": 1, "token": "", "name": "alice"}))
        assert msgpack.unpackb(alice.recv()) == {"type": "welcome", "protocol": 1}
        assert wait_until(lambda: link.state is LinkState.CONNECTED)
        # Connected: what the network may take is its measured round trip (loopback's) and the allowance.
        assert JITTER_MS <= link.grace_ms < JITTER_MS + 1
        link.pump()
        assert link.take() is None  # the early move never reached the link
        assert link.send({"type": "turn", "seq": 1, "match": "m", "events": [], "time_left_ms": 100})
        assert msgpack.unpackb(alice.recv())["type"] == "turn"
        alice.send(msgpack.packb({"type": "move", "seq": 1, "move": [0, 0]}))
        assert wait_until(lambda: bool(select.select(link.fds(), [], [], 0)[0]))  # its eventfd wakes the referee
        link.pump()
        assert link.take() == {"type": "move", "seq": 1, "move": [0, 0]}
        alice.close()
        assert wait_until(lambda: link.state is LinkState.AWAY)
        assert JITTER_MS <= link.grace_ms < JITTER_MS + 1  # away: the round trip its key's connection last had
    finally:
        link.close()
        listener.close()
        context.destroy(linger=0)


def test_a_bot_still_connected_plays_on_with_the_next_listener_on_its_port(
        keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    """A server restarted, or the finals after the ladder: a new listener's seq goes on above the last one's."""
    from arena.launch.processes.process import Limits
    from arena.match.hub import Hub
    from arena.match.onematch import launch_player, shutdown
    from arena.match.referee import Referee

    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "", argv=[
        sys.executable, "-m", "protocol.run", "--connect", endpoint, "--server-key", str(keys.public("referee")),
        "--key", str(keys.secret("alice")), "arena.games.blocking.bots.simple:SequentialBot"])
    game = get_game("blocking")
    setup = complete_setup(game, SETUP, 2, 3)
    clock = ClockSettings(budget_ms=5000, startup_ms=10_000)
    settings = RemoteSettings(endpoint, (str(keys.public("alice")),), str(keys.secret("referee")))
    hub = Hub()
    try:
        for round_ in range(2):
            listener = Listener(settings)
            players = [launch_player(hub, parse_bot_spec("remote:alice", "blocking"), Limits(), Sandbox.NONE,
                                     remote=listener),
                       launch_player(hub, parse_bot_spec("maxblock", "blocking"), Limits(), Sandbox.NONE)]
            for number in range(2):  # the bot's seq goes on across matches of one listener, too
                result = Referee(players, game, setup, 3, clock, f"m{round_}-{number}").run()
                assert result.reason in ("normal", "blocked") and result.offender is None, (round_, result.detail)
            if round_ == 0:  # no bye: the listener goes as a contest's does, and the bot reconnects to the next
                shutdown(hub, players[1:])
                players[0].link.close()
                listener.close()
        shutdown(hub, players)
        listener.close()
    finally:
        hub.close()
    assert finish(bot)[0] == 0  # the second listener's bye


def test_a_key_that_floods_the_listener_is_cut_off_and_the_match_beside_plays_on(
        keys: Keys, clients: list[subprocess.Popen[str]]) -> None:
    """An allowed key between its seats (another entrant of a contest) sends junk without end."""
    from arena.launch.processes.process import Limits
    from arena.match.hub import Hub
    from arena.match.listener import CUT_S, NOISE_BURST
    from arena.match.onematch import launch_player, shutdown
    from arena.match.referee import Referee

    endpoint = free_endpoint()
    listener = Listener(RemoteSettings(endpoint, (str(keys.public("alice")), str(keys.public("mallory"))),
                                       str(keys.secret("referee"))))
    hub = Hub()
    try:
        flood = start(clients, endpoint, keys, "flood", name="mallory", ply=4000)
        assert wait_until(lambda: listener.cuts >= 1, 10), "the flood was never cut"
        assert "mallory" not in listener.connected()
        alice = start(clients, endpoint, keys, "play")
        players = [launch_player(hub, parse_bot_spec("remote:alice", "blocking"), Limits(), Sandbox.NONE,
                                 remote=listener),
                   launch_player(hub, parse_bot_spec("maxblock", "blocking"), Limits(), Sandbox.NONE)]
        game = get_game("blocking")
        result = Referee(players, game, complete_setup(game, SETUP, 2, 3), 3,
                         ClockSettings(budget_ms=5000, startup_ms=10_000), "beside-a-flood").run()
        assert result.reason in ("normal", "blocked") and result.offender is None, result.detail
        code, err = finish(flood, timeout=30)
        assert code == 0 and "flood: " in err, err
        # Read unasked: the burst, and what was queued before the cut (libzmq's queues), not the 4 s of
        # flood (unguarded, this listener read 250,000 junk messages in 3 s here).
        assert listener.ignored < NOISE_BURST + 3000, listener.ignored
        assert CUT_S > 4 and listener.refused >= 1  # its reconnections within CUT_S are refused at the handshake
        shutdown(hub, players)
        assert finish(alice)[0] == 0
    finally:
        listener.close()
        hub.close()
