"""Tiles search: plain negamax (the assignment's besteScore), alpha-beta, and Monte-Carlo playouts.

The search works on a compact position seen from the player to move:
- `pos`: how many tiles of the pot are already used (the pot string never changes);
- `plates`: a tuple of `(yellow, blue)` per plate, in plate order;
- `mine`, `theirs`: the boards as tuples of row codes, `+n` for n yellow tiles, `-n` for n
  blue tiles, `0` for an empty row.
A move is `(plate, colour)` with colour 0 (yellow, `g`) or 1 (blue, `b`). The value of a
position is the final score of the player to move: own full rows minus the other's.

For the value only multisets matter: which plate holds what and which row is which do
not change what can happen (the assignment's "equal moves" say as much for plates; rows with
equal contents are interchangeable, and a move picks among rows by contents alone). So
the transposition key holds the plates and both boards sorted.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass

from ..rules import COLOURS, TilesState

Board = tuple[int, ...]
Plates = tuple[tuple[int, int], ...]
TT_LIMIT = 1_000_000  # entries (a few hundred bytes each); cleared between searches beyond this
EXACT, LOWER, UPPER = 0, 1, 2


class SearchAborted(Exception):
    """A search passed its deadline or its state limit."""


@dataclass(frozen=True)
class Position:
    """A tiles position from the mover's side (see the module docstring)."""

    pos: int
    plates: Plates
    mine: Board
    theirs: Board


class Rules:
    """The fixed part of a game (pot, row length, row count) and the move rules on Positions."""

    def __init__(self, pot: str, row_len: int, rows: int) -> None:
        self.pot = pot
        self.row_len = row_len
        self.rows = rows
        # yellow[i] = yellow tiles among the first i of the pot: refills in O(1).
        self.yellow = [0]
        for tile in pot:
            self.yellow.append(self.yellow[-1] + (tile == "g"))

    @classmethod
    def from_state(cls, state: TilesState) -> tuple[Rules, Position]:
        """The rules and the position of an engine state, from the mover's side."""
        rules = cls(state.pot, state.row_len, len(state.boards[0]))
        boards = [tuple(y - b for y, b in board) for board in state.boards]
        plates = tuple((g, b) for g, b in state.plates)
        return rules, Position(0, plates, boards[state.mover], boards[1 - state.mover])

    def full(self, board: Board) -> int:
        """Full rows of a board."""
        n = self.row_len
        return sum(1 for code in board if code == n or code == -n)

    def target_row(self, board: Board, colour: int, count: int) -> int:
        """The row taking count tiles of colour: the fullest that fits, lowest first; -1 if none."""
        best, best_fill = -1, -1
        limit = self.row_len - count
        sign = 1 if colour == 0 else -1
        for j, code in enumerate(board):
            fill = code * sign
            if fill >= 0 and fill <= limit and fill > best_fill:
                best, best_fill = j, fill
        return best

    def is_over(self, p: Position) -> bool:
        """True when a board is full or the mover has no legal move."""
        k = self.rows
        if self.full(p.mine) == k or self.full(p.theirs) == k:
            return True
        return not any(True for _ in self.moves(p))

    def score(self, p: Position) -> int:
        """The mover's score as things stand."""
        return self.full(p.mine) - self.full(p.theirs)

    def moves(self, p: Position) -> Iterator[tuple[int, int]]:
        """Every legal move of the mover, plate by plate, yellow first."""
        for plate, tiles in enumerate(p.plates):
            for colour in (0, 1):
                count = tiles[colour]
                if count and self.target_row(p.mine, colour, count) >= 0:
                    yield plate, colour

    def distinct_moves(self, p: Position) -> list[tuple[int, int]]:
        """Legal moves, one per (colour, count) class: the lowest plate (bepaalVerschillendeZetten)."""
        seen = set()
        out = []
        for plate, colour in self.moves(p):
            key = (colour, p.plates[plate][colour])
            if key not in seen:
                seen.add(key)
                out.append((plate, colour))
        return out

    def play(self, p: Position, move: tuple[int, int]) -> Position:
        """The position after move, from the next mover's side."""
        plate, colour = move
        tiles = p.plates[plate]
        count = tiles[colour]
        row = self.target_row(p.mine, colour, count)
        mine = list(p.mine)
        mine[row] += count if colour == 0 else -count
        taken = min(count, len(self.pot) - p.pos)
        gain_yellow = self.yellow[p.pos + taken] - self.yellow[p.pos]
        refilled = (
            (gain_yellow, tiles[1] + taken - gain_yellow)
            if colour == 0
            else (tiles[0] + gain_yellow, taken - gain_yellow)
        )
        plates = p.plates[:plate] + (refilled,) + p.plates[plate + 1:]
        return Position(p.pos + taken, plates, p.theirs, tuple(mine))

    def fills_row(self, p: Position, move: tuple[int, int]) -> int:
        """How full the receiving row is after move (row_len means it becomes full)."""
        plate, colour = move
        count = p.plates[plate][colour]
        row = self.target_row(p.mine, colour, count)
        return abs(p.mine[row]) + count

    def key(self, p: Position) -> tuple:
        """Transposition key: plates and boards as multisets."""
        return p.pos, tuple(sorted(p.plates)), tuple(sorted(p.mine)), tuple(sorted(p.theirs))

    def bounds(self, p: Position) -> tuple[int, int]:
        """Bounds on the mover's final score.

        Full rows stay full, and rows fill only with the tiles still in the game (pot and plates).
        """
        left = len(self.pot) - p.pos + sum(g + b for g, b in p.plates)
        mine, theirs = self.full(p.mine), self.full(p.theirs)
        return mine - theirs - self._can_fill(p.theirs, left), mine + self._can_fill(p.mine, left) - theirs

    def _can_fill(self, board: Board, tiles: int) -> int:
        """At most how many more rows of board can become full with `tiles` tiles."""
        n = self.row_len
        need = sorted(n - abs(code) for code in board if abs(code) != n)
        count = 0
        for deficit in need:
            if deficit > tiles:
                break
            tiles -= deficit
            count += 1
        return count


