"""The referee's ZeroMQ seats under hostile input: real libzmq peers, raw ZMTP bytes, random and mutated frames."""

from __future__ import annotations

import itertools
import os
import resource
import select
import socket
import sys
import threading
import time

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.clock import ClockSettings
from arena.logs.matchlog import read_log
from arena.match.hub import MAX_PENDING, Hub, Peer
from arena.match.transport import Inbox, SeatState
from protocol import zmtp
from protocol.codec import encode
from tests.helpers import FIXTURES, run

FUZZ_FRAMES = 2000  # inputs per hypothesis run below (documented in README.md's Isolation section)
HELLO = {"type": "hello", "protocol": 1, "token": "secret-token", "name": "fuzz"}


@pytest.fixture(scope="module")
def link():
    hub = Hub()
    peer = hub.expect("secret-token")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(peer.endpoint)
    dealer.send(encode(HELLO))
    wait_for(peer, lambda: peer.connected)
    yield hub, peer, dealer
    dealer.close()
    hub.close()


def wait_for(peer: Peer, condition, timeout: float = 2.0) -> None:
    poller = select.poll()
    for fd in peer.fds():
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        if poller.poll(10):
            peer.pump()
    peer.pump()


def reset(peer: Peer) -> None:
    """A clean peer for the next fuzz frame (white-box: the contract has no way to forgive a violation)."""
    peer._inbox = Inbox()


def hand_dealer(peer: Peer, token: str, name: str) -> zmtp.Dealer:
    """The SDK's own DEALER, connected and admitted (made in a thread: it waits for the seat's READY)."""
    made: list[zmtp.Dealer] = []

    def connect() -> None:
        dealer = zmtp.Dealer(peer.endpoint)
        dealer.send(encode({"type": "hello", "protocol": 1, "token": token, "name": name}))
        made.append(dealer)

    thread = threading.Thread(target=connect)
    thread.start()
    wait_for(peer, lambda: peer.connected and bool(made))
    thread.join(5)
    return made[0]


def raw_connection(peer: Peer) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(zmtp.ipc_path(peer.endpoint))
    sock.settimeout(2)
    return sock


def test_wrong_token_and_unsolicited_peers_never_get_the_seat() -> None:
    hub = Hub()
    peer = hub.expect("right")
    ctx = zmq.Context.instance()
    intruders = []
    for hello in ({"type": "hello", "protocol": 1, "token": "wrong", "name": "x"},
                  {"type": "move", "seq": 1, "move": [0, 0]},
                  {"type": "hello", "protocol": 2, "token": "right", "name": "x"}):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(peer.endpoint)
        sock.send(encode(hello))
        intruders.append(sock)
    wait_for(peer, lambda: peer.ignored >= 3)  # each refused connection is closed
    assert not peer.connected and peer.ignored >= 3 and not peer._inbox.messages
    good = ctx.socket(zmq.DEALER)
    good.setsockopt(zmq.LINGER, 0)
    good.connect(peer.endpoint)
    good.send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "ok"}))
    wait_for(peer, lambda: peer.connected)
    assert peer.connected and peer.name == "ok"
    assert good.poll(2000) and msgpack.unpackb(good.recv()) == {"type": "welcome", "protocol": 1}
    # A second connection with the same token still speaks for nobody: the taken seat accepts none.
    late = ctx.socket(zmq.DEALER)
    late.setsockopt(zmq.LINGER, 0)
    late.connect(peer.endpoint)
    late.send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "late"}))
    late.send(encode({"type": "move", "seq": 1, "move": [0, 0]}))
    with pytest.raises(ConnectionRefusedError):
        raw_connection(peer)
    wait_for(peer, lambda: bool(peer._inbox.messages), 0.3)
    assert not peer._inbox.messages and peer.name == "ok"
    good.send(encode({"type": "ready", "seq": 1}))  # the holder still speaks for the seat
    wait_for(peer, lambda: bool(peer._inbox.messages))
    assert peer.take() == {"type": "ready", "seq": 1}
    for sock in [*intruders, good, late]:
        sock.close()
    hub.close()


