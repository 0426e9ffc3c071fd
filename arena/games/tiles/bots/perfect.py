"""Tiles `perfect`: exact alpha-beta over distinct moves; Monte-Carlo when out of time."""

from __future__ import annotations

import time
from typing import Any, cast

from arena.games import Move
from bots.common import GameBot, int_option

from ..rules import TilesState
from .montecarlo import MatchRules, move_budget_s
from .search import AlphaBeta, SearchAborted, engine_move, monte_carlo

EXACT_SHARE = 0.7  # of a move's budget for the exact search; the rest for the fallback


class PerfectBot(GameBot):
    """Negamax with alpha-beta, a transposition table and move ordering: the exact best move.

    The table lives for the whole match, so an exact search cut short by the clock still
    speeds up the next ones. While a position is too big to solve within its share of the
    whole-game budget, the move is the Monte-Carlo one (`simulations` playouts per move).
    """

    name = "perfect"
    strength = 4
    description = "exact negamax, alpha-beta, transposition table (Monte-Carlo if out of time)"

    def __init__(self, simulations: int = 100, **options: Any) -> None:
        super().__init__(**options)
        self.simulations = int_option("simulations", simulations)
        self.match: MatchRules | None = None
        self.search: AlphaBeta | None = None
        self.exact = True  # whether the last move was proven best (for tests and benches)
        self.score: int | None = None

    def on_init(self, time_left_ms: int) -> None:
        self.match = MatchRules(cast(TilesState, self.state))
        self.search = AlphaBeta(self.match.rules)

    def choose(self, state: TilesState, time_left_ms: int) -> Move:
        assert self.match is not None and self.search is not None  # on_init ran
        started = time.monotonic()
        budget = move_budget_s(state, time_left_ms)
        position = self.match.position(state)
        try:
            self.score, move = self.search.solve(position, started + budget * EXACT_SHARE)
            self.exact = True
        except SearchAborted:
            self.exact, self.score = False, None
            move, _ = monte_carlo(self.match.rules, position, self.simulations, self.rng,
                                  started + budget)
        assert move is not None  # the referee only asks when a move exists
        return engine_move(move)
