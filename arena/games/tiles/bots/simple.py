"""Tiles strategies: random, and the assignment's greedy move (a row as full as possible)."""

from __future__ import annotations

from arena.games import Move
from bots import common
from bots.common import GameBot

from ..rules import COLOURS, TilesState


def row_fill_after(state: TilesState, move: Move) -> int:
    """How many tiles the row receiving move holds afterwards."""
    plate, colour = move
    c = COLOURS.index(colour)
    count = state.plates[plate][c]
    row = state.target_row(state.mover, c, count)
    return state.boards[state.mover][row][c] + count


class RandomBot(common.RandomBot):
    """A uniformly random legal move (seeded)."""


class GreedyBot(GameBot):
    """A move that fills a row if any, else makes a row as full as possible.

    Ties go to the first legal move (lowest plate, yellow before blue).
    """

    name = "greedy"
    strength = 2
    description = "make a row as full as possible, a full row first"

    def choose(self, state: TilesState, time_left_ms: int) -> Move:
        def key(move: Move) -> tuple[bool, int]:
            fill = row_fill_after(state, move)
            return fill == state.row_len, fill

        return max(state.legal_moves(), key=key)
