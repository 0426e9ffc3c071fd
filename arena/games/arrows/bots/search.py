"""Arrows search: board tables, territory evaluation, alpha-beta, and space filling.

A position is seen from the player to move: `free` (a guarded bit mask of the cells that
hold no piece and are not blocked, stride cols + 1, column `cols` always zero so that a
shift never wraps into the next row), `a` (the mover's target: the cell it fills now) and
`b` (the opponent's target). Rules, in these terms (RULES.md):
- the mover whose target is off the board, not free, or equal to `b` is blocked and loses;
- if `b` is off the board or not free, the opponent is blocked at its next turn: a win;
- if `b` is a neighbour of `a`, the mover points its new arrow at `b` and wins;
- otherwise the mover fills `a` and points at a free neighbour `n` of `a`; pointing at a
  neighbour of `b` loses at once (the opponent points back at `n`), so such moves are the
  last resort of a lost position.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

from bots.common import bits

from ..rules import DIRECTIONS

WIN = 100_000  # a won game; WIN - plies prefers quicker wins and slower losses
DECIDED = WIN - 1_000  # scores beyond this are proven results
TT_LIMIT = 1_500_000
CHECK_EVERY = 128  # nodes between two looks at the clock


class TimeUp(Exception):
    """The search ran past its deadline."""


class Board:
    """Per-board tables: guarded cell indices, neighbours and king dilation."""

    def __init__(self, cols: int, rows: int) -> None:
        self.cols, self.rows, self.stride = cols, rows, cols + 1
        size = rows * self.stride
        # moves[i] = [(direction, neighbour index)] for each on-board neighbour of cell i
        self.moves: list[list[tuple[int, int]]] = [[] for _ in range(size)]
        self.nbr = [0] * size
        self.on_board = 0
        for y in range(rows):
            for x in range(cols):
                i = y * self.stride + x
                self.on_board |= 1 << i
                for d, (dx, dy) in enumerate(DIRECTIONS):
                    nx, ny = x + dx, y + dy
                    if 0 <= nx < cols and 0 <= ny < rows:
                        j = ny * self.stride + nx
                        self.moves[i].append((d, j))
                        self.nbr[i] |= 1 << j

    def guarded(self, cell: int) -> int:
        """The guarded index of an engine cell index (y * cols + x), -1 stays -1."""
        return -1 if cell < 0 else (cell // self.cols) * self.stride + cell % self.cols

    def free_mask(self, occupied: int) -> int:
        """The guarded mask of free cells from the engine's occupied mask."""
        row = (1 << self.cols) - 1
        free = 0
        for y in range(self.rows):
            free |= (~(occupied >> (y * self.cols)) & row) << (y * self.stride)
        return free

    def dilate(self, mask: int) -> int:
        """mask and all king-neighbours of its cells (spill lands in guards or off the top)."""
        s = self.stride
        mask |= mask << 1 | mask >> 1
        return (mask | mask << s | mask >> s) & self.on_board

    def reach(self, free: int, start: int) -> int:
        """The cells of free king-connected to start (start included if free)."""
        comp = 1 << start
        while True:
            grown = self.dilate(comp) & free | comp
            if grown == comp:
                return comp
            comp = grown


@dataclass
class Territory:
    """Result of the simultaneous breadth-first expansion from both targets."""

    mine: int
    theirs: int
    separated: bool  # the two expansions never touched: the regions are disjoint


def territory(board: Board, free: int, a: int, b: int) -> Territory:
    """Cells each side reaches strictly first (king moves, starting at its target).

    The two targets are taken out of play (a target is where its owner goes next; the
    other side may only point at it, which is a win handled by the search). A cell both
    reach in the same step counts for neither and stops both expansions.
    """
    s, on = board.stride, board.on_board
    avail = free & ~(1 << a) & ~(1 << b)
    fa, fb = 1 << a, 1 << b
    va, vb = fa, fb
    ca = cb = 0
    touched = False
    while fa or fb:
        da = fa | fa << 1 | fa >> 1
        da = (da | da << s | da >> s) & on
        db = fb | fb << 1 | fb >> 1
        db = (db | db << s | db >> s) & on
        if not touched and (da & vb or db & va):
            touched = True
        na, nb = da & avail, db & avail
        both = na & nb
        if both:
            touched = True
            na ^= both
            nb ^= both
            avail &= ~both
        avail &= ~(na | nb)
        va |= na
        vb |= nb
        ca += na.bit_count()
        cb += nb.bit_count()
        fa, fb = na, nb
    return Territory(ca, cb, not touched)


def evaluate(board: Board, free: int, a: int, b: int) -> int:
    """Static score for the mover: territory difference, made decisive when separated."""
    t = territory(board, free, a, b)
    score = t.mine - t.theirs
    if t.separated:
        # Once apart, the side with more room usually outlasts the other: reward that
        # more than a contested lead, which the opponent may still cut into.
        score *= 2
    return score


