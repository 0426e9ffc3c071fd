"""ZMTP as the SDK and the referee speak it (protocol/zmtp.py): one verdict however the bytes arrive,
and the SDK's Dealer against a real libzmq ROUTER (pyzmq) over ipc://."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest
import zmq
import zmq.utils.monitor
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import zmtp
from tests.helpers import wait_until

HANDSHAKE = zmtp.greeting() + zmtp.ready(b"DEALER")  # what a DEALER sends first, as a ROUTER's decoder reads it
MOVE = msgpack.packb({"type": "move", "seq": 2, "move": [3, 4]})

Verdict = tuple[list[tuple[str, Any]], str | None]


def verdict(chunks: list[bytes], max_message: int = 1 << 20) -> Verdict:
    """The events a fresh ROUTER decoder gives for chunks fed one by one, and its error (None when none)."""
    decoder = zmtp.Decoder(b"ROUTER", max_message)
    events: list[tuple[str, Any]] = []
    for chunk in chunks:
        try:
            events += decoder.feed(chunk)
        except zmtp.ZmtpError as exc:
            return events + exc.events, str(exc)
    return events, None


def ready_decoder(max_message: int = 1 << 20) -> zmtp.Decoder:
    decoder = zmtp.Decoder(b"ROUTER", max_message)
    assert [kind for kind, _ in decoder.feed(HANDSHAKE)] == ["ready"]
    return decoder


# --- one verdict however the stream is split ----------------------------------------------


def test_reserved_flag_bits_are_refused_in_one_write_as_in_two() -> None:
    framed = bytes((0x08, len(MOVE))) + MOVE  # a short frame with a reserved flag bit set
    for chunks in ([framed], [framed[:1], framed[1:]], [framed[:5], framed[5:]]):
        with pytest.raises(zmtp.ZmtpError, match="frame flags 0x08"):
            decoder = ready_decoder()
            for chunk in chunks:
                decoder.feed(chunk)
    assert (verdict([HANDSHAKE, framed]) == verdict([HANDSHAKE + framed])
            == verdict([bytes((byte,)) for byte in HANDSHAKE + framed]))


def test_a_more_frame_then_the_move_is_one_two_frame_message_in_one_write_or_two() -> None:
    first, move = zmtp.frame(b"x", more=True), zmtp.frame(MOVE)
    whole = ready_decoder().feed(first + move)
    decoder = ready_decoder()
    split = decoder.feed(first) + decoder.feed(move)
    assert whole == split == [("message", [b"x", MOVE])]
    # Nothing is left over to stick to the next message.
    assert decoder.feed(move) == [("message", [MOVE])]


def test_the_fast_path_keeps_the_size_limit_of_a_small_decoder() -> None:
    framed = zmtp.frame(b"y" * 40)
    for chunks in ([framed], [framed[:3], framed[3:]]):
        decoder = ready_decoder(max_message=16)
        with pytest.raises(zmtp.ZmtpError, match="more than 16 bytes"):
            for chunk in chunks:
                decoder.feed(chunk)


def test_an_error_carries_the_events_before_it_and_the_decoder_stays_broken() -> None:
    decoder = ready_decoder()
    with pytest.raises(zmtp.ZmtpError, match="frame flags 0x40") as caught:
        decoder.feed(zmtp.frame(MOVE) + zmtp.command(b"PING", b"\x00\x00ctx") + b"\x40\x01z" + zmtp.frame(MOVE))
    assert caught.value.events == [("message", [MOVE]), ("ping", b"ctx")]
    for later in (zmtp.frame(MOVE), b""):  # a broken stream is read no further, even by the fast path
        with pytest.raises(zmtp.ZmtpError, match="frame flags 0x40") as again:
            decoder.feed(later)
        assert again.value.events == []


def test_what_a_peer_names_in_an_error_is_one_line() -> None:
    reason = b"no\nsuch\r\x00key \xff here"
    error = zmtp.command(b"ERROR", bytes((len(reason),)) + reason)
    with pytest.raises(zmtp.ZmtpError) as caught:
        zmtp.Decoder(b"DEALER", 1 << 20).feed(zmtp.greeting() + error)
    assert str(caught.value) == "the peer refused the handshake: no\\nsuch\\r\\x00key \ufffd here"
    liar = zmtp.command(b"READY", b"\x0bSocket-Type\x00\x00\x00\x04A\nB\x07")
    with pytest.raises(zmtp.ZmtpError) as caught:
        zmtp.Decoder(b"DEALER", 1 << 20).feed(zmtp.greeting() + liar)
    assert str(caught.value) == "a A\\nB\\x07 socket cannot talk to a DEALER"


def every_split(stream: bytes) -> Iterator[list[bytes]]:
    """The stream in one write, byte by byte, and cut once at every place."""
    yield [stream]
    yield [stream[i:i + 1] for i in range(len(stream))]
    for cut in range(1, len(stream)):
        yield [stream[:cut], stream[cut:]]


STREAMS = {
    "messages": HANDSHAKE + zmtp.frame(MOVE) + zmtp.frame(b"a" * 300) + zmtp.frame(MOVE),
    "multi_frame": HANDSHAKE + zmtp.frame(b"x", more=True) + zmtp.frame(MOVE) + zmtp.frame(MOVE),
    "reserved_bits": HANDSHAKE + zmtp.frame(MOVE) + bytes((0x10, 2)) + b"ab",
    "too_many_frames": HANDSHAKE + zmtp.frame(b"", more=True) * zmtp.MAX_FRAMES + zmtp.frame(MOVE),
    "command_marked_more": HANDSHAKE + bytes((zmtp.COMMAND | zmtp.MORE, 5)) + b"\x04PING",
    "message_before_ready": zmtp.greeting() + zmtp.frame(MOVE),
    "stranger": b"GET / HTTP/1.0\r\n\r\n",
    "pings": HANDSHAKE + zmtp.command(b"PING", b"\x00\x10abc") + zmtp.frame(MOVE) + zmtp.command(b"PONG"),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_every_split_of_a_stream_gives_the_one_write_verdict(name: str) -> None:
    stream = STREAMS[name]
    whole = verdict([stream])
    for chunks in every_split(stream):
        assert verdict(chunks) == whole, [len(c) for c in chunks]


PIECES = st.sampled_from([
    zmtp.frame(MOVE), zmtp.frame(MOVE, more=True), zmtp.frame(b""), zmtp.frame(b"z" * 260),
    zmtp.frame(b"z" * 260, more=True), zmtp.command(b"PING", b"\x00\x05ping"), zmtp.command(b"PONG"),
    bytes((0x08, 1)) + b"q", bytes((0x81, 0)), bytes((zmtp.COMMAND | zmtp.MORE, 0)),
    bytes((zmtp.LONG, 0, 0, 0, 0, 0, 0, 0, 3)) + b"abc", bytes((zmtp.LONG,)) + (1 << 40).to_bytes(8, "big"),
])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(PIECES, max_size=12), aligned=st.booleans(), cuts=st.lists(st.integers(0, 4000)),
       max_message=st.sampled_from([8, 64, 1 << 20]))
def test_random_streams_in_random_writes_give_the_one_write_verdict(
        pieces: list[bytes], aligned: bool, cuts: list[int], max_message: int) -> None:
    stream = HANDSHAKE + b"".join(pieces)
    if aligned:  # a writer's writes, frame by frame: the decoder's fast path
        chunks = [HANDSHAKE, *pieces]
    else:
        at = sorted({0, len(stream), *(cut % (len(stream) + 1) for cut in cuts)})
        chunks = [stream[a:b] for a, b in zip(at, at[1:])]
    assert verdict(chunks, max_message) == verdict([stream], max_message)


# --- the SDK's Dealer against libzmq's ROUTER ---------------------------------------------


class Router:
    """A libzmq ROUTER bound at an ipc:// endpoint, watched by a monitor for its connections' ends."""

    def __init__(self, folder: Path, **options: int) -> None:
        self.context = zmq.Context()
        self.sock = self.context.socket(zmq.ROUTER)
        self.sock.linger = 0
        for name, value in options.items():
            self.sock.setsockopt(getattr(zmq, name), value)
        self.monitor = self.sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED)
        self.endpoint = f"ipc://{folder}/router.sock"
        self.sock.bind(self.endpoint)

    def event(self, timeout_ms: int = 5000) -> int:
        """The next monitor event's number (zmq.EVENT_*)."""
        assert self.monitor.poll(timeout_ms), "no monitor event"
        return zmq.utils.monitor.recv_monitor_message(self.monitor)["event"]

    def recv(self, timeout_ms: int = 5000) -> list[bytes]:
        assert self.sock.poll(timeout_ms), "nothing from the Dealer"
        return self.sock.recv_multipart()

    def close(self) -> None:
        self.monitor.close(linger=0)
        self.sock.close(linger=0)
        self.context.term()