def test_strangers_bytes_and_sieges_are_refused_without_harm() -> None:
    hub = Hub()
    peer = hub.expect("right")
    http = raw_connection(peer)
    http.sendall(b"GET / HTTP/1.0\r\n\r\n")  # not ZMTP: closed at the first byte
    wait_for(peer, lambda: peer.ignored >= 1)
    assert http.recv(4096).startswith(zmtp.SIGNATURE)  # the greeting went out first
    assert http.recv(4096) == b"", "a stranger's connection is closed"
    curve = raw_connection(peer)
    curve.sendall(zmtp.SIGNATURE + bytes((3, 0)) + b"CURVE".ljust(20, b"\x00") + bytes(32))
    huge = raw_connection(peer)  # a frame announcing 2**62 bytes: refused from its header
    huge.sendall(zmtp.greeting() + zmtp.ready(b"DEALER") + b"\x02" + (2**62).to_bytes(8, "big"))
    wait_for(peer, lambda: peer.ignored >= 3)
    assert peer.ignored >= 3 and peer.state is SeatState.WAITING
    # Connections that never say anything hold no more than MAX_PENDING places.
    silent = []
    for _ in range(MAX_PENDING + 4):
        silent.append(raw_connection(peer))
        wait_for(peer, lambda: len(peer._pending) + peer.ignored >= 3 + len(silent))
    assert len(peer._pending) <= MAX_PENDING
    for sock in [http, curve, huge, *silent]:
        sock.close()
    # The seat is still there for its bot, speaking ZMTP by hand.
    bot = hand_dealer(peer, "right", "by hand")
    assert msgpack.unpackb(bot.recv()) == {"type": "welcome", "protocol": 1}
    assert peer.connected and peer.name == "by hand"
    bot.close()
    wait_for(peer, lambda: peer.state is SeatState.GONE)
    assert peer.state is SeatState.GONE
    hub.close()


def test_a_multi_frame_message_and_broken_framing_are_violations(link) -> None:
    hub, peer, dealer = link
    sync(peer, dealer)
    dealer.send_multipart([encode({"type": "ready", "seq": 1}), b"tail"])
    wait_for(peer, lambda: bool(peer.violation))
    assert peer.violation == "message of 2 frames (one frame per message)"


def test_a_move_then_broken_bytes_give_the_move_and_the_violation_in_one_write_or_several() -> None:
    hello = zmtp.frame(encode({"type": "hello", "protocol": 1, "token": "t", "name": "raw"}))
    move = {"type": "move", "seq": 1, "move": [0, 0]}
    broken = bytes((0x08, 1)) + b"z"  # a reserved flag bit
    for writes in ([hello + zmtp.frame(encode(move)) + broken], [hello, zmtp.frame(encode(move)) + broken],
                   [hello + zmtp.frame(encode(move)), broken], [hello, zmtp.frame(encode(move)), broken]):
        hub = Hub()
        peer = hub.expect("t")
        sock = raw_connection(peer)
        sock.sendall(zmtp.greeting() + zmtp.ready(b"DEALER"))
        sent = b""
        for write in writes:
            sock.sendall(write)
            sent += write
            moves = sent.count(encode(move))
            # Each write is read by itself: the seat has taken all before the next is sent.
            wait_for(peer, lambda: bool(peer.violation) or (peer.connected and peer.received == moves))
        wait_for(peer, lambda: bool(peer.violation))
        assert (peer.state, peer.violation) == (SeatState.VIOLATED, "ZMTP: frame flags 0x08"), writes
        assert peer.take() == move and peer.take() is None, writes
        sock.close()
        hub.close()


def test_a_pipes_only_hub_makes_nothing_and_a_seat_makes_its_directory() -> None:
    hub = Hub()
    assert hub.directory is None
    hub.close()
    hub = Hub()
    peer = hub.expect()
    assert hub.directory is not None and peer.endpoint.startswith(f"ipc://{hub.directory}/")
    directory = hub.directory
    hub.close()
    assert not os.path.exists(directory)


def test_a_temporary_folder_too_long_for_an_address_puts_the_seats_in_tmp(tmp_path, monkeypatch) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(deep))
    hub = Hub()
    peer = hub.expect("secret-token")
    assert hub.directory is not None and hub.directory.startswith("/tmp/")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(peer.endpoint)
    dealer.send(encode(HELLO))
    wait_for(peer, lambda: peer.connected)
    dealer.close()
    hub.close()


