"""Arrows' exact solver (the folder part `solver`): who wins a position, by the alpha-beta bot's search.

The search (bots/search.py) deepens until every line ends in a block: its proven scores
are exact, its evaluation is never taken as proof. The effort is a count of nodes, never a
time; contested middle games stay out of reach (None), endgames do not.
"""

from __future__ import annotations

from arena.games import State

from .bots.search import Board, Searcher
from .rules import ArrowsState

_BOARDS: dict[tuple[int, int], Board] = {}


def value(state: State, budget_nodes: int) -> int | None:
    """+1 when the seat to move wins with best play, -1 when it loses; None beyond the budget (or over)."""
    assert isinstance(state, ArrowsState)
    seat = state.to_move()
    if seat is None:
        return None
    board = _BOARDS.get((state.cols, state.rows))
    if board is None:
        board = _BOARDS.setdefault((state.cols, state.rows), Board(state.cols, state.rows))
    free = board.free_mask(state.occupied)
    a = board.guarded(state.target(seat))
    b = board.guarded(state.target(1 - seat))
    if b < 0 or not free >> b & 1 or board.nbr[a] >> b & 1:
        return 1  # the other seat is blocked at its turn, or we point at its target now
    return Searcher(board).prove(free, a, b, max(1, budget_nodes))
