"""Tiles `montecarlo`: the assignment's bepaalGoedeZet (random playouts per distinct move)."""

from __future__ import annotations

import time
from typing import Any, cast

from arena.games import Move
from bots.common import GameBot, int_option

from ..rules import TilesState
from .search import Position, Rules, engine_move, monte_carlo

RESERVE_MS = 200  # never planned: messaging and scheduling hiccups
PER_MOVE_MS = 5  # overhead of each move still to come
MAX_SHARE = 0.3  # at most this share of the spare time on one move
TILES_PER_MOVE = 4  # a rough count of tiles that leave the game per move of one seat


def move_budget_s(state: TilesState, time_left_ms: int) -> float:
    """Seconds for this move: the spare time shared over an estimate of our moves left."""
    tiles = len(state.pot) + sum(g + b for g, b in state.plates)
    mine = max(1, tiles // TILES_PER_MOVE)
    spare = time_left_ms - RESERVE_MS - PER_MOVE_MS * mine
    if spare <= 0:
        return 0.0
    return min(spare * MAX_SHARE, spare / mine) / 1000.0


class MatchRules:
    """The rules of one match, built once so that search keys stay valid from move to move."""

    def __init__(self, state: TilesState) -> None:
        self.rules, _ = Rules.from_state(state)
        self.pot_length = len(state.pot)

    def position(self, state: TilesState) -> Position:
        """The engine state as a search Position seen from the mover."""
        boards = [tuple(y - b for y, b in board) for board in state.boards]
        plates = tuple((g, b) for g, b in state.plates)
        return Position(self.pot_length - len(state.pot), plates,
                        boards[state.mover], boards[1 - state.mover])


class MonteCarloBot(GameBot):
    """For each distinct move, `simulations` random playouts (default 100); best mean wins.

    Playouts pick uniformly among all legal moves, as the assignment's random play does; the
    bot's seeded generator makes it deterministic for a seed unless the clock runs short,
    when it stops after fewer rounds (every move still gets the same number of playouts).
    """

    name = "montecarlo"
    strength = 3
    description = "Monte-Carlo: random playouts per distinct move, best mean (the assignment's bepaalGoedeZet)"

    def __init__(self, simulations: int = 100, **options: Any) -> None:
        super().__init__(**options)
        self.simulations = int_option("simulations", simulations)
        self.match: MatchRules | None = None

    def on_init(self, time_left_ms: int) -> None:
        self.match = MatchRules(cast(TilesState, self.state))

    def choose(self, state: TilesState, time_left_ms: int) -> Move:
        assert self.match is not None  # on_init ran
        deadline = time.monotonic() + move_budget_s(state, time_left_ms)
        move, _ = monte_carlo(self.match.rules, self.match.position(state), self.simulations,
                              self.rng, deadline)
        assert move is not None  # the referee only asks when a move exists
        return engine_move(move)
