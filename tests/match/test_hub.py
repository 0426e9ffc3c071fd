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
from arena.match.hub import MAX_PENDING, Hub, ZmqLink
from arena.match.link import Inbox, LinkState
from protocol import zmtp
from protocol.codec import encode
from tests.helpers import FIXTURES, run

FUZZ_FRAMES = 2000  # inputs per hypothesis run below (documented in README.md's Isolation section)
HELLO = {"type": "hello", "protocol": 1, "token": "secret-token", "name": "fuzz"}


@pytest.fixture(scope="module")
def connected():
    hub = Hub()
    link = hub.expect("secret-token")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(link.endpoint)
    dealer.send(encode(HELLO))
    wait_for(link, lambda: link.connected)
    yield hub, link, dealer
    dealer.close()
    hub.close()


def wait_for(link: ZmqLink, condition, timeout: float = 2.0) -> None:
    poller = select.poll()
    for fd in link.fds():
        poller.register(fd, select.POLLIN)
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        if poller.poll(10):
            link.pump()
    link.pump()


def reset(link: ZmqLink) -> None:
    """A clean link for the next fuzz frame (white-box: the contract has no way to forgive a violation)."""
    link._inbox = Inbox()


def hand_dealer(link: ZmqLink, token: str, name: str) -> zmtp.Dealer:
    """The SDK's own DEALER, connected and admitted (made in a thread: it waits for the seat's READY)."""
    made: list[zmtp.Dealer] = []

    def connect() -> None:
        dealer = zmtp.Dealer(link.endpoint)
        dealer.send(encode({"type": "hello", "protocol": 1, "token": token, "name": name}))
        made.append(dealer)

    thread = threading.Thread(target=connect)
    thread.start()
    wait_for(link, lambda: link.connected and bool(made))
    thread.join(5)
    return made[0]


def raw_connection(link: ZmqLink) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(zmtp.ipc_path(link.endpoint))
    sock.settimeout(2)
    return sock


def test_wrong_token_and_unsolicited_peers_never_get_the_seat() -> None:
    hub = Hub()
    link = hub.expect("right")
    ctx = zmq.Context.instance()
    intruders = []
    for hello in ({"type": "hello", "protocol": 1, "token": "wrong", "name": "x"},
                  {"type": "move", "seq": 1, "move": [0, 0]},
                  {"type": "hello", "protocol": 2, "token": "right", "name": "x"}):
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.connect(link.endpoint)
        sock.send(encode(hello))
        intruders.append(sock)
    wait_for(link, lambda: link.ignored >= 3)  # each refused connection is closed
    assert not link.connected and link.ignored >= 3 and not link._inbox.messages
    good = ctx.socket(zmq.DEALER)
    good.setsockopt(zmq.LINGER, 0)
    good.connect(link.endpoint)
    good.send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "ok"}))
    wait_for(link, lambda: link.connected)
    assert link.connected and link.name == "ok"
    assert good.poll(2000) and msgpack.unpackb(good.recv()) == {"type": "welcome", "protocol": 1}
    # A second connection with the same token still speaks for nobody: the taken seat accepts none.
    late = ctx.socket(zmq.DEALER)
    late.setsockopt(zmq.LINGER, 0)
    late.connect(link.endpoint)
    late.send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "late"}))
    late.send(encode({"type": "move", "seq": 1, "move": [0, 0]}))
    with pytest.raises(ConnectionRefusedError):
        raw_connection(link)
    wait_for(link, lambda: bool(link._inbox.messages), 0.3)
    assert not link._inbox.messages and link.name == "ok"
    good.send(encode({"type": "ready", "seq": 1}))  # the holder still speaks for the seat
    wait_for(link, lambda: bool(link._inbox.messages))
    assert link.take() == {"type": "ready", "seq": 1}
    for sock in [*intruders, good, late]:
        sock.close()
    hub.close()


def test_strangers_bytes_and_sieges_are_refused_without_harm() -> None:
    hub = Hub()
    link = hub.expect("right")
    http = raw_connection(link)
    http.sendall(b"GET / HTTP/1.0\r\n\r\n")  # not ZMTP: closed at the first byte
    wait_for(link, lambda: link.ignored >= 1)
    assert http.recv(4096).startswith(zmtp.SIGNATURE)  # the greeting went out first
    assert http.recv(4096) == b"", "a stranger's connection is closed"
    curve = raw_connection(link)
    curve.sendall(zmtp.SIGNATURE + bytes((3, 0)) + b"CURVE".ljust(20, b"\x00") + bytes(32))
    huge = raw_connection(link)  # a frame announcing 2**62 bytes: refused from its header
    huge.sendall(zmtp.greeting() + zmtp.ready(b"DEALER") + b"\x02" + (2**62).to_bytes(8, "big"))
    wait_for(link, lambda: link.ignored >= 3)
    assert link.ignored >= 3 and link.state is LinkState.WAITING
    # Connections that never say anything hold no more than MAX_PENDING places.
    silent = []
    for _ in range(MAX_PENDING + 4):
        silent.append(raw_connection(link))
        wait_for(link, lambda: len(link._pending) + link.ignored >= 3 + len(silent))
    assert len(link._pending) <= MAX_PENDING
    for sock in [http, curve, huge, *silent]:
        sock.close()
    # The seat is still there for its bot, speaking ZMTP by hand.
    bot = hand_dealer(link, "right", "by hand")
    assert msgpack.unpackb(bot.recv()) == {"type": "welcome", "protocol": 1}
    assert link.connected and link.name == "by hand"
    bot.close()
    wait_for(link, lambda: link.state is LinkState.GONE)
    assert link.state is LinkState.GONE
    hub.close()


