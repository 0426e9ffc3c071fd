"""A Turbo Pascal arrows module, compiled into a library, served as a Bot (SPEC.md section 12).

The arena compiles a contest module together with a generated library
(arena/launch/pascal_host.py) that exports `arena_init(sec)` and `arena_turn(d, sec)`;
`python -m protocol.run --pascal LIBRARY` loads it here and serves it over either wire.
Before each InitGame the board is written to `board.dat` in the working directory in the
Turbo Pascal 7 layout: pairs of little-endian signed 16-bit integers, (cols, rows), the first
player's head, the second's, (the first's direction, the second's), then the blocked cells.
The first player is the seat that moves first.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from typing import Any

from protocol.bot import Bot

BOARD_FILE = "board.dat"
NO_MOVE = 255  # d when the module moves first; as an answer, a resignation
_PAIR = struct.Struct("<hh")
_SEC_MAX = 2**31 - 1


def board_pairs(setup: dict[str, Any]) -> list[tuple[int, int]]:
    """The pairs of board.dat for an arrows setup."""
    first = int(setup.get("to_move", 0)) & 1
    heads, dirs = setup["heads"], setup["dirs"]
    pairs = [(setup["cols"], setup["rows"]), tuple(heads[first]), tuple(heads[1 - first]),
             (dirs[first], dirs[1 - first])]
    pairs += [tuple(cell) for cell in setup.get("blocked", [])]
    return [(int(x), int(y)) for x, y in pairs]


def _sec(time_left_ms: int) -> int:
    return max(0, min(_SEC_MAX, int(time_left_ms)))


class PascalModule(Bot):
    """The module's InitGame and turn, called in this process through its library."""

    def __init__(self, library: str = "", seed: int = 0) -> None:
        super().__init__(seed)
        self.lib = ctypes.CDLL(library)
        self.lib.arena_init.argtypes = [ctypes.c_int32]
        self.lib.arena_init.restype = ctypes.c_int32
        self.lib.arena_turn.argtypes = [ctypes.c_int32, ctypes.c_int32]
        self.lib.arena_turn.restype = ctypes.c_int32
        self.seat = 0

    def init_game(self, game: str, seat: int, players: int, setup: dict[str, Any], time_left_ms: int,
                  match: str) -> None:
        """Write the board file and call InitGame."""
        if game != "arrows":
            print(f"pascal module: Pascal modules play arrows only, not {game}", file=sys.stderr, flush=True)
            sys.exit(2)
        self.seat = seat
        with open(BOARD_FILE, "wb") as board:
            board.write(b"".join(_PAIR.pack(x, y) for x, y in board_pairs(setup)))
        self.lib.arena_init(_sec(time_left_ms))

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        """Call turn with the other seat's last direction; its answer is the move (255 resigns)."""
        d = NO_MOVE
        for actor, move in events:
            if isinstance(actor, int) and actor >= 0 and actor != self.seat:
                d = move
        return self.lib.arena_turn(d, _sec(time_left_ms))