@dataclass
class SearchStats:
    """Counters of one search."""

    nodes: int = 0
    depth: int = 0
    score: int = 0
    complete: bool = False  # the last iteration searched every root move
    proven: bool = False
    pv: list[int] = field(default_factory=list)


class Searcher:
    """Iterative-deepening negamax alpha-beta with a transposition table, killers, history."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.tt: dict[tuple[int, int, int], tuple[int, int, int, int]] = {}
        self.history: dict[tuple[int, int], int] = {}
        self.killers: list[list[int]] = []
        self.deadline = float("inf")
        self.nodes = 0
        self.node_limit = sys.maxsize  # a search stops here too (a fixed effort: see best_move)

    # --- root ---------------------------------------------------------------------------

    def best_move(
        self, free: int, a: int, b: int, budget_s: float, nodes: int | None = None
    ) -> tuple[int, SearchStats]:
        """The best next target for the mover within budget_s seconds, and search stats.

        With nodes, the search deepens until it has visited that many nodes (or the time is
        up): the answer then depends on the position alone, not on the machine's speed.
        """
        stats = SearchStats()
        started = time.monotonic()
        self.deadline = started + budget_s
        self.nodes = 0
        self.node_limit = sys.maxsize if nodes is None else nodes
        moves = self.safe_moves(free, a, b)
        if not moves:
            return -1, stats
        if len(moves) == 1:
            stats.complete = True
            return moves[0], stats
        best = moves[0]
        for depth in range(1, 200):
            self.killers = [[-1, -1] for _ in range(depth + 2)]
            try:
                score, move = self._root(free, a, b, depth, moves, best)
            except TimeUp:
                break
            best, stats.depth, stats.score, stats.complete = move, depth, score, True
            moves.remove(move)
            moves.insert(0, move)
            if abs(score) >= DECIDED:
                stats.proven = True
                break
            elapsed = time.monotonic() - started
            # A deeper iteration costs a few times the previous ones: do not start one
            # that cannot finish (a fixed node effort decides that by its own count).
            if nodes is None and elapsed > budget_s * 0.45:
                break
        stats.nodes = self.nodes
        if len(self.tt) > TT_LIMIT:
            self.tt.clear()
        return best, stats

    def prove(self, free: int, a: int, b: int, nodes: int, max_depth: int = 400) -> int | None:
        """+1 when the mover wins with best play, -1 when it loses, None when nodes do not settle it.

        Iterative deepening until a depth proves the result (every line ends in a win or a
        block); no clock, and no evaluation counts as proof.
        """
        moves = self.safe_moves(free, a, b)
        if not moves:
            return -1
        self.deadline, self.nodes, self.node_limit = float("inf"), 0, nodes
        best = moves[0]
        for depth in range(1, min(max_depth, free.bit_count() + 1) + 1):
            self.killers = [[-1, -1] for _ in range(depth + 2)]
            try:
                score, best = self._root(free, a, b, depth, moves, best)
            except TimeUp:
                return None
            if abs(score) >= DECIDED:
                return 1 if score > 0 else -1
        return None

    def _root(self, free: int, a: int, b: int, depth: int, moves: list[int], first: int) -> tuple[int, int]:
        alpha, beta = -WIN - 1, WIN + 1
        best = first
        child_free = free & ~(1 << a)
        for n in moves:
            score = -self.negamax(child_free, b, n, depth - 1, -beta, -alpha, 1)
            if score > alpha:
                alpha, best = score, n
        return alpha, best

    def safe_moves(self, free: int, a: int, b: int) -> list[int]:
        """Free neighbours of a that are not next to b (a move next to b loses at once)."""
        board = self.board
        rest = free & ~(1 << a)
        danger = board.nbr[b] if b >= 0 else 0
        return [n for _, n in board.moves[a] if rest >> n & 1 and not danger >> n & 1]

    # --- the tree ---------------------------------------------------------------------

    def negamax(self, free: int, a: int, b: int, depth: int, alpha: int, beta: int, ply: int) -> int:
        """Score for the mover (target a) against the opponent (target b)."""
        self.nodes += 1
        if self.nodes % CHECK_EVERY == 0 and time.monotonic() > self.deadline:
            raise TimeUp
        if self.nodes > self.node_limit:
            raise TimeUp
        board = self.board
        # The caller only makes moves to free cells that differ from b, so a is valid.
        if b < 0 or not free >> b & 1:
            return WIN - ply
        nbr_a = board.nbr[a]
        if nbr_a >> b & 1:
            return WIN - ply
        if depth <= 0:
            return evaluate(board, free, a, b)
        key = (free, a, b)
        entry = self.tt.get(key)
        tt_move = -1
        if entry is not None:
            e_depth, e_score, e_flag, tt_move = entry
            e_score = _from_table(e_score, ply)
            if e_depth >= depth:
                if e_flag == 0:
                    return e_score
                if e_flag > 0 and e_score >= beta:
                    return e_score
                if e_flag < 0 and e_score <= alpha:
                    return e_score
        child_free = free & ~(1 << a)
        danger = board.nbr[b]
        moves = [n for _, n in board.moves[a] if child_free >> n & 1 and not danger >> n & 1]
        if not moves:
            # Every way on is blocked or walks next to b: lost at the next turn.
            return -(WIN - ply - 1)
        if len(moves) > 1:
            self._order(moves, a, tt_move, ply)
        original_alpha = alpha
        best_score, best_move = -WIN - 1, moves[0]
        for n in moves:
            score = -self.negamax(child_free, b, n, depth - 1, -beta, -alpha, ply + 1)
            if score > best_score:
                best_score, best_move = score, n
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        self._cutoff(a, n, depth, ply)
                        break
        flag = 1 if best_score >= beta else -1 if best_score <= original_alpha else 0
        self.tt[key] = (depth, _to_table(best_score, ply), flag, best_move)
        return best_score

    def _order(self, moves: list[int], a: int, tt_move: int, ply: int) -> None:
        """Sort moves best first: the table's move, then the ply's killers, then by history score."""
        killers = self.killers[ply] if ply < len(self.killers) else (-1, -1)
        history = self.history

        def order(n: int) -> int:
            if n == tt_move:
                return -(1 << 30)
            if n == killers[0] or n == killers[1]:
                return -(1 << 29)
            return -history.get((a, n), 0)

        moves.sort(key=order)

    def _cutoff(self, a: int, n: int, depth: int, ply: int) -> None:
        """Remember a move that refuted its siblings (killer slot and history score)."""
        if ply < len(self.killers):
            slot = self.killers[ply]
            if slot[0] != n:
                slot[1], slot[0] = slot[0], n
        self.history[(a, n)] = self.history.get((a, n), 0) + depth * depth


def _to_table(score: int, ply: int) -> int:
    """A proven score as plies from the node itself, so it stays right from another root."""
    if score >= DECIDED:
        return score + ply
    if score <= -DECIDED:
        return score - ply
    return score


def _from_table(score: int, ply: int) -> int:
    """Inverse of _to_table at the ply of the node that looks it up."""
    if score >= DECIDED:
        return score - ply
    if score <= -DECIDED:
        return score + ply
    return score


# --- the endgame: each side alone in its region -------------------------------------


def longest_path(
    board: Board,
    free: int,
    start: int,
    deadline: float,
    seed: list[int] | None = None,
    max_nodes: int | None = None,
) -> list[int]:
    """A longest king path of free cells starting at start (start first), within the deadline.

    Depth-first search with Warnsdorff ordering (fewest onward cells first) and the bound
    "path so far + cells still reachable"; the best path found so far is returned when
    time runs out, or after max_nodes nodes (but never before a first path is found). seed,
    a path known to be valid, is the starting incumbent.
    """
    stop = sys.maxsize if max_nodes is None else max_nodes
    best = list(seed) if seed and seed[0] == start else [start]
    region = board.reach(free, start)
    if len(best) == region.bit_count():
        return best
    path = [start]
    nbr = board.nbr
    nodes = 0

    def dfs(cell: int, avail: int) -> bool:
        nonlocal best, nodes
        nodes += 1
        # Never stop before a first path is in hand: the first dive (Warnsdorff, unpruned
        # while the incumbent is the start alone) reaches a dead end without backtracking.
        if len(best) > 1 and (nodes % 256 == 0 and time.monotonic() > deadline or nodes > stop):
            raise TimeUp
        nexts = bits(nbr[cell] & avail)
        if not nexts:
            if len(path) > len(best):
                best = list(path)
            return len(best) == limit
        if len(path) + _reach_many(board, avail, nbr[cell] & avail).bit_count() <= len(best):
            return False
        nexts.sort(key=lambda n: (nbr[n] & avail).bit_count())
        for n in nexts:
            path.append(n)
            if dfs(n, avail & ~(1 << n)):
                return True
            path.pop()
        return False

    limit = region.bit_count()
    try:
        dfs(start, region & ~(1 << start))
    except TimeUp:
        pass
    return best


def _reach_many(board: Board, free: int, starts: int) -> int:
    """The cells of free king-connected to any cell of starts."""
    comp = starts & free
    while True:
        grown = board.dilate(comp) & free | comp
        if grown == comp:
            return comp
        comp = grown