# --- plain negamax: the assignment's besteScore -------------------------------------------------


class PlainNegamax:
    """Brute-force negamax over the distinct moves, counting every state visited."""

    def __init__(self, rules: Rules, max_states: int | None = None, deadline: float | None = None) -> None:
        self.rules = rules
        self.states = 0
        self.max_states = max_states
        self.deadline = deadline

    def best(self, p: Position) -> tuple[int, tuple[int, int] | None]:
        """(best score for the mover, a best move or None at the end)."""
        self.states += 1
        self._check()
        rules = self.rules
        moves = rules.distinct_moves(p)
        k = rules.rows
        if not moves or rules.full(p.mine) == k or rules.full(p.theirs) == k:
            return rules.score(p), None
        best_score, best_move = -rules.rows - 1, moves[0]
        for move in moves:
            score = -self.best(rules.play(p, move))[0]
            if score > best_score:
                best_score, best_move = score, move
        return best_score, best_move

    def _check(self) -> None:
        if self.max_states is not None and self.states > self.max_states:
            raise SearchAborted(f"more than {self.max_states} states")
        if self.deadline is not None and self.states % 1024 == 0 and time.monotonic() > self.deadline:
            raise SearchAborted("out of time")


# --- the optimised exact search ------------------------------------------------------------


