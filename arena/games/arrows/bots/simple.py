"""Arrows strategies: random, and greedy (keep the most room around the next target)."""

from __future__ import annotations

from arena.games import Move
from bots import common
from bots.common import GameBot

from ..rules import ArrowsState, neighbour_masks


def next_target_room(state: ArrowsState, direction: int) -> int:
    """Free neighbours of the cell the new head would point at after playing direction.

    -1 when that cell would not be playable next turn: off the board, occupied (the new
    piece included), or the opponent's current target, which the opponent fills first.
    """
    seat = state.mover
    here = state.target(seat)
    nxt = state.table[here * 8 + direction]
    occupied = state.occupied | 1 << here
    if nxt < 0 or occupied >> nxt & 1 or nxt == state.target(1 - seat):
        return -1
    free_neighbours = neighbour_masks(state.cols, state.rows)[nxt] & ~occupied
    return free_neighbours.bit_count()


class RandomBot(common.RandomBot):
    """A uniformly random direction (seeded)."""

    description = "uniformly random direction"


class GreedyBot(GameBot):
    """The direction whose next target has the most free neighbours; ties: lowest direction."""

    name = "greedy"
    strength = 2
    description = "direction whose next target has the most free neighbours"

    def choose(self, state: ArrowsState, time_left_ms: int) -> Move:
        # max() keeps the first maximum, so ties go to the lowest direction.
        return max(state.legal_moves(), key=lambda d: next_target_room(state, d))
