"""Fuzz target: the ZeroMQ wire as the referee's seats and the SDK read it (protocol/zmtp.py Decoder).

The first byte of an input says how the stream is decoded: bit 0, whether the target puts a
DEALER's greeting and READY before it (so that most inputs reach the framing); bits 1-2, the
decoder's size limit (MAX_MESSAGES: below a short frame's 255 bytes, to the referee's own);
bits 3-4, how the stream is cut into writes: at random places, at its frames' ends (as a
writer sends frame by frame: the decoder's hot path), at both, or byte by byte (through a
window of BYTE_WINDOW bytes). The second byte seeds the cuts; the rest is the stream. Whatever
the cuts, the events and the error must be those of the whole stream fed at once, and an error is one line.
"""

from __future__ import annotations

import random
from typing import Any

import harness

with harness.instrument(__name__):
    from protocol import zmtp
    from protocol.messages import MAX_MESSAGE_BYTES

HANDSHAKE = zmtp.greeting() + zmtp.ready(b"DEALER")
MAX_MESSAGES = (16, 254, 4096, MAX_MESSAGE_BYTES)
BYTE_WINDOW = 256  # bytes fed one by one: each feed costs a pass of the decoder, instrumented
MEMORY_PER_BYTE = 64  # frames are copied out of the buffer once, and kept in the events of two decodings
MEMORY_BASE = 1 << 20

Verdict = tuple[list[tuple[str, Any]], str | None]


def decode(chunks: list[bytes], max_message: int) -> Verdict:
    """The events a fresh ROUTER decoder gives, chunk by chunk, and its error's text (None without one)."""
    decoder = zmtp.Decoder(b"ROUTER", max_message)
    events: list[tuple[str, Any]] = []
    for chunk in chunks:
        try:
            events += decoder.feed(chunk)
        except zmtp.ZmtpError as exc:
            return events + exc.events, harness.one_line(exc)
    return events, None


def frame_ends(stream: bytes, start: int) -> list[int]:
    """Where the frames from start end, as their headers say (a writer's view: flags are not checked)."""
    ends = []
    at = start
    while at + 2 <= len(stream):
        if stream[at] & zmtp.LONG:
            if at + 9 > len(stream):
                break
            at += 9 + int.from_bytes(stream[at + 1:at + 9], "big")
        else:
            at += 2 + stream[at + 1]
        if at > len(stream):
            break
        ends.append(at)
    return ends


def cuts(stream: bytes, mode: int, seed: int, start: int) -> list[int]:
    """The places the stream is cut at, in the mode the input asks for."""
    if mode == 3:  # byte by byte through a window (the whole of a short stream) placed by the seed
        first = max(1, len(stream) - BYTE_WINDOW) * seed // 256
        return list(range(max(1, first), min(len(stream), first + BYTE_WINDOW)))
    chosen: set[int] = set()
    if mode in (1, 2):
        chosen.update(frame_ends(stream, start))
        chosen.add(start)
    if mode in (0, 2) and stream:
        rng = random.Random(seed)
        chosen.update(rng.randrange(1, len(stream) + 1) for _ in range(rng.randrange(1, 9)))
    return sorted(chosen)


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Decode one stream at once and in pieces; raise Finding when the verdicts differ."""
    if len(data) < 2:
        return
    greet, max_message, mode = data[0] & 1, MAX_MESSAGES[(data[0] >> 1) & 3], (data[0] >> 3) & 3
    stream = (HANDSHAKE if greet else b"") + data[2:]
    places = [0, *cuts(stream, mode, data[1], len(HANDSHAKE) if greet else 0), len(stream)]
    chunks = [stream[a:b] for a, b in zip(places, places[1:]) if b > a]
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        whole = decode([stream], max_message)
        split = decode(chunks, max_message)
    if split != whole:
        differ = next((i for i, (a, b) in enumerate(zip(split[0], whole[0])) if a != b), None)
        raise harness.Finding(f"in {len(chunks)} writes ({[len(c) for c in chunks][:20]}): {split[1]!r} after "
                              f"{len(split[0])} events; in one write: {whole[1]!r} after {len(whole[0])} events"
                              + ("" if differ is None else f"; event {differ} differs"))


def seeds() -> list[bytes]:
    """Messages, commands and broken frames after a handshake, in each way of cutting."""
    move = zmtp.frame(b"\x83\xa4type\xa4move\xa3seq\x02\xa4move\x92\x03\x04")
    streams = [
        move + zmtp.frame(b"x" * 300) + zmtp.command(b"PING", b"\x00\x10ctx") + move,
        zmtp.frame(b"x", more=True) + move + move,
        move + bytes((0x08, 1)) + b"z",
        zmtp.command(b"PONG") + zmtp.frame(b"y" * 20, more=True) + zmtp.frame(b"", more=True) + move,
    ]
    inputs = [bytes((1 | limit << 1 | mode << 3, 7)) + stream
              for stream in streams for mode in range(4) for limit in (1, 3)]
    inputs.append(bytes((0, 0)) + HANDSHAKE + move)  # the handshake as the input's own bytes
    return inputs


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
