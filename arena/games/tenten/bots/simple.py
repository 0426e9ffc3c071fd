"""The reference players: random drops and the assignment's round-greedy `play_greedy`."""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from typing import Any

from arena.games import Move
from bots import common
from bots.common import GameBot

from ..rules import (
    Block,
    Placement,
    TentenState,
    line_masks,
    placements,
    score_drop,
)

# One step of a plan: the board and offer expected before it, the shape to drop and where.
Step = tuple[tuple[int, tuple[Block, ...]], Block, Placement]
# The value of a search node: the points still to score and the drops that score them.
Plan = tuple[int, tuple[tuple[Block, Placement], ...]]


class RandomBot(common.RandomBot):
    """A uniformly random legal drop (seeded)."""

    description = "uniformly random legal drop"


class RoundPlanner:
    """Best order and placements of the blocks on offer for the points of this round alone."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.rows, self.columns = line_masks(size)
        # Keyed by board and the multiset of shapes left: two offered blocks of one shape and
        # different orders that meet on the same board are searched once.
        self.memo: dict[tuple[int, tuple[Block, ...]], Plan] = {}

    def best(self, board: int, shapes: tuple[Block, ...]) -> Plan:
        """The most points the shapes (sorted) can still score from board, and the drops."""
        key = (board, shapes)
        found = self.memo.get(key)
        if found is not None:
            return found
        if len(shapes) == 1:
            result = self.last(board, shapes[0])
        else:
            result: Plan = (0, ())
            seen = set()
            for index, shape in enumerate(shapes):
                if shape in seen:
                    continue
                seen.add(shape)
                rest = shapes[:index] + shapes[index + 1 :]
                for placement in placements(self.size, shape):
                    if board & placement.mask:
                        continue
                    after, points = score_drop(board, placement)
                    value, steps = self.best(after, rest)
                    if points + value > result[0]:  # strictly: the first best plan is kept
                        result = (points + value, ((shape, placement),) + steps)
        self.memo[key] = result
        return result

    def last(self, board: int, shape: Block) -> Plan:
        """The best single drop of shape: any fitting one unless some drop can empty a line."""
        # A drop can only empty a line that lacks no more cells than the shape puts in one
        # row (or column); when no line is that close, every fitting placement scores just
        # its dots, so the first one will do. This skips most of the search's leaves.
        row_cover, column_cover = _covers(shape)
        empty = ~board
        close = any((line & empty).bit_count() <= row_cover for line in self.rows) or any(
            (line & empty).bit_count() <= column_cover for line in self.columns
        )
        best: Plan = (0, ())
        for placement in placements(self.size, shape):
            if board & placement.mask:
                continue
            if not close:
                return placement.dots, ((shape, placement),)
            points = score_drop(board, placement)[1]
            if points > best[0]:
                best = (points, ((shape, placement),))
        return best


@lru_cache(maxsize=1024)
def _covers(shape: Block) -> tuple[int, int]:
    """The most dots shape has in one row, and in one column."""
    rows = Counter(dr for _, dr in shape)
    columns = Counter(dk for dk, _ in shape)
    return max(rows.values()), max(columns.values())


LOW_CLOCK_MS = 250  # below this, greedy stops planning rounds


def plan_round(state: TentenState) -> list[Step]:
    """The assignment's play_greedy for the blocks still on offer: the plan scoring most this round."""
    shapes = tuple(sorted(state.offer))
    _, drops = RoundPlanner(state.size).best(state.board, shapes)
    steps: list[Step] = []
    board, offer = state.board, list(state.offer)
    for shape, placement in drops:
        steps.append(((board, tuple(offer)), shape, placement))
        board = score_drop(board, placement)[0]
        offer.remove(shape)
    return steps


class GreedyBot(GameBot):
    """Per round, every order and placement of the offered blocks; the most points this round."""

    name = "greedy"
    strength = 2
    description = "best order and placements for the current round (the assignment's play_greedy)"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.plan: list[Step] = []

    def on_init(self, time_left_ms: int) -> None:
        self.plan = []

    def choose(self, state: TentenState, time_left_ms: int) -> Move:
        position = (state.board, tuple(state.offer))
        if not self.plan or self.plan[0][0] != position:
            if time_left_ms < LOW_CLOCK_MS:
                # Planning a round costs tens of milliseconds, more on a busy machine: with the clock
                # nearly spent, the first fitting drop keeps the bot in the game instead.
                return state.legal_moves()[0]
            # A new round (or an unexpected position): plan the rest of the round afresh.
            self.plan = plan_round(state)
        if not self.plan:
            return state.legal_moves()[0]  # unreachable while the game runs: something fits
        _, shape, placement = self.plan.pop(0)
        return [state.offer.index(shape), placement.k, placement.r]
