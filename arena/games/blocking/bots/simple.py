"""The assignment's strategies: sequential, random and maximum-blocking."""

from __future__ import annotations

from arena.games import Move
from bots import common
from bots.common import GameBot

from ..rules import BlockingState, iter_bits


class SequentialBot(GameBot):
    """The first free cell in row-major order."""

    name = "sequential"
    strength = 1
    description = "first free cell in row-major order"

    def choose(self, state: BlockingState, time_left_ms: int) -> Move:
        index = (state.free & -state.free).bit_length() - 1
        return [index // state.cols, index % state.cols]


class RandomBot(common.RandomBot):
    """A uniformly random free cell (seeded)."""

    strength = 2
    description = "uniformly random free cell"


class MaxBlockBot(GameBot):
    """The cell that blocks the most free cells; ties go to the first in row-major order."""

    name = "maxblock"
    strength = 3
    description = "cell that blocks the most free cells (row-major tie-break)"

    def choose(self, state: BlockingState, time_left_ms: int) -> Move:
        best, best_count = -1, -1
        for index in iter_bits(state.free):
            count = (state.free & state.nbr[index]).bit_count()
            if count > best_count:
                best, best_count = index, count
        return [best // state.cols, best % state.cols]
