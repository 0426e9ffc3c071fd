"""Tiles' exact solver (the folder part `solver`): the sign of a position's score under best play.

The pot is part of the position (the refills to come are known), so the perfect bot's exact
alpha-beta (bots/search.py) decides any position it can search through: the final score of
the seat to move, more full rows than the other (+1), as many (0) or fewer (-1). The effort
is a count of states searched, never a time; early positions of a large setup stay out of
reach (None), endgames do not.
"""

from __future__ import annotations

from arena.games import State

from .bots.search import AlphaBeta, Rules, SearchAborted
from .rules import TilesState


def value(state: State, budget_nodes: int) -> int | None:
    """+1 when the seat to move wins with best play, 0 for a draw, -1 for a loss; None beyond the budget (or over)."""
    assert isinstance(state, TilesState)
    if state.is_over():
        return None
    rules, position = Rules.from_state(state)
    search = AlphaBeta(rules)
    search.max_states = max(1, budget_nodes)
    try:
        score, _ = search.solve(position)
    except SearchAborted:
        return None
    return (score > 0) - (score < 0)