def test_a_multi_frame_message_and_broken_framing_are_violations(connected) -> None:
    hub, link, dealer = connected
    sync(link, dealer)
    dealer.send_multipart([encode({"type": "ready", "seq": 1}), b"tail"])
    wait_for(link, lambda: bool(link.violation))
    assert link.violation == "message of 2 frames (one frame per message)"


def test_a_move_then_broken_bytes_give_the_move_and_the_violation_in_one_write_or_several() -> None:
    hello = zmtp.frame(encode({"type": "hello", "protocol": 1, "token": "t", "name": "raw"}))
    move = {"type": "move", "seq": 1, "move": [0, 0]}
    broken = bytes((0x08, 1)) + b"z"  # a reserved flag bit
    for writes in ([hello + zmtp.frame(encode(move)) + broken], [hello, zmtp.frame(encode(move)) + broken],
                   [hello + zmtp.frame(encode(move)), broken], [hello, zmtp.frame(encode(move)), broken]):
        hub = Hub()
        link = hub.expect("t")
        sock = raw_connection(link)
        sock.sendall(zmtp.greeting() + zmtp.ready(b"DEALER"))
        sent = b""
        for write in writes:
            sock.sendall(write)
            sent += write
            moves = sent.count(encode(move))
            # Each write is read by itself: the seat has taken all before the next is sent.
            wait_for(link, lambda link=link, moves=moves: bool(link.violation)
                     or (link.connected and link.received == moves))
        wait_for(link, lambda link=link: bool(link.violation))
        assert (link.state, link.violation) == (LinkState.VIOLATED, "ZMTP: frame flags 0x08"), writes
        assert link.take() == move and link.take() is None, writes
        sock.close()
        hub.close()


def test_a_pipes_only_hub_makes_nothing_and_a_seat_makes_its_directory() -> None:
    hub = Hub()
    assert hub.directory is None
    hub.close()
    hub = Hub()
    link = hub.expect()
    assert hub.directory is not None and link.endpoint.startswith(f"ipc://{hub.directory}/")
    directory = hub.directory
    hub.close()
    assert not os.path.exists(directory)


def test_a_temporary_folder_too_long_for_an_address_puts_the_seats_in_tmp(tmp_path, monkeypatch) -> None:
    deep = tmp_path / ("d" * 100)
    deep.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(deep))
    hub = Hub()
    link = hub.expect("secret-token")
    assert hub.directory is not None and hub.directory.startswith("/tmp/")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(link.endpoint)
    dealer.send(encode(HELLO))
    wait_for(link, lambda: link.connected)
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
def test_random_frames_become_violations_or_messages_never_exceptions(connected, frame: bytes) -> None:
    hub, link, dealer = connected
    sync(link, dealer)
    marker = next(MARKERS)
    dealer.send(frame)
    dealer.send(encode({"type": "ready", "seq": marker}))  # the frame before it has been handled
    wait_for(link, lambda: bool(link.violation) or any(m.get("seq") == marker for m in link._inbox.messages))
    assert link.violation or [m.get("seq") for m in link._inbox.messages][-1] == marker
    assert len(link._inbox.messages) <= 2


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.binary(min_size=1, max_size=300))
def test_random_bytes_on_the_wire_become_a_violation_or_messages_never_exceptions(stream: bytes) -> None:
    hub = Hub()
    link = hub.expect("t")
    bot = hand_dealer(link, "t", "raw")
    bot.sock.sendall(stream)  # after the handshake: whatever the bytes say, then the end
    bot.close()
    wait_for(link, lambda: link.state is not LinkState.CONNECTED)
    assert link.state in (LinkState.GONE, LinkState.VIOLATED)
    assert all(isinstance(m, dict) for m in link._inbox.messages)
    hub.close()


MARKERS = itertools.count(1000)


def sync(link: ZmqLink, dealer: zmq.Socket) -> None:
    """Wait until every earlier frame has been taken, then start from a clean link."""
    marker = next(MARKERS)
    reset(link)
    dealer.send(encode({"type": "ready", "seq": marker}))
    wait_for(link, lambda: any(m.get("seq") == marker for m in link._inbox.messages))
    assert any(m.get("seq") == marker for m in link._inbox.messages), "the link stopped taking frames"
    reset(link)


def nest(depth: int) -> object:
    value: object = 0
    for _ in range(depth):
        value = [value]
    return value


def test_memory_stays_bounded_under_a_flood_of_large_frames(connected) -> None:
    hub, link, dealer = connected
    sync(link, dealer)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    frame = msgpack.packb({"type": "move", "seq": 1, "move": "x" * 900_000})
    for _ in range(200):  # 180 MB in all
        reset(link)
        dealer.send(frame)
        wait_for(link, lambda: bool(link._inbox.messages or link.violation))
        assert link.violation  # a 900 kB string breaks the string-length limit
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) < 100_000  # KiB: frames are not kept


def test_an_oversized_frame_is_a_violation_named_from_its_header() -> None:
    hub = Hub()
    link = hub.expect("t")
    bot = hand_dealer(link, "t", "big")
    bot.sock.sendall(b"\x02" + (2 << 20).to_bytes(8, "big") + b"x" * 1000)  # announces 2 MiB, sends 1 kB
    wait_for(link, lambda: bool(link.violation))
    assert link.violation == "ZMTP: a message of more than 1048576 bytes"
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
