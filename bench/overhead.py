"""Referee overhead per ply against a raw pyzmq DEALER/ROUTER ping-pong, measured in one run.

Prints one JSON line:
- "raw_us": the median raw round trip of a turn-sized message between two Python processes
  over pyzmq DEALER/ROUTER (libzmq on both sides); "raw_zmtp_us": the same messages over the
  same ZeroMQ wire, spoken on the ipc socket itself on both sides (protocol/zmtp.py), as the
  referee and the SDK speak it; "raw_pipe_us": the same over a pair of pipes, as JSON lines;
- "referee_us_per_ply": wall time per ply of long Blocking matches (start-up excluded, logs
  written) between two instantly-answering Python bots on the default wire (ZeroMQ), as the
  arena starts Python bots; "ratio": that / raw_us (target: at most 1.25);
- "pipes_us_per_ply" and "pipes_ratio" (over raw_pipe_us): the same bots on their pipes
  (`transport = "pipes"`);
- "floor_us_per_ply" and "floor_ratio": the ZeroMQ bots under the least a Python referee can
  do (poll, receive, unpack, apply, pack, send: no clocks, checks or log);
- "remote_tcp_us_per_ply" and "remote_curve_us_per_ply": the same instant bots on remote
  seats (the SDK's --connect mode) over loopback TCP, without and with CURVE: the median of
  3 x --matches matches each, played alternately; "curve_ratio": the one over the other
  (target: at most 1.20);
- where a C compiler, libzmq and msgpack-c are installed, "native_us_per_ply" and
  "native_ratio" with the C example bot's instant mode (`cbot --sequential`, libzmq's
  DEALER) in both seats, so the figure compares with a native engine's;
- where a C compiler is installed, "native_pipe_us_per_ply" and "native_pipe_ratio" (over
  raw_pipe_us) with `bench/instant_stdio.c`, the same instant game in C on the stdio protocol:
  the referee's own cost per ply, with bots that cost next to nothing.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack
import zmq

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.clock import ClockSettings  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.launch.processes.process import BotProcess, Limits  # noqa: E402
from arena.launch.sandbox.sandbox import Sandbox  # noqa: E402
from arena.launch.specs.botspec import Wire, parse_bot_spec  # noqa: E402
from arena.logs.matchlog import LogWriter  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.listener import Listener  # noqa: E402
from arena.match.onematch import launch_player, shutdown  # noqa: E402
from arena.match.referee import Referee  # noqa: E402
from arena.match.remote import RemoteSettings  # noqa: E402
from protocol import zmtp  # noqa: E402
from protocol.codec import encode_json_line  # noqa: E402
from protocol.keys import new_key_pair  # noqa: E402

TURN = {"type": "turn", "seq": 123, "match": "blocking-123", "events": [[0, [12, 34]]], "time_left_ms": 9876}
MOVE = {"type": "move", "seq": 123, "move": [12, 36]}


_PIPE_ECHO = """
import os, sys
reply = sys.argv[1].encode()
lines = os.fdopen(0, "rb")
for line in lines:
    if line == b"stop\\n":
        break
    os.write(1, reply)
