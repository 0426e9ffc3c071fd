"""Arrows `alphabeta`: iterative-deepening alpha-beta on territory, space filling when apart."""

from __future__ import annotations

import time
from typing import Any, cast

from arena.games import Move
from bots.common import GameBot, int_option

from ..rules import ArrowsState
from .search import Board, Searcher, SearchStats, longest_path

RESERVE_MS = 250  # never planned: messaging, scheduling hiccups, the referee's bookkeeping
PER_MOVE_MS = 6  # overhead of every move still to come, outside the search
MAX_SHARE = 0.25  # at most this share of the spare time on one move
CONTESTED_FILL = 3  # while both chains share a region, about a third of it becomes ours


class AlphaBetaBot(GameBot):
    """Iterative-deepening negamax alpha-beta with a territory evaluation.

    - Evaluation: cells each side reaches strictly first with king moves from its target
      (the two targets excluded, equal-distance cells neutral), doubled once the regions
      are separated.
    - Tactics are exact in the tree: pointing at the opponent's target wins, pointing next
      to it loses, a target off the board or taken loses.
    - Move ordering: the previous iteration's best move at the root, transposition-table
      moves, two killers per ply, then the history heuristic.
    - Separated regions: a space-filling endgame that follows a longest path of its own
      region (depth-first search with Warnsdorff ordering and a reachability bound).
    - Time: the whole-game budget is shared over the moves likely left (a third of the
      shared region while contested, the whole region once apart), with a reserve.
    No randomness: only the depth reached in time depends on the clock. With the option
    `nodes=N` each search stops after N nodes instead (the clock still bounds it), so the
    bot plays the same moves on any machine, like a chess engine's fixed-nodes mode.
    """

    name = "alphabeta"
    fixed_effort = "nodes=3000"
    strength = 3
    description = "iterative-deepening alpha-beta, territory evaluation, space-filling endgame"

    def __init__(self, nodes: int | None = None, **options: Any) -> None:
        super().__init__(**options)
        # A fixed search effort per move, or None: as much as the clock allows.
        self.nodes = None if nodes is None else int_option("nodes", nodes)
        self.board: Board | None = None
        self.searcher: Searcher | None = None
        self.path: list[int] = []
        self.last: SearchStats | None = None  # the last search, for tests and benches

    def on_init(self, time_left_ms: int) -> None:
        state = cast(ArrowsState, self.state)
        if self.board is None or (self.board.cols, self.board.rows) != (state.cols, state.rows):
            self.board = Board(state.cols, state.rows)
        self.searcher = Searcher(self.board)  # a fresh table: positions of another board
        self.path = []
        self.last = None

    @staticmethod
    def budget_s(time_left_ms: int, moves_left: int) -> float:
        """Seconds for this move: the spare time shared over the moves likely left."""
        moves_left = max(1, moves_left)
        spare = time_left_ms - RESERVE_MS - PER_MOVE_MS * moves_left
        if spare <= 0:
            return 0.0
        return min(spare * MAX_SHARE, spare / moves_left) / 1000.0

    def choose(self, state: ArrowsState, time_left_ms: int) -> Move:
        board, searcher = self.board, self.searcher
        assert board is not None and searcher is not None  # on_init ran
        free = board.free_mask(state.occupied)
        a = board.guarded(state.target(self.seat))
        b = board.guarded(state.target(1 - self.seat))
        if b < 0 or not free >> b & 1:
            return self.direction(a, self.any_free_neighbour(free, a))  # the opponent is stuck
        if board.nbr[a] >> b & 1:
            return self.direction(a, b)  # point at its target: it is blocked
        region = board.reach(free, a)
        if not region >> b & 1:
            return self.fill(free, a, region, time_left_ms)
        self.path = []
        moves_left = max(2, region.bit_count() // CONTESTED_FILL)
        target, stats = searcher.best_move(
            free, a, b, self.budget_s(time_left_ms, moves_left), self.nodes
        )
        self.last = stats
        if target < 0:
            # Lost against best play; any free cell still lets the opponent go wrong.
            target = self.any_free_neighbour(free, a)
        return self.direction(a, target)

    def fill(self, free: int, a: int, region: int, time_left_ms: int) -> Move:
        """Space filling: follow (and keep improving) a longest path through our region."""
        board = self.board
        assert board is not None
        seed = self.path if self.path and self.path[0] == a else None
        if seed is not None and any(not free >> cell & 1 for cell in seed):
            seed = None
        budget = self.budget_s(time_left_ms, region.bit_count())
        # The path found so far is kept when time runs out; it only ever gets longer.
        self.path = longest_path(board, free, a, time.monotonic() + budget, seed, self.nodes)
        if len(self.path) < 2:
            return self.direction(a, -1)
        nxt = self.path[1]
        self.path = self.path[1:]
        return self.direction(a, nxt)

    def any_free_neighbour(self, free: int, a: int) -> int:
        """A free neighbour of a (after a is filled), or -1."""
        board = self.board
        assert board is not None
        for _, n in board.moves[a]:
            if n != a and free >> n & 1:
                return n
        return -1

    def direction(self, a: int, target: int) -> int:
        """The direction from a to target; 0 when target is -1 (any move loses alike)."""
        board = self.board
        assert board is not None
        for d, n in board.moves[a]:
            if n == target:
                return d
        return 0
