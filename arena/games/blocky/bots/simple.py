"""The assignment's players: random (any legal move) and smart (best of a few random moves)."""

from __future__ import annotations

from typing import Any

from arena.games import Move
from bots import common
from bots.common import GameBot, int_option

from ..rules import BlockyState


class RandomBot(common.RandomBot):
    """A uniformly random legal move, pass included (seeded)."""


class SmartBot(GameBot):
    """The best of `difficulty` random non-pass moves by goal score; pass if none improves it."""

    name = "smart"
    strength = 2
    description = "best of `difficulty` random moves by goal score (penalties ignored)"

    def __init__(self, difficulty: int = 5, **options: Any) -> None:
        super().__init__(**options)
        self.difficulty = int_option("difficulty", difficulty)

    def choose(self, state: BlockyState, time_left_ms: int) -> Move:
        moves = [move for move in state.legal_moves() if move[0] != "pass"]
        # Distinct moves: sampling with replacement would waste evaluations on duplicates.
        candidates = self.rng.sample(moves, min(self.difficulty, len(moves)))
        best: Move = ["pass"]
        best_score = state.goal_score(self.seat)
        for move in candidates:
            trial = state.copy()
            # A smash in the trial draws the mirror's own guess; penalties are ignored on purpose.
            trial.apply(move)
            score = trial.goal_score(self.seat)
            if score > best_score:
                best, best_score = move, score
        return best
