"""The codec: every malformed frame becomes one ProtocolError, never another exception."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import ProtocolError, check_message, decode, decode_from_bot, encode
from protocol.messages import BOT_TYPES, MAX_DEPTH, MAX_MESSAGE_BYTES


def test_round_trip_of_a_turn() -> None:
    message = {"type": "turn", "seq": 3, "match": "m", "events": [[1, [2, 3]], [-1, {"offer": [[[0, 0]]]}]],
               "time_left_ms": 950}
    assert decode(encode(message)) == message


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        (b"", "not a msgpack value"),
        (b"\xc1", "not a msgpack value"),
        (msgpack.packb([1, 2]), "not a map"),
        (msgpack.packb("hello"), "not a map"),
        (msgpack.packb({"a": 1})[:-1], "not a msgpack value"),
        (msgpack.packb({"a": 1}) + b"\x00", "not a msgpack value"),
        (msgpack.packb({1: 2}), "not a msgpack value"),
        (msgpack.packb({"a": b"bytes"}, use_bin_type=True), "not a msgpack value"),
        (msgpack.packb({"a": msgpack.ExtType(5, b"x")}), "not a msgpack value"),
        (b"\x81\xa1a\xda\xff\xff" + b"x" * 10, "not a msgpack value"),
    ],
)
def test_malformed_frames_raise_protocol_error(frame: bytes, fragment: str) -> None:
    with pytest.raises(ProtocolError, match=fragment):
        decode(frame)


def test_oversized_frame() -> None:
    with pytest.raises(ProtocolError, match="exceeds"):
        decode(msgpack.packb({"type": "move", "move": "x" * MAX_MESSAGE_BYTES}))


def test_nesting_limit() -> None:
    value: object = 0
    for _ in range(MAX_DEPTH + 1):
        value = [value]
    with pytest.raises(ProtocolError, match="nested deeper"):
        decode(msgpack.packb({"type": "move", "seq": 1, "move": value}))
    very_deep = b"\x81\xa1a" + b"\x91" * 5000 + b"\x00"
    with pytest.raises(ProtocolError):
        decode(very_deep)


def test_string_and_container_limits() -> None:
    with pytest.raises(ProtocolError):
        decode(msgpack.packb({"type": "x" * (1 << 17)}))
    with pytest.raises(ProtocolError):
        decode(msgpack.packb({"type": "move", "move": list(range(1 << 17))}))


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        ({"seq": 1}, "unknown message type"),
        ({"type": "turn", "seq": 1}, "unknown message type"),
        ({"type": "move", "seq": "1", "move": 0}, "seq"),
        ({"type": "move", "seq": True, "move": 0}, "seq"),
        ({"type": "move", "seq": 1}, "'move' missing"),
        ({"type": "hello", "protocol": 1}, "token"),
    ],
)
def test_message_checks(message: dict, fragment: str) -> None:
    with pytest.raises(ProtocolError, match=fragment):
        check_message(message, BOT_TYPES)


def test_bot_message_accepted() -> None:
    kind, message = decode_from_bot(encode({"type": "move", "seq": 4, "move": [1, 2]}))
    assert kind == "move" and message["move"] == [1, 2]


@settings(max_examples=3000, deadline=None)
@given(st.binary(max_size=256))
def test_random_bytes_never_escape_as_other_exceptions(frame: bytes) -> None:
    try:
        decode_from_bot(frame)
    except ProtocolError:
        pass


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=30,
)


@settings(max_examples=1000, deadline=None)
@given(st.dictionaries(st.text(max_size=8), plain, max_size=5), st.integers(0, 40), st.binary(max_size=4))
def test_mutated_messages_never_escape_as_other_exceptions(message: dict, cut: int, noise: bytes) -> None:
    frame = encode(message)
    for mutated in (frame[:cut], frame[cut:] + noise, noise + frame, frame[:cut] + noise + frame[cut:]):
        try:
            decode_from_bot(mutated)
        except ProtocolError:
            pass
