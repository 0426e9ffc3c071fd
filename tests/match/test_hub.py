"""The referee's side of the wire under hostile input: real sockets, random and mutated frames."""

from __future__ import annotations

import itertools
import resource
import time

import msgpack
import pytest
import zmq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.match.hub import Hub, Peer
from arena.match.transport import Inbox
from protocol.codec import encode

FUZZ_FRAMES = 2000  # inputs per hypothesis run below (documented in README.md's Isolation section)


@pytest.fixture(scope="module")
def link():
    hub = Hub()
    peer = hub.expect("secret-token")
    dealer = zmq.Context.instance().socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(peer.endpoint)
    dealer.send(encode({"type": "hello", "protocol": 1, "token": "secret-token", "name": "fuzz"}))
    wait_for(peer, lambda: peer.connected)
    yield hub, peer, dealer
    dealer.close()
    hub.close()


def wait_for(peer: Peer, condition, timeout: float = 2.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition() and time.monotonic() < deadline:
        if peer.sock.poll(10):
            peer.pump()
    peer.pump()


def reset(peer: Peer) -> None:
    """A clean peer for the next fuzz frame (white-box: the contract has no way to forgive a violation)."""
    peer._inbox = Inbox()


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
    wait_for(peer, lambda: peer.ignored == 3)
    assert not peer.connected and peer.ignored == 3 and not peer._inbox.messages
    good = ctx.socket(zmq.DEALER)
    good.setsockopt(zmq.LINGER, 0)
    good.connect(peer.endpoint)
    good.send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "ok"}))
    wait_for(peer, lambda: peer.connected)
    assert peer.connected and peer.name == "ok"
    # A second connection with the same token still speaks for nobody.
    intruders[0].send(encode({"type": "hello", "protocol": 1, "token": "right", "name": "late"}))
    intruders[0].send(encode({"type": "move", "seq": 1, "move": [0, 0]}))
    wait_for(peer, lambda: peer.ignored == 5)  # both frames taken, and set aside
    assert peer.ignored == 5 and not peer._inbox.messages and peer.name == "ok"
    for sock in [*intruders, good]:
        sock.close()
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
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    frame = msgpack.packb({"type": "move", "seq": 1, "move": "x" * 900_000})
    for _ in range(200):  # 180 MB in all
        reset(peer)
        dealer.send(frame)
        wait_for(peer, lambda: bool(peer._inbox.messages or peer.violation))
        assert peer.violation  # a 900 kB string breaks the string-length limit
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert (after - before) < 100_000  # KiB: frames are not kept