"""


def raw_pipe_round_trip_us(count: int) -> float:
    """Median round trip of a turn-sized JSON line to a child process and back over its pipes, in microseconds."""
    reply = encode_json_line(MOVE)
    child = subprocess.Popen([sys.executable, "-c", _PIPE_ECHO, reply.decode()], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None  # narrowing: both are pipes
    out, into = child.stdout.fileno(), child.stdin.fileno()
    line = encode_json_line(TURN)
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        os.write(into, line)
        data = os.read(out, 65536)
        while not data.endswith(b"\n"):
            data += os.read(out, 65536)
        json.loads(data)
        samples.append(time.perf_counter() - started)
    os.write(into, b"stop\n")
    child.wait(10)
    return statistics.median(samples) * 1e6


def _echo(endpoint: str) -> None:
    sock = zmq.Context().socket(zmq.DEALER)
    sock.connect(endpoint)
    sock.send(b"hi")
    reply = msgpack.packb(MOVE)
    while True:
        frame = sock.recv()
        if frame == b"stop":
            return
        msgpack.unpackb(frame)
        sock.send(reply)


def raw_round_trip_us(count: int) -> float:
    """Median round trip of a turn-sized message between two processes, in microseconds."""
    directory = tempfile.mkdtemp()
    endpoint = f"ipc://{directory}/raw.sock"
    sock = zmq.Context.instance().socket(zmq.ROUTER)
    sock.bind(endpoint)
    child = multiprocessing.get_context("spawn").Process(target=_echo, args=(endpoint,))
    child.start()
    peer, _ = sock.recv_multipart()
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        sock.send_multipart([peer, msgpack.packb(TURN)])
        _, frame = sock.recv_multipart()
        msgpack.unpackb(frame)
        samples.append(time.perf_counter() - started)
    sock.send_multipart([peer, b"stop"])
    child.join()
    sock.close()
    return statistics.median(samples) * 1e6


def _echo_zmtp(endpoint: str) -> None:
    dealer = zmtp.Dealer(endpoint)
    dealer.send(b"hi")
    reply = msgpack.packb(MOVE)
    while True:
        frame = dealer.recv()
        if frame == b"stop":
            return
        msgpack.unpackb(frame)
        dealer.send(reply)


def raw_zmtp_round_trip_us(count: int) -> float:
    """Median round trip of a turn-sized message over ZMTP spoken on the ipc socket on both sides, in microseconds."""
    hub = Hub()
    peer = hub.expect()
    child = multiprocessing.get_context("spawn").Process(target=_echo_zmtp, args=(peer.endpoint,))
    child.start()
    conn, fd = _accept_raw(peer)
    decoder = zmtp.Decoder(b"ROUTER", 1 << 20)
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    _frames(conn, decoder, poller)  # "hi"
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        os.write(fd, zmtp.frame(msgpack.packb(TURN)))
        msgpack.unpackb(_frames(conn, decoder, poller)[0])
        samples.append(time.perf_counter() - started)
    os.write(fd, zmtp.frame(b"stop"))
    child.join()
    conn.close()
    hub.close()
    return statistics.median(samples) * 1e6


def _accept_raw(peer: Any) -> tuple[Any, int]:
    """The bench's own end of a seat's first connection, greeted, outside the ZmqLink (white-box)."""
    listener = peer._listener  # noqa: SLF001 - the bench bypasses the ZmqLink on purpose
    listener.setblocking(True)
    conn, _ = listener.accept()
    conn.sendall(zmtp.greeting() + zmtp.ready(b"ROUTER"))
    return conn, conn.fileno()


def _frames(conn: Any, decoder: zmtp.Decoder, poller: select.poll) -> list[bytes]:
    """The next message on a raw connection."""
    while True:
        poller.poll(10_000)
        for kind, value in decoder.feed(conn.recv(65536)):
            if kind == "message":
                return value


def native_spec(directory: str) -> str | None:
    """The C example bot built into directory, in its instant mode; None when it cannot be built."""
    examples = Path(__file__).resolve().parent.parent / "bots" / "examples"
    done = subprocess.run(["make", "-s", "-C", str(examples), f"BUILD={directory}"], capture_output=True, text=True,
                          check=False)
    return f"exec:{directory}/cbot --sequential" if done.returncode == 0 else None


INSTANT = Path(__file__).resolve().parent / "instant_bot.py"


def native_stdio_spec(directory: str) -> str | None:
    """bench/instant_stdio.c built into directory, as a stdio bot; None when it cannot be built."""
    source = Path(__file__).resolve().parent / "instant_stdio.c"
    binary = f"{directory}/instant_stdio"
    done = subprocess.run(["cc", "-O2", "-o", binary, str(source)], capture_output=True, text=True, check=False)
    return f"stdio:{binary}" if done.returncode == 0 else None


def referee_us_per_ply(matches: int, size: int, bot: str | None = None,
                       wire: Wire | None = None) -> tuple[float, int]:
    """Wall time per ply of whole matches between two persistent instant bots (Python, default wire unless told)."""
    game = get_game("blocking")
    hub = Hub()
    spec = parse_bot_spec(bot or f"{INSTANT}:InstantBot", "blocking", wire=wire)
    # No sandbox, as the floor's bots: the figures compare referees and transports, not namespaces.
    players = [launch_player(hub, spec, Limits(), Sandbox.NONE) for _ in range(2)]
    clock = ClockSettings(budget_ms=60_000)
    setup = {"rows": size, "cols": size, "blocked": []}
    plies = 0
    elapsed = 0.0
    with tempfile.TemporaryDirectory() as logs:
        # One warm-up match connects the bots (start-up is excluded from the figure).
        Referee(players, game, setup, 0, clock, "warm-up").run()
        for i in range(matches):
            writer = LogWriter(Path(logs) / f"{i}.msgpack")
            started = time.perf_counter()
            result = Referee(players, game, setup, i, clock, f"m{i}", writer).run()
            elapsed += time.perf_counter() - started
            writer.close()
            if result.reason != "blocked":
                raise RuntimeError(f"bench match ended with {result.reason}: {result.detail}")
            plies += result.plies
    shutdown(hub, players)
    hub.close()
    return elapsed / plies * 1e6, plies


_REMOTE_BOT = """
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
from instant_bot import InstantBot
from protocol.keys import read_key_file
from protocol.run import serve_remote
endpoint, server, key, name = sys.argv[3:7]
public, secret = read_key_file(key, secret=True)
sys.exit(serve_remote(InstantBot(), endpoint, read_key_file(server)[0] if server else None, public, secret, name))
"""


class _RemotePair:
    """Two instant bots on remote seats of one listener over loopback TCP, served by the SDK's --connect mode."""

    def __init__(self, keys: str, curve: bool) -> None:
        root = Path(__file__).resolve().parent
        names = ("curve1", "curve2") if curve else ("plain1", "plain2")
        for name in names:
            new_key_pair(name, keys)
        settings = RemoteSettings("tcp://127.0.0.1:*", tuple(f"{keys}/{n}.key" for n in names),
                                  f"{keys}/referee.key_secret", network_grace_ms=0, curve=curve)
        self.hub = Hub()
        self.listener = Listener(settings)
        self.bots = [subprocess.Popen([sys.executable, "-c", _REMOTE_BOT, str(root), str(root.parent),
                                       self.listener.endpoint, f"{keys}/referee.key" if curve else "",
                                       f"{keys}/{n}.key_secret", n]) for n in names]
        self.players = [launch_player(self.hub, parse_bot_spec(f"remote:{n}", "blocking"), Limits(), Sandbox.NONE,
                                      remote=self.listener) for n in names]

    def close(self) -> None:
        shutdown(self.hub, self.players)
        self.listener.close()
        for bot in self.bots:
            try:
                bot.wait(5)
            except subprocess.TimeoutExpired:  # it never got its bye (a failed bench match)
                bot.kill()
                bot.wait()


