"""Fuzz target: a ZeroMQ bot's frame as the referee decodes it (protocol/codec.py decode_from_bot).

Every input is one frame. The answer must be a message that passes check_message, or a
one-line ProtocolError; the decoder's allocations stay within a small multiple of the frame
(msgpack allocates what a header claims before it reads the items); what is accepted packs
again to the same frame value, since the referee logs and forwards it.
"""

from __future__ import annotations

import harness

with harness.instrument(__name__):
    from protocol.codec import ProtocolError, decode, decode_from_bot, encode

MEMORY_PER_BYTE = 128  # an empty map costs ~64 bytes of Python objects per byte of frame
MEMORY_BASE = 1 << 20


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Decode one frame; raise Finding (or any other exception) when the answer is wrong."""
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            _, message = decode_from_bot(data)
        except ProtocolError as exc:
            harness.one_line(exc)
            return
    frame = encode(message)
    if encode(decode(frame)) != frame:
        raise harness.Finding(f"an accepted frame does not pack back to itself: {data[:100]!r}")


def seeds() -> list[bytes]:
    """One frame of each kind a bot sends, and a few shapes of moves."""
    messages = [
        {"type": "hello", "protocol": 1, "token": "0123456789abcdef", "name": "seed"},
        {"type": "ready", "seq": 1},
        {"type": "move", "seq": 2, "move": [3, 4]},
        {"type": "move", "seq": 3, "move": {"kind": "rotate", "path": [0, 1, 2], "clockwise": True}},
        {"type": "move", "seq": 4, "move": [[1, 2], -1.5, None, "x" * 40, 2**64 - 1, -(2**63)]},
        {"type": "resign", "seq": 5},
    ]
    return [encode(m) for m in messages]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
