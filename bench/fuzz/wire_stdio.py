"""Fuzz target: the referee's reading of a stdio bot's output pipe (arena/match/stdio.py PipeLink).

The first byte of an input says whether the bot greets (bit 0: its first line must be a
`hello`) and the size of the pieces the rest reaches the pipe in (bits 1..7: 1..128 bytes;
after PIECES pieces, what is left comes at once); the rest is what the bot writes. The link
reads a real pipe, and a trace taps it. Whatever the pieces, the messages taken and the first
violation must be those of the whole stream read line by line: every taken message passes
check_message, the violation is one line.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

import harness

with harness.instrument(__name__):
    from arena.match.link import Via
    from arena.match.stdio import PipeLink
    from arena.match.trace import Tracer, TraceTap
    from protocol.codec import ProtocolError, check_message, decode_json_line
    from protocol.messages import BOT_TYPES, PROTOCOL_VERSION

_TRACER = Tracer(os.devnull)
PIECES = 8  # each piece costs a write and a read: more would spend the run on system calls
MEMORY_PER_BYTE = 256
MEMORY_BASE = 1 << 20


def _expected(stream: bytes, greets: bool) -> tuple[list[dict[str, Any]], bool]:
    """The messages a reader of the whole stream takes, and whether it saw a violation."""
    messages: list[dict[str, Any]] = []
    *lines, _ = stream.split(b"\n")  # what follows the last newline is a line not finished yet
    for line in lines:
        if not line.strip():
            continue
        try:
            message = decode_json_line(line)
            check_message(message, BOT_TYPES)
        except ProtocolError:
            return messages, True
        if greets:
            if message["type"] != "hello" or message["protocol"] != PROTOCOL_VERSION:
                return messages, True
            greets = False
            continue
        messages.append(message)
    return messages, False


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Write one stream to a pipe in pieces; raise Finding when the link reads it wrongly."""
    if not data:
        return
    greets, piece, stream = bool(data[0] & 1), (data[0] >> 1) + 1, data[1:]
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    process = SimpleNamespace(spec=SimpleNamespace(name="fuzz"), stdout_fd=read_fd, stdin_fd=-1)
    link = PipeLink(process, greets=greets)  # type: ignore[arg-type]
    link.tap = TraceTap(_TRACER, "fuzz", 0, Via.STDIO)
    try:
        with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
            cuts = [*range(0, min(len(stream), PIECES * piece), piece), len(stream)]
            for start, end in zip(cuts, cuts[1:]):
                os.write(write_fd, stream[start:end])
                link.pump()
            taken = []
            while (message := link.take()) is not None:
                taken.append(message)
    finally:
        os.close(write_fd)
        os.close(read_fd)
    messages, violated = _expected(stream, greets)
    if taken != messages or bool(link.violation) != violated:
        raise harness.Finding(f"pieces of {piece} bytes: took {len(taken)} messages "
                              f"(violation {link.violation!r}), the whole stream gives {len(messages)}")
    if link.violation:
        harness.one_line(ProtocolError(link.violation))


def seeds() -> list[bytes]:
    """A plain and a greeting bot's replies, in pieces of 1, 7 and 128 bytes."""
    replies = (b'{"type":"ready","seq":1}\n\n{"type":"move","seq":2,"move":[3,4]}\n'
               b'{"type":"move","seq":3,"move":{"path":[0,1],"clockwise":true}}\r\n{"type":"resign","seq":4}\n')
    hello = b'{"type":"hello","protocol":1,"token":"","name":"seed"}\n'
    return [bytes([0]) + replies, bytes([13]) + hello + replies, bytes([255]) + replies + b'{"type":"mo']


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
