"""Blocking's exact solver (the folder part `solver`): who wins a position, by Sprague-Grundy theory.

A position is lost for the seat to move exactly when its Grundy value is 0 (normal play: the
seat that cannot move loses). The value is the perfect bot's (bots/grundy.py), with its
process-wide memo, so what one position costs serves every later one; the effort is a count
of shapes expanded, never a time, so the answer depends on the position and the budget alone
(and on what the memo already holds, which only turns a None into the value).
"""

from __future__ import annotations

from arena.games import State

from .bots.grundy import GrundySolver, SolveTimeout, split
from .bots.perfect import EXACT_LIMIT, BoardFrame
from .rules import BlockingState

_FRAMES: dict[tuple[int, int], BoardFrame] = {}


def value(state: State, budget_nodes: int) -> int | None:
    """+1 when the seat to move wins with best play, -1 when it loses; None beyond the budget (or over)."""
    assert isinstance(state, BlockingState)
    if state.is_over():
        return None
    frame = _FRAMES.get((state.rows, state.cols))
    if frame is None:
        frame = _FRAMES.setdefault((state.rows, state.cols), BoardFrame(state.rows, state.cols))
    free = frame.guarded(state.free)
    # A larger component would recurse deeper than Python allows, and is out of reach anyway.
    if any(comp.bit_count() > EXACT_LIMIT for comp in split(free, frame.stride)):
        return None
    solver = GrundySolver()  # its own count of work; the memo is the process's, shared by every solver
    solver.node_limit = max(0, budget_nodes)
    try:
        return 1 if solver.position_value(free, frame.stride) else -1
    except SolveTimeout:
        return None

