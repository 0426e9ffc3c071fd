"""Blocking (Blokovanie): pick a free cell, it and its 8 neighbours become blocked."""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from arena.games.base import (
    Event,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    game_of_module,
    is_int,
    iter_bits,
    need_int,
    need_list,
    need_pair,
    need_setup_map,
)
from arena.kit.setups import random_sizes
from protocol.messages import Reason

NAME = game_of_module(__name__)  # the folder's name
VERSION = 1
MAX_SIDE = 50
SETUP_KEYS = {"rows", "cols", "blocked", "to_move"}
# Options of the random-setup generator (never part of a finished setup).
OPTION_KEYS = {"min_size", "max_size", "density"}


@lru_cache(maxsize=64)
def neighbourhoods(rows: int, cols: int) -> tuple[int, ...]:
    """For each cell index r*cols+c, the bit mask of the cell and its king-move neighbours."""
    masks = []
    for r in range(rows):
        for c in range(cols):
            mask = 0
            for rr in range(max(0, r - 1), min(rows, r + 2)):
                for cc in range(max(0, c - 1), min(cols, c + 2)):
                    mask |= 1 << (rr * cols + cc)
            masks.append(mask)
    return tuple(masks)



class BlockingState(State):
    """A Blocking position: the free cells as one integer bit mask (bit r*cols+c)."""

    __slots__ = ("cols", "free", "mover", "nbr", "ply", "rows")

    def __init__(self, rows: int, cols: int, free: int, mover: int, ply: int = 0) -> None:
        # Bit masks: a move is one AND-NOT, and legal moves are the set bits of `free`.
        self.rows = rows
        self.cols = cols
        self.free = free
        self.mover = mover
        self.ply = ply
        self.nbr = neighbourhoods(rows, cols)

    def to_move(self) -> int | None:
        return None if self.free == 0 else self.mover

    def legal_moves(self) -> list[Move]:
        cols = self.cols
        return [[i // cols, i % cols] for i in iter_bits(self.free)]

    def apply(self, move: Move) -> list[Event]:
        if self.free == 0:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, (list, tuple)) or len(move) != 2 or not all(map(is_int, move)):
            raise IllegalMove(move, "a move is [row, column]")
        r, c = move
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise IllegalMove(move, f"cell is off the {self.rows}x{self.cols} board")
        index = r * self.cols + c
        if not self.free >> index & 1:
            raise IllegalMove(move, "cell is already blocked")
        self.free &= ~self.nbr[index]
        self.mover ^= 1
        self.ply += 1
        return []

    def is_over(self) -> bool:
        return self.free == 0

    def end_reason(self) -> Reason:
        # The game only ends when the player to move finds no free cell.
        return Reason.BLOCKED

    def scores(self) -> list[float]:
        if self.free:
            return [0.0, 0.0]
        # The player to move is stuck and loses.
        return [0.0, 1.0] if self.mover == 0 else [1.0, 0.0]

    def fingerprint(self) -> int:
        # The free-cell mask says it all; listing 2,500 cells per ply for a log is too slow.
        size = (self.rows * self.cols + 7) // 8
        head = bytes([self.rows, self.cols, self.mover])
        return zlib.crc32(head + self.free.to_bytes(size, "little"))

    def forfeit_scores(self, offender: int) -> list[float]:
        return [0.0, 1.0] if offender == 0 else [1.0, 0.0]

    def is_free(self, r: int, c: int) -> bool:
        """True when cell (r, c) is free."""
        return bool(self.free >> (r * self.cols + c) & 1)

    def render(self) -> str:
        return "\n".join(
            "".join("-" if self.is_free(r, c) else "X" for c in range(self.cols))
            for r in range(self.rows)
        )

    def blocked_cells(self) -> list[list[int]]:
        """Every blocked cell as [r, c], row-major."""
        return [
            [r, c] for r in range(self.rows) for c in range(self.cols) if not self.is_free(r, c)
        ]

    def to_data(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "blocked": self.blocked_cells(),
            "to_move": self.mover,
            "ply": self.ply,
        }

    def to_setup(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "cols": self.cols,
            "blocked": self.blocked_cells(),
            "to_move": self.mover,
        }

    def copy(self) -> BlockingState:
        return BlockingState(self.rows, self.cols, self.free, self.mover, self.ply)


class Blocking(Game):
    """Node Kayles on the king's graph of a rows x cols board."""

    name = NAME
    version = VERSION
    min_players = 2
    max_players = 2
    description = "pick a free cell; it and its 8 neighbours become blocked; no move loses"
    exact_setups = True

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(NAME, setup, SETUP_KEYS, ("rows", "cols"))
        rows = need_int(NAME, "rows", setup["rows"], 1, MAX_SIDE)
        cols = need_int(NAME, "cols", setup["cols"], 1, MAX_SIDE)
        blocked = []
        seen = set()
        for i, cell in enumerate(need_list(NAME, "blocked", setup.get("blocked", []))):
            r, c = need_pair(NAME, f"blocked[{i}]", cell)
            if not (0 <= r < rows and 0 <= c < cols):
                raise SetupError(NAME, f"blocked[{i}] = [{r}, {c}] is off the {rows}x{cols} board")
            if (r, c) not in seen:
                seen.add((r, c))
                blocked.append([r, c])
        to_move = need_int(NAME, "to_move", setup.get("to_move", 0), 0, 1)
        result: dict[str, Any] = {"rows": rows, "cols": cols, "blocked": sorted(blocked)}
        if to_move:
            result["to_move"] = to_move
        return result

    def random_setup(
        self, rng: random.Random, players: int = 2, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        partial = dict(partial or {})
        lo, hi, density = random_sizes(NAME, partial, 3, 10, MAX_SIDE)
        rows = partial.get("rows", rng.randint(lo, hi))
        cols = partial.get("cols", rng.randint(lo, hi))
        setup = dict(partial)
        setup.setdefault("rows", rows)
        setup.setdefault("cols", cols)
        if "blocked" not in setup:
            r_max = need_int(NAME, "rows", rows, 1, MAX_SIDE)
            c_max = need_int(NAME, "cols", cols, 1, MAX_SIDE)
            cells = [[r, c] for r in range(r_max) for c in range(c_max)]
            setup["blocked"] = sorted(rng.sample(cells, int(len(cells) * density)))
        return self.validate_setup(setup, players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        return self.new_state(self.validate_setup(setup, players)), []

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        setup = self.validate_setup({k: data[k] for k in SETUP_KEYS if k in data})
        state = self.new_state(setup)
        state.ply = int(data.get("ply", 0))
        return state

    def new_state(self, setup: Mapping[str, Any]) -> BlockingState:
        """The position of a validated setup."""
        rows, cols = setup["rows"], setup["cols"]
        free = (1 << (rows * cols)) - 1
        for r, c in setup["blocked"]:
            free &= ~(1 << (r * cols + c))
        return BlockingState(rows, cols, free, setup.get("to_move", 0))

    def render_move(self, move: Move) -> str:
        return f"row {move[0]} and column {move[1]}"


BlockingState.game = GAME = Blocking()
