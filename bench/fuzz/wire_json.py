"""Fuzz target: a stdio bot's line as the referee decodes it (protocol/codec.py decode_json_line).

Every input is one line (without its newline). The answer must be a message that passes
check_message, or a one-line ProtocolError. What is accepted must be something the referee
can log and forward: it packs as msgpack and writes back as strict JSON (SPEC section 10: no
NaN or Infinity) to the same value.
"""

from __future__ import annotations

import json

import harness

with harness.instrument(__name__):
    from protocol.codec import ProtocolError, check_message, decode, decode_json_line, encode
    from protocol.messages import BOT_TYPES

MEMORY_PER_BYTE = 128
MEMORY_BASE = 1 << 20


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Decode one line; raise Finding (or any other exception) when the answer is wrong."""
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            message = decode_json_line(data)
            check_message(message, BOT_TYPES)
        except ProtocolError as exc:
            harness.one_line(exc)
            return
    frame = encode(message)  # the match log and the ZeroMQ side speak msgpack
    if encode(decode(frame)) != frame:
        raise harness.Finding(f"an accepted line does not pack back to itself: {data[:100]!r}")
    again = json.dumps(message, allow_nan=False, ensure_ascii=False).encode()
    if decode_json_line(again) != json.loads(again):
        raise harness.Finding(f"an accepted line does not read back as itself: {data[:100]!r}")


def seeds() -> list[bytes]:
    """One line of each kind a bot sends, and a few shapes of moves."""
    return [
        b'{"type": "hello", "protocol": 1, "token": "", "name": "seed"}',
        b'{"type":"ready","seq":1}',
        b'{"type":"move","seq":2,"move":[3,4]}',
        b'\xef\xbb\xbf{"type":"move","seq":3,"move":{"kind":"rotate","path":[0,1,2],"clockwise":true}}',
        b'{"type":"move","seq":4,"move":[[1,2],-1.5e3,null,"\\u00e9\\ud83d\\ude00",18446744073709551615]}',
        b'{"type":"resign","seq":5}',
    ]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