def remote_pair(matches: int, size: int) -> tuple[float, float]:
    """Plain TCP's and CURVE's per-ply cost: the median match of each, their matches interleaved.

    Plain TCP is unauthenticated (a listener mode for this measurement only); interleaving the
    two wires' matches one by one lets a shared machine's load fall on both alike.
    """
    game = get_game("blocking")
    clock = ClockSettings(budget_ms=60_000)
    setup = {"rows": size, "cols": size, "blocked": []}
    figures: dict[bool, list[float]] = {False: [], True: []}
    with tempfile.TemporaryDirectory() as keys:
        new_key_pair("referee", keys)
        pairs = {curve: _RemotePair(keys, curve) for curve in (False, True)}
        try:
            for pair in pairs.values():
                Referee(pair.players, game, setup, 0, clock, "warm-up").run()
            for i in range(matches * 3):
                for curve, pair in pairs.items():
                    writer = LogWriter(Path(keys) / f"{curve}-{i}.msgpack")
                    started = time.perf_counter()
                    result = Referee(pair.players, game, setup, i, clock, f"m{i}", writer).run()
                    elapsed = time.perf_counter() - started
                    writer.close()
                    if result.reason != "blocked":
                        raise RuntimeError(f"bench match ended with {result.reason}: {result.detail}")
                    figures[curve].append(elapsed / result.plies * 1e6)
        finally:
            for pair in pairs.values():
                pair.close()
    return statistics.median(figures[False]), statistics.median(figures[True])


def _raw_seats(hub: Hub, spec: Any) -> tuple[list[tuple[Any, int, Any, Any]], list[BotProcess]]:
    """Two bot processes, each on a raw ZMTP connection of the bench's own (its hello read and ignored)."""
    links, processes = [], []
    for _ in range(2):
        peer = hub.expect()
        process = BotProcess(spec, peer.endpoint, peer.token)
        process.start()
        conn, fd = _accept_raw(peer)
        decoder = zmtp.Decoder(b"ROUTER", 1 << 20)
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        _frames(conn, decoder, poller)  # hello: the token is the bench's own business here
        links.append((conn, fd, decoder, poller))
        processes.append(process)
    return links, processes


