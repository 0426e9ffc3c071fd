"""blocky `greedy`: every legal move, one ply, judged by goal score minus penalty.

Each move is tried on a copy of the position and valued at the seat's goal score after it
minus the move's penalty; the best value wins, and ties go to the cheaper move, then to the
first in a fixed order (pass first), so the bot is deterministic for a given seed.

- **paint** is tried only with the goal's colour: painting a cell any other colour can never
  raise a blob or perimeter score of the goal colour, so it is always worse than passing.
- **smash** has a random outcome; it is valued at its *sampled expectation*: the mean goal
  score over `samples` random subdivisions drawn like the referee draws them (from
  `self.rng`, so the estimate is reproducible), minus its penalty of 3.

The clock is read on every move: the move's share is the time left over the moves still to
play, and moves are tried cheapest-first (pass, paint, combine, reorders from the top block
down, smashes last) so that a tight clock only drops the least promising candidates.
"""

from __future__ import annotations

import time
from typing import Any

from arena.games import Move
from bots.common import GameBot, int_option

from ..rules import PENALTY, BlockyState, goal_score, random_tree

SAFETY_MS = 100.0  # kept back from the whole-match clock
OVERHEAD_MS = 5.0  # assumed cost of one move outside the evaluation (messages, mirror)
ORDER = {"pass": 0, "paint": 1, "combine": 2, "rotate_cw": 3, "rotate_ccw": 3, "swap_h": 3,
         "swap_v": 3, "smash": 4}


def cell_of(path: list[int], max_depth: int) -> tuple[int, int]:
    """The (x, y) unit cell of a unit-cell path, x from the left, y from the top (as flatten)."""
    x = y = 0
    half = 1 << max_depth
    for child in path:
        half //= 2
        if child in (0, 3):  # upper-right, lower-right
            x += half
        if child in (2, 3):  # lower-left, lower-right
            y += half
    return x, y


class GreedyBot(GameBot):
    """Every legal move one ply deep, by goal score minus penalty (smash: sampled mean)."""

    name = "greedy"
    strength = 3
    description = "every legal move, one ply, goal score minus penalty (smash by sampled mean)"

    def __init__(self, samples: int = 8, **options: Any) -> None:
        super().__init__(**options)
        self.samples = int_option("samples", samples, 0)  # 0: smashes are not tried at all
        self.cut_short = 0  # moves on which the clock stopped the evaluation early

    def candidates(self, state: BlockyState) -> list[Move]:
        """The moves worth trying, in the order they are tried (cheapest and likeliest first)."""
        colour = state.goals[self.seat]["colour"]
        moves = [
            move
            for move in state.legal_moves()
            if (move[0] != "paint" or move[2] == colour) and (move[0] != "smash" or self.samples)
        ]
        # Stable sort: within a kind the engine's order (top block first) is kept.
        moves.sort(key=lambda move: (ORDER[move[0]], len(move[1]) if len(move) > 1 else 0))
        return moves

    def value(self, state: BlockyState, move: Move) -> float:
        """Goal score after move minus its penalty (a smash: the mean over sampled outcomes)."""
        kind = move[0]
        goal = state.goals[self.seat]
        if kind == "pass":
            return float(state.goal_score(self.seat))
        if kind == "paint":
            # One cell changes: patch a copy of the flattened board instead of the tree.
            grid = [list(column) for column in state.flat()]
            x, y = cell_of(move[1], state.max_depth)
            grid[x][y] = move[2]
            return float(goal_score(grid, goal) - PENALTY["paint"])
        if kind == "smash":
            path = move[1]
            total = 0
            for _ in range(self.samples):
                trial = state.copy()
                level = len(path)
                new = [
                    random_tree(self.rng, level + 1, state.max_depth, state.colours)
                    for _ in range(4)
                ]
                trial.set_block(path, new)
                total += trial.goal_score(self.seat)
            return total / self.samples - PENALTY["smash"]
        trial = state.copy()
        trial.apply(move)
        return float(trial.goal_score(self.seat) - PENALTY.get(kind, 0))

    def budget_ms(self, state: BlockyState, time_left_ms: float) -> float:
        """This move's share of the clock: the time left over this seat's moves still to play."""
        mine = max(1, state.turns - state.ply // state.players)
        return max(0.0, (time_left_ms - SAFETY_MS - OVERHEAD_MS * mine) / mine)

    def choose(self, state: BlockyState, time_left_ms: int) -> Move:
        deadline = time.monotonic() + self.budget_ms(state, time_left_ms) / 1000.0
        best: Move = ["pass"]
        best_key = (float(state.goal_score(self.seat)), 0)
        for move in self.candidates(state):
            if move[0] == "pass":
                continue
            if time.monotonic() > deadline:
                self.cut_short += 1
                break
            key = (self.value(state, move), -PENALTY.get(move[0], 0))
            if key > best_key:  # strictly: ties keep the earlier, cheaper move
                best, best_key = move, key
        return best