@settings(max_examples=FUZZ_FRAMES, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(
    st.binary(max_size=512),
    st.builds(lambda m, cut: encode(m)[:cut],
              st.dictionaries(st.text(max_size=6), st.integers(-(2**63), 2**63 - 1) | st.text(max_size=6), max_size=4),
              st.integers(0, 40)),
    st.builds(lambda depth: msgpack.packb({"type": "move", "seq": 1, "move": nest(depth)}), st.integers(0, 200)),
))
def test_random_frames_become_violations_or_messages_never_exceptions(link, frame: bytes) -> None:
    hub, peer, dealer = link
    sync(peer, dealer)
    marker = next(MARKERS)
    dealer.send(frame)
    dealer.send(encode({"type": "ready", "seq": marker}))  # the frame before it has been handled
    wait_for(peer, lambda: bool(peer.violation) or any(m.get("seq") == marker for m in peer._inbox.messages))
    assert peer.violation or [m.get("seq") for m in peer._inbox.messages][-1] == marker
    assert len(peer._inbox.messages) <= 2


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(min_size=1, max_size=300))
def test_random_bytes_on_the_wire_become_a_violation_or_messages_never_exceptions(stream: bytes) -> None:
    hub = Hub()
    peer = hub.expect("t")
    bot = hand_dealer(peer, "t", "raw")
    bot.sock.sendall(stream)  # after the handshake: whatever the bytes say, then the end
    bot.close()
    wait_for(peer, lambda: peer.state is not SeatState.CONNECTED)
    assert peer.state in (SeatState.GONE, SeatState.VIOLATED)
    assert all(isinstance(m, dict) for m in peer._inbox.messages)
    hub.close()


MARKERS = itertools.count(1000)


def sync(peer: Peer, dealer: zmq.Socket) -> None:
    """Wait until every earlier frame has been taken, then start from a clean peer."""
    marker = next(MARKERS)
    reset(peer)
    dealer.send(encode({"type": "ready", "seq": marker}))
    wait_for(peer, lambda: any(m.get("seq") == marker for m in peer._inbox.messages))
    assert any(m.get("seq") == marker for m in peer._inbox.messages), "the peer stopped taking frames"
    reset(peer)


def nest(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def test_memory_stays_bounded_under_a_flood_of_large_frames(link) -> None:
    hub, peer, dealer = link
    sync(peer, dealer)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    frame = msgpack.packb({"type": "move", "seq": 1, "move": "x" * 900_000})
    for _ in range(200):  # 180 MB in all
        reset(peer)
        dealer.send(frame)
        wait_for(peer, lambda: bool(peer._inbox.messages or peer.violation))
        assert peer.violation  # a 900 kB string breaks the string-length limit
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) < 100_000  # KiB: frames are not kept


def test_an_oversized_frame_is_a_violation_named_from_its_header() -> None:
    hub = Hub()
    peer = hub.expect("t")
    bot = hand_dealer(peer, "t", "big")
    bot.sock.sendall(b"\x02" + (2 << 20).to_bytes(8, "big") + b"x" * 1000)  # announces 2 MiB, sends 1 kB
    wait_for(peer, lambda: bool(peer.violation))
    assert peer.violation == "ZMTP: a message of more than 1048576 bytes"
    bot.close()
    hub.close()


@pytest.mark.parametrize(("mode", "reason"), [("ping", "timeout"), ("chatter", "protocol")])
def test_a_bot_flooding_its_seat_cannot_stall_the_referee(tmp_path, mode: str, reason: str) -> None:
    """PINGs whose PONGs are never read, or stale replies as fast as a bot can write: the clock still rules."""
    clock = ClockSettings(budget_ms=1000, margin_ms=200, startup_ms=5000)
    log = tmp_path / "m.msgpack"
    result, elapsed = run("blocking", [f"exec:{sys.executable} {FIXTURES / 'pinger.py'} {mode}", "sequential"],
                          {"rows": 4, "cols": 4}, clock=clock, log=log)
    assert (result.reason, result.offender) == (reason, 0), result.detail
    assert elapsed < 1.2 + 5.0, f"the match took {elapsed:.1f} s"  # the budget, the margin, the start-ups
    assert f"ATTACK {mode}: flooding the seat" in read_log(log).output[0]  # the flood did happen
