"""tenten `optimal`: the exact best score of a known finite `sequence` (the assignment's highest_score).

The search is a depth-first backtracking over every order of each round's blocks and every
placement, with three things that make it practical:

- **memoisation** — a position is (board, round, blocks of the round still to drop); its
  value (the points still to score) does not depend on how it was reached, so it is stored
  in a table and different orders that meet on one board are searched once;
- **pruning** — an upper bound on the points still possible cuts every branch that cannot
  beat the best total known. It is every dot to come plus a bound on line bonuses, the
  smaller of two: (1) a line empties only once its empty cells are filled, and each dot
  fills one cell of one row and one column, so the dots to come can empty only so many
  rows and columns; those lines go to the drops spanning the most lines first (the bonus
  is convex); (2) every cell an emptying removes was filled once, by the board or by a dot
  to come, and n lines of r rows and c columns hold size·n − r·c cells, so the bonus is at
  most the best knapsack of per-drop clears into the cells there are;
- **a start** — the best known total starts at what the greedy player (the assignment's
  play_greedy) and the lookahead player score on the same sequence, so the bound bites
  from the first node and the answer can never be below greedy.

The bot (`OptimalBot`) searches at the start of a round with a share of its clock that grows
as the end nears; when the search does not finish it plays the best line known (never below
greedy's, whose whole line it starts from) and tries again at the next round, keeping the
table. Without a sequence (catalogue games) it plays like `lookahead`.

Values follow the fail-low convention of alpha pruning: `search(node, need)` is exact when
it is above `need`, and otherwise only says "at most need"; the table remembers which.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from arena.games import Move

from ..rules import (
    Block,
    TentenState,
    line_bonus,
    line_masks,
    placements,
    score_drop,
)
from .lookahead import (
    SAFETY_MS,
    Drop,
    LookaheadBot,
    SearchTimeout,
    plan_round,
    rounds_left,
)
from .simple import plan_round as greedy_round

MAX_TABLE = 3_000_000  # entries before the table is dropped (it is only a cache)
CHECK_EVERY = 1024  # nodes between two looks at the clock
PROGRESS_EVERY_S = 0.5  # how often a watcher of the search hears from it
LOOKAHEAD_SHARE = 0.2  # of the first search's budget for the lookahead line it starts from
LONG = 90  # drops to come beyond which the bonus bound falls back to a cheaper, looser one

Node = tuple[int, int, tuple[Block, ...]]  # board, round index, sorted blocks left in the round


@dataclass
class Line:
    """A whole-game line of play: its drops and the points they score."""

    points: int
    drops: list[Drop]


def split_rounds(offer: Sequence[Block], sequence: Sequence[Block], offer_size: int,
                 rounds: int | None) -> list[tuple[Block, ...]]:
    """The blocks of every round still to play: the current offer, then the sequence in chunks."""
    result = [tuple(sorted(offer))]
    for start in range(0, len(sequence), offer_size):
        result.append(tuple(sorted(sequence[start : start + offer_size])))
    return result if rounds is None else result[:rounds]


@lru_cache(maxsize=4096)
def clear_options(size: int, block: Block) -> tuple[tuple[int, int], ...]:
    """(cells, bonus) for each number n of lines one drop of block could empty.

    A drop empties only lines it touches, so at most the rows plus the columns it spans;
    n lines made of r rows and c columns hold size·n − r·c cells (each crossing once),
    and the fewest cells for n lines take the largest r·c the block's shape allows.
    """
    rows = min(len({dr for _, dr in block}), size)
    columns = min(len({dk for dk, _ in block}), size)
    options = []
    for n in range(1, rows + columns + 1):
        overlap = max(r * (n - r) for r in range(max(0, n - columns), min(rows, n) + 1))
        options.append((size * n - overlap, line_bonus(n)))
    return tuple(options)


@lru_cache(maxsize=4096)
def span(block: Block) -> int:
    """The rows plus the columns block spans: the most lines one drop of it can empty."""
    return len({dk for dk, _ in block}) + len({dr for _, dr in block})


def add_drop(table: list[int], options: tuple[tuple[int, int], ...]) -> list[int]:
    """The bonus table with one more drop: table[c] is the most bonus c emptied cells allow."""
    new = list(table)
    for cells, bonus in options:
        for c in range(cells, len(table)):
            value = table[c - cells] + bonus
            if value > new[c]:
                new[c] = value
    return new


class SequenceSolver:
    """Exact best play of a known block sequence from one position (see the module docstring)."""

    def __init__(self, size: int, rounds: list[tuple[Block, ...]]) -> None:
        self.size = size
        self.rounds = rounds
        # The bound on line bonuses: every cell a clear empties was filled once, by the board
        # as it stands or by a dot still to come, so with C such cells the bonus is at most
        # the best knapsack of per-drop clears (clear_options) into C cells. Tables are
        # indexed by C; later_tables[j] holds the drops of every round after round j.
        self.later_dots = [0] * len(rounds)
        total = size * size + sum(len(b) for r in rounds for b in r)
        self.later_tables: list[list[int] | None] = [None] * len(rounds)
        table: list[int] | None = [0] * (total + 1)
        count = 0
        for j in range(len(rounds) - 1, -1, -1):
            self.later_tables[j] = table
            if j:
                self.later_dots[j - 1] = self.later_dots[j] + sum(len(b) for b in rounds[j])
                count += len(rounds[j])
                # Beyond LONG drops the tables cost more than they save: use the rate bound.
                table = None if table is None or count > LONG else self.extend(table, rounds[j])
        self.rate = max(
            (bonus / cells for r in rounds for b in r for cells, bonus in clear_options(size, b)),
            default=0.0,
        )
        self.tables: dict[tuple[int, tuple[Block, ...]], list[int] | None] = {}
        self.rows, self.columns = line_masks(size)
        # The spans (rows + columns) of the drops of every round after round j, widest first.
        self.later_spans: list[tuple[int, ...]] = [()] * len(rounds)
        for j in range(len(rounds) - 2, -1, -1):
            more = tuple(map(span, rounds[j + 1]))
            self.later_spans[j] = tuple(sorted(self.later_spans[j + 1] + more, reverse=True))
        self.table: dict[Node, tuple[int, int, Drop | None]] = {}
        self.found: Line | None = None  # the best line of the last solve, even a stopped one
        # progress(states visited, best points proven so far or None): called about twice a second
        self.progress: Callable[[int, int | None], None] | None = None
        self._next_report = 0.0
        self.nodes = 0
        self.deadline = float("inf")

    def extend(self, table: list[int], blocks: Sequence[Block]) -> list[int]:
        """table with one more drop of each of blocks."""
        for block in blocks:
            table = add_drop(table, clear_options(self.size, block))
        return table

    def bound(self, board: int, j: int, left: tuple[Block, ...]) -> int:
        """An upper bound on the points still possible from a position."""
        dots = self.later_dots[j] + sum(len(b) for b in left)
        lines = self.reachable_lines(board, dots)
        if not lines:
            return dots  # no line can fill up any more: only the dots are left to score
        spans = sorted(self.later_spans[j][:lines] + tuple(map(span, left)), reverse=True)
        by_lines = 0
        for width in spans:  # the bonus is convex: the widest drops take the lines first
            take = min(width, lines)
            by_lines += line_bonus(take)
            lines -= take
            if not lines:
                break
        return dots + min(by_lines, self.cell_bound(board, j, left, dots))

    def reachable_lines(self, board: int, dots: int) -> int:
        """The most lines `dots` more dots can empty.

        Each line first needs its empty cells filled (the emptiest last), then `size` dots for
        every further emptying; a dot lies in one row and one column, so rows and columns each
        get all the dots.
        """
        total = 0
        for lines in (self.rows, self.columns):
            gaps = sorted(self.size - (board & line).bit_count() for line in lines)
            budget = dots
            for gap in gaps:
                if gap > budget:
                    break
                budget -= gap
                total += 1
            else:
                total += budget // self.size
        return total

    def cell_bound(self, board: int, j: int, left: tuple[Block, ...], dots: int) -> int:
        """The knapsack bound on line bonuses from the cells clears must empty."""
        cells = board.bit_count() + dots
        key = (j, left)
        if key not in self.tables:
            later = self.later_tables[j]
            self.tables[key] = None if later is None else self.extend(later, left)
        table = self.tables[key]
        if table is None:
            return int(self.rate * cells)
        return table[min(cells, len(table) - 1)]

    def normal(self, board: int, j: int, left: tuple[Block, ...]) -> Node | None:
        """The node of a position: an emptied round moves on to the next; None when over."""
        if left:
            return board, j, left
        if j + 1 < len(self.rounds):
            return board, j + 1, self.rounds[j + 1]
        return None

    def children(self, node: Node) -> list[tuple[int, Node | None, Drop]]:
        """Every drop from node: (points, the node after it or None when over, the drop)."""
        board, j, left = node
        children = []
        seen: set[Block] = set()
        for index, shape in enumerate(left):
            if shape in seen:  # two blocks of one shape on offer: one branch
                continue
            seen.add(shape)
            rest = left[:index] + left[index + 1 :]
            for placement in placements(self.size, shape):
                if not board & placement.mask:
                    after, gained = score_drop(board, placement)
                    children.append((gained, self.normal(after, j, rest), Drop(shape, placement)))
        # Line clears first: they raise the best total early and the bound prunes the rest.
        children.sort(key=lambda child: -child[0])
        return children

    def search(self, node: Node, need: int) -> int:
        """The best points still to score from node if above need, else some value <= need."""
        found = self.table.get(node)
        if found is not None:
            value, stored_need, _ = found
            if value > stored_need or need >= stored_need:
                return value
        self.nodes += 1
        if not self.nodes % CHECK_EVERY:
            now = time.monotonic()
            if now > self.deadline:
                raise SearchTimeout
            if self.progress is not None and now >= self._next_report:
                self._next_report = now + PROGRESS_EVERY_S
                self.progress(self.nodes, self.found.points if self.found is not None else None)
        best, best_drop = 0, None  # no drop at all: the game is over, nothing more to score
        for gained, child, drop in self.children(node):
            floor = max(need, best)  # a child must beat this to matter
            if child is None:
                value = 0
            elif gained + self.bound(*child) <= floor:
                continue
            else:
                value = self.search(child, floor - gained)
            if gained + value > best:
                best, best_drop = gained + value, drop
        if len(self.table) >= MAX_TABLE:
            self.table.clear()
        old = self.table.get(node)
        if old is None or old[0] <= old[1]:  # never overwrite an exact entry
            self.table[node] = (best, need, best_drop if best > need else None)
        return best

    def best_drop(self, node: Node, value: int) -> Drop | None:
        """A drop from node that scores `value` in all (node's exact value), or None."""
        entry = self.table.get(node)
        if entry is not None and entry[0] == value and entry[0] > entry[1]:
            return entry[2]
        for gained, child, drop in self.children(node):
            future = 0 if child is None else self.search(child, value - gained - 1)
            if gained + future == value:
                return drop
        return None

    def principal(self, node: Node | None, value: int) -> list[Drop]:
        """The drops of a line that scores node's exact value (found again if not stored)."""
        deadline, self.deadline = self.deadline, float("inf")  # a line known exact is cheap
        drops: list[Drop] = []
        try:
            while node is not None and value > 0:
                drop = self.best_drop(node, value)
                if drop is None:  # unreachable: an exact value is made of drops
                    break
                drops.append(drop)
                after, gained = score_drop(node[0], drop.placement)
                rest = list(node[2])
                rest.remove(drop.shape)
                node = self.normal(after, node[1], tuple(rest))
                value -= gained
        finally:
            self.deadline = deadline
        return drops

    def solve(self, board: int, j: int, left: tuple[Block, ...], at_least: int = 0,
              deadline: float = float("inf")) -> Line | None:
        """The best line of play from a position, or None when none reaches at_least.

        Past the deadline it raises SearchTimeout; `self.found` then holds the best line
        found that reaches at_least (or None), and the table keeps what was finished.
        """
        self.deadline = deadline
        self.found = None
        node = self.normal(board, j, left)
        if node is None:
            return Line(0, []) if at_least <= 0 else None
        floor = at_least - 1
        # The root's children one by one, so that every better line is kept at once: a
        # search stopped by the clock still leaves the best line it has proven so far.
        for gained, child, drop in self.children(node):
            if child is None:
                value = 0
            elif gained + self.bound(*child) <= floor:
                continue
            else:
                value = self.search(child, floor - gained)
            if gained + value > floor:
                floor = gained + value
                self.found = Line(floor, [drop] + self.principal(child, value))
        if self.found is None and at_least <= 0:
            return Line(0, [])  # nothing fits: the game is over before it starts
        return self.found


def follow(state: TentenState, choose_round: Any) -> Line:
    """Play a copy of state to the end with a per-round planner; the drops and points."""
    trial = state.copy()
    drops: list[Drop] = []
    start = trial.points
    while not trial.is_over():
        planned = choose_round(trial)
        if not planned:
            break
        for drop in planned:
            index = trial.offer.index(drop.shape)
            drops.append(drop)
            trial.apply([index, drop.placement.k, drop.placement.r])
            if trial.is_over():
                break
    return Line(trial.points - start, drops)


def greedy_line(state: TentenState) -> Line:
    """What the greedy player (the assignment's play_greedy) scores from state, and its drops."""
    return follow(state, lambda s: [Drop(shape, p) for _, shape, p in greedy_round(s)])


def lookahead_line(
    state: TentenState, budget_ms: float = 5.0, rng: random.Random | None = None
) -> Line:
    """What the lookahead player scores from state with budget_ms per round, and its drops.

    With rng its plans are also compared by the next round, which a sequence makes known.
    """
    return follow(
        state, lambda s: list(plan_round(s, budget_ms, rng=rng, samples=1 if rng else 0)[0].drops)
    )


Step = tuple[tuple[int, tuple[Block, ...]], Drop]  # the position a drop expects, and the drop


def steps_of(state: TentenState, line: Line) -> list[Step]:
    """The drops of a line keyed by the position each expects (replayed on a copy of state)."""
    trial = state.copy()
    steps: list[Step] = []
    for drop in line.drops:
        steps.append(((trial.board, tuple(trial.offer)), drop))
        trial.apply([trial.offer.index(drop.shape), drop.placement.k, drop.placement.r])
    return steps


class OptimalBot(LookaheadBot):
    """Exact best play of a known `sequence`; without one it plays like `lookahead`."""

    name = "optimal"
    strength = 4
    fixed_effort = "max_width=4,samples=2"
    description = "exact best score of a known sequence (backtracking, bound, memo); else lookahead"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.solver: SequenceSolver | None = None
        self.first_round = 1  # the round the solver's round 0 stands for
        self.searched_round = 0  # the round of the last exact search
        self.exact = False
        self.searches: list[tuple[int, bool]] = []  # (nodes, finished) per search, for benches

    def on_init(self, time_left_ms: int) -> None:
        super().on_init(time_left_ms)
        state = cast(TentenState, self.state)
        self.solver, self.exact, self.searches, self.searched_round = None, False, [], 0
        if state.sequence is not None and not state.is_over():
            rounds = None if state.max_rounds is None else state.max_rounds - state.round + 1
            self.first_round = state.round
            self.solver = SequenceSolver(
                state.size, split_rounds(state.offer, state.sequence, state.offer_size, rounds)
            )

    def choose(self, state: TentenState, time_left_ms: int) -> Move:
        if self.solver is None:
            return super().choose(state, time_left_ms)
        position = (state.board, tuple(state.offer))
        if not self.plan or self.plan[0][0] != position:
            # The first move, or an unexpected position: the best line from here.
            self.best_line(state, self.round_budget_ms(state, time_left_ms))
        elif not self.exact and state.round != self.searched_round:
            # A new round on the expected line: try again to prove it best or beat it.
            self.improve(state, self.round_budget_ms(state, time_left_ms))
        if not self.plan:
            return super().choose(state, time_left_ms)  # the line ended early: play on
        _, drop = self.plan.pop(0)
        return [state.offer.index(drop.shape), drop.placement.k, drop.placement.r]

    def round_budget_ms(self, state: TentenState, time_left_ms: float) -> float:
        """The share of the clock for this round's exact search (more as the end nears)."""
        if self.solver is None:
            return super().round_budget_ms(state, time_left_ms)
        rounds = rounds_left(state)
        spare = time_left_ms - SAFETY_MS - 2.0 * self.overhead_ms * rounds * state.offer_size
        return max(0.0, spare * min(0.5, 2.0 / rounds))

    def best_line(self, state: TentenState, budget_ms: float) -> None:
        """Adopt the better of greedy's and lookahead's lines, then try the exact search."""
        started = time.monotonic()
        greedy = greedy_line(state)
        # A good line to start from makes the bound bite: lookahead's, on a share of the clock.
        quick = lookahead_line(state, LOOKAHEAD_SHARE * budget_ms / rounds_left(state), self.rng)
        self.plan = steps_of(state, quick if quick.points > greedy.points else greedy)
        self.improve(state, budget_ms - (time.monotonic() - started) * 1000.0)

    def improve(self, state: TentenState, budget_ms: float) -> None:
        """Search for a line beating the current plan within budget_ms; adopt it if found."""
        if self.solver is None or budget_ms <= 0:
            return
        incumbent = plan_points(state, self.plan)
        self.searched_round = state.round
        before = self.solver.nodes
        try:
            found = self.solver.solve(
                state.board,
                state.round - self.first_round,
                tuple(sorted(state.offer)),
                at_least=incumbent + 1,
                deadline=time.monotonic() + budget_ms / 1000.0,
            )
        except SearchTimeout:
            self.searches.append((self.solver.nodes - before, False))
            if self.solver.found is not None:  # a better line was proven before the clock ran out
                self.plan = steps_of(state, self.solver.found)
            return
        self.searches.append((self.solver.nodes - before, True))
        self.exact = True  # finished: found is the best line, or nothing beats the plan
        if found is not None:
            self.plan = steps_of(state, found)


def plan_points(state: TentenState, plan: list[Step]) -> int:
    """The points the rest of a plan scores from state."""
    board, points = state.board, 0
    for _, drop in plan:
        board, gained = score_drop(board, drop.placement)
        points += gained
    return points