class AlphaBeta:
    """Exact negamax with alpha-beta, a transposition table, bounds and move ordering."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.table: dict[tuple, tuple[int, int, tuple[int, int] | None]] = {}
        self.states = 0
        self.deadline = float("inf")
        self.max_states: int | None = None  # a search stops here too: a fixed effort, not a time

    def solve(self, p: Position, deadline: float | None = None) -> tuple[int, tuple[int, int] | None]:
        """(exact score for the mover, a best move or None at the end)."""
        self.deadline = deadline if deadline is not None else float("inf")
        k = self.rules.rows
        score = self.search(p, -k - 1, k + 1)
        move = self._stored_move(p)
        if move is None and self.rules.distinct_moves(p) and not self._board_full(p):
            move = self._best_root_move(p, score)
        if len(self.table) > TT_LIMIT:
            self.table.clear()
        return score, move

    def _board_full(self, p: Position) -> bool:
        k = self.rules.rows
        return self.rules.full(p.mine) == k or self.rules.full(p.theirs) == k

    def _stored_move(self, p: Position) -> tuple[int, int] | None:
        entry = self.table.get(self.rules.key(p))
        if entry is None or entry[1] != EXACT or entry[2] is None:
            return None
        return self._plate_for(p, entry[2])

    def _best_root_move(self, p: Position, score: int) -> tuple[int, int]:
        """A move that keeps score (searched with a null window around it)."""
        for move in self.rules.distinct_moves(p):
            if -self.search(self.rules.play(p, move), -score - 1, -score + 1) >= score:
                return move
        raise AssertionError("no move reaches the proven score")

    @staticmethod
    def _plate_for(p: Position, cls: tuple[int, int]) -> tuple[int, int] | None:
        """The lowest plate of a (colour, count) move class in this position."""
        colour, count = cls
        for plate, tiles in enumerate(p.plates):
            if tiles[colour] == count:
                return plate, colour
        return None

    def search(self, p: Position, alpha: int, beta: int) -> int:
        """The mover's score within (alpha, beta): exact inside, a bound outside."""
        self.states += 1
        if self.states & 1023 == 0 and time.monotonic() > self.deadline:
            raise SearchAborted("out of time")
        if self.max_states is not None and self.states > self.max_states:
            raise SearchAborted(f"more than {self.max_states} states")
        rules = self.rules
        k = rules.rows
        mine_full, theirs_full = rules.full(p.mine), rules.full(p.theirs)
        if mine_full == k or theirs_full == k:
            return mine_full - theirs_full
        moves = rules.distinct_moves(p)
        if not moves:
            return mine_full - theirs_full
        key = rules.key(p)
        entry = self.table.get(key)
        hint = None
        if entry is not None:
            value, flag, hint = entry
            if flag == EXACT:
                return value
            if flag == LOWER and value >= beta:
                return value
            if flag == UPPER and value <= alpha:
                return value
        low, high = rules.bounds(p)
        if low >= beta:
            return low
        if high <= alpha:
            return high
        alpha0 = alpha
        cap = min(beta, high)  # the value is at most high: a move reaching it is best
        moves.sort(key=lambda m: self._order(p, m, hint))
        best, best_cls = -k - 1, None
        for move in moves:
            score = -self.search(rules.play(p, move), -cap, -max(alpha, best))
            if score > best:
                best = score
                best_cls = (move[1], p.plates[move[0]][move[1]])
                if best >= cap:
                    break
        if best >= high:
            best, flag = high, EXACT
        elif best >= beta:
            flag = LOWER
        elif best <= alpha0:
            flag = UPPER
        else:
            flag = EXACT
        self.table[key] = (best, flag, best_cls)
        return best

    def _order(self, p: Position, move: tuple[int, int], hint: tuple[int, int] | None) -> tuple[int, int]:
        """Sort key: the table's best class first, then rows made full, then fuller rows."""
        plate, colour = move
        count = p.plates[plate][colour]
        first = 0 if hint == (colour, count) else 1
        return first, -self.rules.fills_row(p, move)


# --- Monte-Carlo: the assignment's bepaalGoedeZet --------------------------------------------


def playout(rules: Rules, p: Position, rng: random.Random) -> int:
    """Play uniformly random legal moves to the end; the final score of p's mover."""
    sign = 1
    k = rules.rows
    while True:
        if rules.full(p.mine) == k or rules.full(p.theirs) == k:
            break
        moves = list(rules.moves(p))
        if not moves:
            break
        p = rules.play(p, moves[rng.randrange(len(moves))])
        sign = -sign
    return sign * rules.score(p)


def monte_carlo(
    rules: Rules, p: Position, simulations: int, rng: random.Random, deadline: float | None = None
) -> tuple[tuple[int, int] | None, list[float]]:
    """The distinct move with the highest mean playout score, and each move's mean.

    Playouts go round by round (one per move), so running out of time treats every
    move alike; ties go to the first move in distinct-move order.
    """
    moves = rules.distinct_moves(p)
    if not moves:
        return None, []
    children = [rules.play(p, move) for move in moves]
    totals = [0] * len(moves)
    rounds = 0
    for _ in range(simulations):
        if deadline is not None and rounds and time.monotonic() > deadline:
            break
        for i, child in enumerate(children):
            totals[i] -= playout(rules, child, rng)
        rounds += 1
    means = [total / rounds for total in totals]
    best = max(range(len(moves)), key=lambda i: (means[i], -i))
    return moves[best], means


def engine_move(move: tuple[int, int]) -> list:
    """The wire form [plate, "g" | "b"] of a search move."""
    return [move[0], COLOURS[move[1]]]
