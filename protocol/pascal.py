"""A Turbo Pascal contest module, compiled into a library, served as a Bot (SPEC.md section 12).

The arena compiles a contest module together with a generated library
(arena/launch/pascal/pascal_host.py) that exports `arena_init(sec)` and `arena_turn(d, sec)`;
`python -m protocol.run --pascal LIBRARY --interface MODULE` loads it here and serves it over
either wire. What the module sees of a game is the game's own: MODULE (its folder's pascal.py)
says which pairs to write to `board.dat` before each InitGame (little-endian signed 16-bit
integers, the Turbo Pascal 7 layout), which d to pass to turn, and what move the d the module
leaves stands for.
"""

from __future__ import annotations

import ctypes
import importlib
import struct
from typing import Any

from protocol.bot import Bot

BOARD_FILE = "board.dat"
_PAIR = struct.Struct("<hh")
_SEC_MAX = 2**31 - 1


def _sec(time_left_ms: int) -> int:
    return max(0, min(_SEC_MAX, int(time_left_ms)))


class PascalModule(Bot):
    """The module's InitGame and turn, called in this process through its library."""

    def __init__(self, library: str = "", interface: str = "", seed: int = 0) -> None:
        super().__init__(seed)
        self.interface = importlib.import_module(interface)  # the game's pascal.py: board_pairs, turn_argument, move_of
        self.lib = ctypes.CDLL(library)
        self.lib.arena_init.argtypes = [ctypes.c_int32]
        self.lib.arena_init.restype = ctypes.c_int32
        self.lib.arena_turn.argtypes = [ctypes.c_int32, ctypes.c_int32]
        self.lib.arena_turn.restype = ctypes.c_int32
        self.seat = 0

    def init_game(self, game: str, seat: int, players: int, setup: dict[str, Any], time_left_ms: int,
                  match: str) -> None:
        """Write the board file and call InitGame."""
        self.seat = seat
        with open(BOARD_FILE, "wb") as board:
            board.write(b"".join(_PAIR.pack(x, y) for x, y in self.interface.board_pairs(setup)))
        self.lib.arena_init(_sec(time_left_ms))

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        """Call turn with the game's d for these events; the d it leaves is the move."""
        d = self.interface.turn_argument(events, self.seat)
        return self.interface.move_of(self.lib.arena_turn(d, _sec(time_left_ms)))
