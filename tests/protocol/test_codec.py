"""The codec: every malformed frame becomes one ProtocolError, never another exception."""

from __future__ import annotations

import tracemalloc

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import (
    ProtocolError,
    check_message,
    decode,
    decode_from_bot,
    decode_json_line,
    encode,
)
from protocol.messages import BOT_TYPES, MAX_DEPTH, MAX_MESSAGE_BYTES
from tests.helpers import ROOT

FUZZ_CORPUS = ROOT / "bench" / "fuzz" / "corpus"


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


# --- inputs found by the fuzz targets (bench/fuzz/wire_*.py), kept in bench/fuzz/corpus --------


def test_headers_that_claim_more_items_than_the_frame_holds_cost_no_memory() -> None:
    # msgpack allocates what an array header claims before reading an item: 1000 nested
    # headers of 65,536 items each once took 80 MB for a 5 kB frame that ends early.
    frames = [b"\x81\xa1a" + b"\xdd\x00\x01\x00\x00" * 1000, b"\x81\xa1a" + b"\xdc\xff\xff" * 170,
              (FUZZ_CORPUS / "wire_msgpack" / "nested-array-headers").read_bytes()]
    for frame in frames:
        tracemalloc.start()
        try:
            with pytest.raises(ProtocolError):
                decode_from_bot(frame)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert peak < 1 << 20, (len(frame), peak)


def test_a_long_frame_that_holds_what_it_claims_still_decodes() -> None:
    message = {"type": "move", "seq": 1, "move": [[i, [i] * 3] for i in range(5000)]}
    assert decode_from_bot(encode(message)) == ("move", message)


@pytest.mark.parametrize(("line", "fragment"), [
    (b'{"type": "move", "seq": 1, "move": "\\ud800"}', "unpaired surrogate"),
    (b'{"type": "move", "seq": 1, "\\udfff": 0, "move": 0}', "unpaired surrogate"),
    (b'{"type": "move", "seq": 1, "move": [18446744073709551616]}', "does not fit in 64 bits"),
    (b'{"type": "move", "seq": 1, "move": -9223372036854775809}', "does not fit in 64 bits"),
    (b'{"type": "move", "seq": 1, "move": ' + b"7" * 5000 + b"}", r"\(5000 digits\)"),
    (b'{"type": "move", "seq": 1, "move": [1e400]}', "Infinity"),
])
def test_json_lines_hold_only_what_msgpack_carries(line: bytes, fragment: str) -> None:
    with pytest.raises(ProtocolError, match=fragment) as caught:
        decode_json_line(line)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_json_lines_at_the_edges_of_what_msgpack_carries_pass() -> None:
    line = (b'{"type": "move", "seq": 1, "move": [18446744073709551615, -9223372036854775808, 1e308, '
            b'"\\ud83d\\ude00", "\\\\ud800"]}')
    message = decode_json_line(line)
    assert message["move"] == [2**64 - 1, -(2**63), 1e308, "\U0001f600", "\\ud800"]
    assert decode(encode(message)) == message


def test_a_long_message_type_is_quoted_short() -> None:
    with pytest.raises(ProtocolError, match=r"unknown message type 'xxx.*… \(65538 characters\)$"):
        decode_from_bot(encode({"type": "x" * 65536}))


def test_every_kept_fuzz_input_is_answered_in_one_line() -> None:
    for folder, decoder in (("wire_msgpack", decode_from_bot), ("wire_json", decode_json_line)):
        for path in sorted((FUZZ_CORPUS / folder).iterdir()):
            with pytest.raises(ProtocolError) as caught:
                decoder(path.read_bytes())
            assert "\n" not in str(caught.value), path.name