def floor_us_per_ply(matches: int, size: int) -> float:
    """Wall time per ply of the least a Python referee can do with the same bots and the same wire.

    One poll on the seat's socket, receive, unpack, apply, pack the next turn, send: no clocks,
    no checks, no log, no death or disconnect watch. What the referee adds is measured against it.
    """
    game = get_game("blocking")
    hub = Hub()
    spec = parse_bot_spec(f"{INSTANT}:InstantBot", "blocking")
    links, processes = _raw_seats(hub, spec)

    def ask(seat: int, message: dict[str, Any]) -> dict[str, Any]:
        conn, fd, decoder, poller = links[seat]
        os.write(fd, zmtp.frame(msgpack.packb(message)))
        return msgpack.unpackb(_frames(conn, decoder, poller)[0])

    setup = {"rows": size, "cols": size, "blocked": []}
    seqs, plies, elapsed = [0, 0], 0, 0.0
    for match in range(matches + 1):  # the first is a warm-up
        state, _ = game.start(setup, 2, 0)
        for seat in range(2):
            seqs[seat] += 1
            ask(seat, {"type": "init", "seq": seqs[seat], "match": "m", "game": "blocking", "seat": seat,
                       "players": 2, "setup": setup, "time_left_ms": 60_000})
        events: list[list[Any]] = [[], []]
        started = time.perf_counter()
        count = 0
        while not state.is_over():
            seat = state.to_move()
            seqs[seat] += 1
            move = ask(seat, {"type": "turn", "seq": seqs[seat], "match": "m", "events": events[seat],
                              "time_left_ms": 60_000})["move"]
            events[seat] = []
            state.apply(move)
            events[1 - seat].append([seat, move])
            count += 1
        if match:
            elapsed += time.perf_counter() - started
            plies += count
        for seat in range(2):
            seqs[seat] += 1
            os.write(links[seat][1], zmtp.frame(msgpack.packb(
                {"type": "end", "seq": seqs[seat], "match": "m", "scores": [0, 0], "ranks": [1, 1],
                 "reason": "blocked", "offender": None, "events": events[seat]})))
    for seat, process in enumerate(processes):
        os.write(links[seat][1], zmtp.frame(msgpack.packb({"type": "bye"})))
        process.wait_exit(2)
        process.kill()
        links[seat][0].close()
    hub.close()
    return elapsed / plies * 1e6


def main() -> None:
    """Run both measurements and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--round-trips", type=int, default=5000)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--size", type=int, default=50, help="board side of the Blocking matches")
    parser.add_argument("--remote-only", action="store_true", help="only the remote seats' figures")
    args = parser.parse_args()
    if args.remote_only:
        tcp, curve = remote_pair(args.matches, args.size)
        print(json.dumps({"remote_tcp_us_per_ply": round(tcp, 1), "remote_curve_us_per_ply": round(curve, 1),
                          "curve_ratio": round(curve / tcp, 2)}))
        return
    raw = raw_round_trip_us(args.round_trips)
    raw_zmtp = raw_zmtp_round_trip_us(args.round_trips)
    raw_pipe = raw_pipe_round_trip_us(args.round_trips)
    per_ply, plies = referee_us_per_ply(args.matches, args.size)
    pipes_per_ply, _ = referee_us_per_ply(args.matches, args.size, wire=Wire.PIPES)
    floor = floor_us_per_ply(args.matches, args.size)
    tcp, curve = remote_pair(args.matches, args.size)
    figures = {"raw_us": round(raw, 1), "raw_zmtp_us": round(raw_zmtp, 1), "raw_pipe_us": round(raw_pipe, 1),
               "referee_us_per_ply": round(per_ply, 1), "ratio": round(per_ply / raw, 2), "plies": plies,
               "pipes_us_per_ply": round(pipes_per_ply, 1), "pipes_ratio": round(pipes_per_ply / raw_pipe, 2),
               "floor_us_per_ply": round(floor, 1), "floor_ratio": round(floor / raw, 2),
               "remote_tcp_us_per_ply": round(tcp, 1), "remote_curve_us_per_ply": round(curve, 1),
               "curve_ratio": round(curve / tcp, 2)}
    with tempfile.TemporaryDirectory() as build:
        native = native_spec(build)
        if native is not None:
            native_per_ply, _ = referee_us_per_ply(args.matches, args.size, native)
            figures |= {"native_us_per_ply": round(native_per_ply, 1), "native_ratio": round(native_per_ply / raw, 2)}
        native_pipe = native_stdio_spec(build)
        if native_pipe is not None:
            pipe_per_ply, _ = referee_us_per_ply(args.matches, args.size, native_pipe)
            figures |= {"native_pipe_us_per_ply": round(pipe_per_ply, 1),
                        "native_pipe_ratio": round(pipe_per_ply / raw_pipe, 2)}
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