@pytest.fixture
def router(tmp_path: Path) -> Iterator[Router]:
    made = Router(tmp_path)
    yield made
    made.close()


def connected(endpoint: str) -> zmtp.Dealer:
    """The SDK's Dealer, connected (its constructor waits for the ROUTER's READY)."""
    return zmtp.Dealer(endpoint, connect_timeout_s=5)


def test_the_dealer_passes_libzmqs_handshake_and_messages_go_both_ways(router: Router) -> None:
    dealer = connected(router.endpoint)
    assert dealer.decoder.ready and dealer.decoder.peer_type == b"ROUTER"
    assert router.event() == zmq.EVENT_HANDSHAKE_SUCCEEDED
    dealer.send(MOVE)
    assert router.sock.poll(5000)
    identity, first = router.sock.recv_multipart(copy=False)
    assert first.bytes == MOVE and first.get("Socket-Type") == "DEALER"  # the Dealer's READY, as libzmq read it
    identity = identity.bytes  # libzmq named the connection itself (the Dealer offers no id)
    for body in (b"", b"turn", MOVE * 3):
        router.sock.send_multipart([identity, body])
        assert dealer.recv() == body
    router.sock.send_multipart([identity, b"first", b"second"])  # a frame of two: the Dealer reads the first
    assert dealer.recv() == b"first"
    burst = [msgpack.packb({"type": "move", "seq": seq, "move": [seq, 0]}) for seq in range(200)]
    for body in burst:  # many messages per read: the decoder's slow path, in order
        router.sock.send_multipart([identity, body])
    assert [dealer.recv() for _ in burst] == burst
    for body in burst:
        dealer.send(body)
    assert [router.recv()[1] for _ in burst] == burst
    dealer.close()


