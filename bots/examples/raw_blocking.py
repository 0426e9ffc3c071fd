#!/usr/bin/env python3
"""A Blocking bot written from protocol/SPEC.md alone: only pyzmq and msgpack, no arena code.

Start it as `exec:python3 bots/examples/raw_blocking.py`. It plays the first free cell that
blocks the fewest other free cells (a different strategy from the reference bots).
"""

import os
import sys

import msgpack
import zmq


def neighbours(rows, cols, r, c):
    """The cell (r, c) and its king-move neighbours on the board."""
    return [(rr, cc) for rr in range(r - 1, r + 2) for cc in range(c - 1, c + 2)
            if 0 <= rr < rows and 0 <= cc < cols]


def main():
    sock = zmq.Context().socket(zmq.DEALER)
    sock.connect(os.environ["ARENA_ENDPOINT"])
    send = lambda message: sock.send(msgpack.packb(message))  # noqa: E731
    send({"type": "hello", "protocol": 1, "token": os.environ["ARENA_TOKEN"], "name": "raw-blocking"})
    free, rows, cols = set(), 0, 0
    while True:
        message = msgpack.unpackb(sock.recv())
        kind = message["type"]
        if kind == "init":
            setup = message["setup"]
            rows, cols = setup["rows"], setup["cols"]
            free = {(r, c) for r in range(rows) for c in range(cols)} - {tuple(b) for b in setup["blocked"]}
            send({"type": "ready", "seq": message["seq"]})
        elif kind == "turn":
            for _seat, (r, c) in message["events"]:  # blocking has no referee events
                free -= set(neighbours(rows, cols, r, c))
            r, c = min(free, key=lambda cell: (len(free & set(neighbours(rows, cols, *cell))), cell))
            free -= set(neighbours(rows, cols, r, c))
            send({"type": "move", "seq": message["seq"], "move": [r, c]})
        elif kind == "bye":
            return 0


if __name__ == "__main__":
    sys.exit(main())