def test_large_messages_cross_both_ways_whole(router: Router) -> None:
    dealer = connected(router.endpoint)
    dealer.send(b"hello")
    identity, _ = router.recv()
    for size in (255, 256, 65535, 65536 + 7, 3 << 20):  # short and long frames, over many reads
        body = bytes(range(256)) * (size // 256) + b"\x01" * (size % 256)
        received: list[bytes] = []
        reader = threading.Thread(target=lambda received=received: received.append(dealer.recv()))
        reader.start()  # the Dealer reads while libzmq writes: neither side's buffers hold 3 MiB
        router.sock.send_multipart([identity, body])
        reader.join(10)
        assert received == [body], size
        sender = threading.Thread(target=dealer.send, args=(body,))
        sender.start()
        assert router.recv()[1] == body, size
        sender.join(10)
    dealer.close()


def test_the_dealer_answers_libzmqs_heartbeats_and_keeps_its_connection(tmp_path: Path) -> None:
    router = Router(tmp_path, HEARTBEAT_IVL=50, HEARTBEAT_TIMEOUT=400)  # a timeout a loaded machine keeps
    try:
        dealer = connected(router.endpoint)
        assert router.event() == zmq.EVENT_HANDSHAKE_SUCCEEDED
        dealer.send(b"hello")
        identity, _ = router.recv()
        pings = 0
        feed = dealer.decoder.feed

        def counting(data: bytes) -> list[tuple[str, Any]]:
            nonlocal pings
            events = feed(data)
            pings += sum(kind == "ping" for kind, _ in events)
            return events

        dealer.decoder.feed = counting  # type: ignore[method-assign]
        received: list[bytes] = []
        reader = threading.Thread(target=lambda: received.append(dealer.recv()))
        reader.start()  # blocked in recv, answering PINGs as they come
        assert wait_until(lambda: pings >= 30, 15), pings  # 1.5 s at least: three of libzmq's timeouts
        assert not router.monitor.poll(0), "libzmq dropped a Dealer that answered its PINGs"
        router.sock.send_multipart([identity, MOVE])
        reader.join(5)
        assert received == [MOVE]
        dealer.close()
    finally:
        router.close()


def test_a_router_that_closes_ends_the_dealers_recv(router: Router) -> None:
    dealer = connected(router.endpoint)
    dealer.send(b"hello")
    identity, _ = router.recv()
    router.sock.send_multipart([identity, MOVE])
    router.sock.close(linger=1000)  # what was sent still goes out, then the connection closes
    assert dealer.recv() == MOVE
    with pytest.raises(ConnectionError, match="closed the connection"):
        dealer.recv()
    dealer.close()


def test_a_dealer_that_closes_is_a_disconnection_after_its_last_message(router: Router) -> None:
    dealer = connected(router.endpoint)
    assert router.event() == zmq.EVENT_HANDSHAKE_SUCCEEDED
    dealer.send(MOVE)
    dealer.close()
    assert router.recv()[1] == MOVE
    assert router.event() == zmq.EVENT_DISCONNECTED
    again = connected(router.endpoint)  # and a new connection is admitted as the first was
    again.send(b"again")
    assert router.recv()[1] == b"again"
    again.close()
