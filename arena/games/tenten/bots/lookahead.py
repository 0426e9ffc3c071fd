"""tenten `lookahead`: every order × every placement of the round's blocks, judged by the board left.

Each round the bot searches the orders and placements of the offered blocks and plays the
plan that maximises the round's points plus the evaluation of the board it leaves
(bots/tenten/evaluate.py: room for the catalogue's blocks weighted by their catalogue
weight, the 3×3 and 1×5 fits, isolated holes, roughness, filled cells, empty lines, and
lines gathering dots for combos). In the last round of a bounded game the board has no
future, so only the points count.

Every order and every placement are generated at every step; to stay inside a whole-match
clock the search is a beam over (board, blocks left) positions: after each drop only the
`width` best positions are kept. The width widens (1, 2, 4, …) while the round's share of the
clock allows, so with a generous budget the search approaches the exhaustive one and with a
tight budget it still answers in milliseconds. The best few plans are then compared again by
the round after them, over `samples` offers drawn from the catalogue (`rerank`).

The round's share of the clock is the time left, less a reserve for the per-move overhead
the bot has observed, divided by the rounds still to play; with almost no clock left a
round is not searched at all (`first_fit`), so the bot never loses on time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from arena.games import Move
from bots.common import GameBot, int_option

from ..rules import (
    CATALOGUE,
    Block,
    Placement,
    TentenState,
    placements,
    score_drop,
)
from .evaluate import DEAD, DEFAULT_WEIGHTS, Evaluator, Weights, evaluator

# The rounds an unbounded game is assumed to have left: each round spends at most 1/UNBOUNDED
# of the clock, so the clock shrinks geometrically and never runs out on its own.
UNBOUNDED_ROUNDS = 200
MAX_WIDTH = 512  # the widest beam tried (each doubling costs about twice as much)
SAFETY_MS = 300.0  # kept back from the whole-match clock, whatever happens (stalls, the end)
MAX_ROUND_MS = 3000.0  # no round deserves more, however rich the clock
DEFAULT_OVERHEAD_MS = 3.0  # assumed cost of one move outside the search until measured
MAX_OVERHEAD_MS = 50.0  # a single move's overhead counts at most this much in the average
EMERGENCY_MS = 3.0  # below this share of the clock a round is not searched at all (first fit)
SAMPLES = 8  # next-round offers drawn to compare the best plans (0: no second round)
CANDIDATES = 4  # best plans compared by the next round
INNER_WIDTH = 2  # beam width of the next-round searches
MAIN_SHARE = 0.4  # of a round's budget for the round search when the next round is sampled
DEATH_PER_ROUND = 25.0  # points a round earns: what a dead end costs per round left
BLOCKS = [block for block, _ in CATALOGUE]
WEIGHTS = [weight for _, weight in CATALOGUE]


class Drop(NamedTuple):
    """One step of a plan: the shape to drop and where."""

    shape: Block
    placement: Placement


class Plan(NamedTuple):
    """A round's drops, the points they score, and the plan's value (points + evaluation)."""

    value: float
    points: int
    drops: tuple[Drop, ...]
    complete: bool  # every offered block placed (otherwise the game ends after these drops)
    board: int  # the board the drops leave


class SearchTimeout(Exception):
    """The search passed its deadline; the caller keeps the last finished result."""


class BeamSearch:
    """The beam search of one round: positions are (board, sorted blocks still to drop)."""

    def __init__(self, size: int, evaluate: Evaluator, final: bool, deadline: float) -> None:
        self.size = size
        self.evaluate = evaluate
        self.final = final  # no round follows: only points count
        self.deadline = deadline
        self.cache: dict[int, float] = {}  # board -> evaluation (boards recur across widths)

    def value_of(self, board: int) -> float:
        """The evaluation of board, cached."""
        found = self.cache.get(board)
        if found is None:
            found = self.evaluate.value(board)
            self.cache[board] = found
        return found

    def run(self, board: int, offer: Sequence[Block], width: int) -> Plan:
        """The best plan found keeping `width` positions per step; raises SearchTimeout."""
        return best_of(*self.search(board, offer, width), board)

    def search(
        self, board: int, offer: Sequence[Block], width: int
    ) -> tuple[list[Plan], Plan | None]:
        """Every complete plan the beam reaches (in the order found) and the best dead end."""
        shapes = tuple(sorted(offer))
        # position -> (points so far, drops so far); one entry per distinct position.
        level: dict[tuple[int, tuple[Block, ...]], tuple[int, tuple[Drop, ...]]] = {
            (board, shapes): (0, ())
        }
        best_end: Plan | None = None  # the best dead end: a position where nothing more fits
        for step in range(len(shapes)):
            children: dict[tuple[int, tuple[Block, ...]], tuple[int, tuple[Drop, ...]]] = {}
            for (here, left), (points, drops) in level.items():
                if time.monotonic() > self.deadline:
                    raise SearchTimeout
                moved = False
                seen: set[Block] = set()
                for index, shape in enumerate(left):
                    if shape in seen:  # two offered blocks of one shape: one branch
                        continue
                    seen.add(shape)
                    rest = left[:index] + left[index + 1 :]
                    for placement in placements(self.size, shape):
                        if here & placement.mask:
                            continue
                        moved = True
                        after, gained = score_drop(here, placement)
                        key = (after, rest)
                        total = points + gained
                        old = children.get(key)
                        if old is None or total > old[0]:
                            children[key] = (total, drops + (Drop(shape, placement),))
                if not moved and drops:
                    # The round cannot go on from here: the game would end with these drops.
                    end = Plan(points + DEAD, points, drops, False, here)
                    if best_end is None or end.value > best_end.value:
                        best_end = end
            if not children:
                return [], best_end
            # The last step's positions are the leaves: all of them are compared.
            level = children if step == len(shapes) - 1 else self.keep(children, width)
        leaves = [
            Plan(points if self.final else points + self.value_of(after), points, drops, True, after)
            for (after, _), (points, drops) in level.items()
        ]
        return leaves, best_end

    def keep(
        self,
        children: dict[tuple[int, tuple[Block, ...]], tuple[int, tuple[Drop, ...]]],
        width: int,
    ) -> dict[tuple[int, tuple[Block, ...]], tuple[int, tuple[Drop, ...]]]:
        """The `width` most promising positions (points + evaluation; ties by first found)."""
        if len(children) <= width:
            return children
        # Ranked by points plus the evaluation even in a final round, where the board still
        # decides whether the round's other blocks fit.
        ranked = sorted(
            children.items(),
            key=lambda item: item[1][0] + self.value_of(item[0][0]),
            reverse=True,
        )
        return dict(ranked[:width])


def rounds_left(state: TentenState) -> int:
    """The rounds still to play, this one included (an estimate for unbounded games)."""
    left = UNBOUNDED_ROUNDS if state.max_rounds is None else state.max_rounds - state.round + 1
    if state.sequence is not None:
        offer = max(1, state.offer_size)
        left = min(left, 1 + (len(state.sequence) + offer - 1) // offer)
    return max(1, left)


def is_final_round(state: TentenState) -> bool:
    """True when no round follows the current one."""
    if state.max_rounds is not None and state.round >= state.max_rounds:
        return True
    return state.sequence is not None and not state.sequence


def best_of(leaves: list[Plan], best_end: Plan | None, board: int) -> Plan:
    """The best complete plan, else the best dead end, else nothing at all."""
    if leaves:
        return max(leaves, key=lambda plan: plan.value)  # the first of equals
    return best_end if best_end is not None else Plan(DEAD, 0, (), False, board)


def first_fit(state: TentenState) -> Plan:
    """The blocks in offer order, each at its first free anchor: the plan of an empty clock."""
    board, points, drops = state.board, 0, []
    for shape in state.offer:
        for placement in placements(state.size, shape):
            if not board & placement.mask:
                board, gained = score_drop(board, placement)
                points += gained
                drops.append(Drop(shape, placement))
                break
        else:
            return Plan(points + DEAD, points, tuple(drops), False, board)
    return Plan(float(points), points, tuple(drops), True, board)


def plan_round(
    state: TentenState,
    budget_ms: float,
    weights: Weights = DEFAULT_WEIGHTS,
    max_width: int = MAX_WIDTH,
    rng: random.Random | None = None,
    samples: int = 0,
    candidates: int = CANDIDATES,
) -> tuple[Plan, int]:
    """The best plan for the blocks on offer found within budget_ms, and the width searched.

    With `samples` (and rng), the best few plans are compared again by the round after
    them (see `rerank`), which gets what the widening search leaves of the budget.
    """
    if budget_ms < EMERGENCY_MS:
        return first_fit(state), 0
    started = time.monotonic()
    deadline = started + budget_ms / 1000.0
    final = is_final_round(state)
    rerank_too = samples > 0 and rng is not None and not final
    main_deadline = started + (MAIN_SHARE if rerank_too else 1.0) * budget_ms / 1000.0
    search = BeamSearch(state.size, evaluator(state.size, weights), final, float("inf"))
    # Width 1 always runs to the end (a few milliseconds): a move is always available.
    leaves, best_end = search.search(state.board, state.offer, 1)
    search.deadline = main_deadline
    width, done = 1, 1
    last_cost = time.monotonic() - started
    while width < max_width:
        width *= 2
        # A search twice as wide costs about twice as much; do not start what cannot finish.
        if time.monotonic() + 2.2 * last_cost > main_deadline:
            break
        began = time.monotonic()
        try:
            leaves, best_end = search.search(state.board, state.offer, width)
        except SearchTimeout:
            break
        done = width
        last_cost = time.monotonic() - began
    plan = best_of(leaves, best_end, state.board)
    if rerank_too and plan.complete and rng is not None:
        better = rerank(state, leaves, weights, rng, samples, candidates, deadline)
        if better is not None:
            plan = better
    return plan, done


def next_offers(state: TentenState, rng: random.Random, samples: int) -> list[list[Block]]:
    """The offers the next round may bring: the known one in a sequence, else samples.

    Samples are drawn from the catalogue with its weights (from rng, so the bot stays reproducible).
    """
    if state.sequence is not None:
        return [list(state.sequence[: state.offer_size])]
    return [rng.choices(BLOCKS, WEIGHTS, k=state.offer_size) for _ in range(samples)]


def rerank(
    state: TentenState,
    leaves: list[Plan],
    weights: Weights,
    rng: random.Random,
    samples: int,
    candidates: int,
    deadline: float,
) -> Plan | None:
    """Of the best few plans, the one whose board best serves the next round.

    Each candidate board is valued at the mean, over the next round's possible offers, of
    that round's best points plus the evaluation of the board it leaves (a narrow beam);
    an offer that cannot be placed costs the points a round earns for every round left.
    This is one chance layer of expectimax on top of the round search: it sees the combos
    and the dead ends of the next round that the static evaluation can only guess at.
    """
    ranked: list[Plan] = []
    seen: set[int] = set()
    for plan in sorted(leaves, key=lambda plan: -plan.value):
        if plan.board not in seen:
            seen.add(plan.board)
            ranked.append(plan)
            if len(ranked) == candidates:
                break
    if len(ranked) < 2:
        return None
    offers = next_offers(state, rng, samples)
    nxt = state.copy()  # the position's round counters as the next round will see them
    nxt.round += 1
    if nxt.sequence is not None:
        nxt.sequence = nxt.sequence[state.offer_size :]
    search = BeamSearch(state.size, evaluator(state.size, weights), is_final_round(nxt), deadline)
    death = DEATH_PER_ROUND * rounds_left(nxt)
    best: tuple[float, Plan] | None = None
    for plan in ranked:
        total = 0.0
        try:
            for offer in offers:
                after = search.run(plan.board, offer, INNER_WIDTH)
                total += after.value if after.complete else after.points - death
        except SearchTimeout:
            break  # keep what was compared in full: the best-ranked candidates come first
        score = plan.points + total / len(offers)
        if best is None or score > best[0]:
            best = (score, plan)
    return None if best is None else best[1]


class LookaheadBot(GameBot):
    """Every order × placement of the round's blocks, scored by points plus a room evaluation."""

    name = "lookahead"
    strength = 3
    fixed_effort = "max_width=4,samples=2"
    description = "round search (all orders × placements, widening beam) with a room evaluation"

    def __init__(
        self,
        max_width: int = MAX_WIDTH,
        samples: int = SAMPLES,
        candidates: int = CANDIDATES,
        **options: Any,
    ) -> None:
        super().__init__(**options)
        self.max_width = int_option("max_width", max_width)
        self.samples = int_option("samples", samples, 0)
        self.candidates = int_option("candidates", candidates, 2)
        self.weights = DEFAULT_WEIGHTS
        self.plan: list[tuple[tuple[int, tuple[Block, ...]], Drop]] = []
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.expected_left_ms: float | None = None  # the clock we expect at the next turn
        self.widths: list[int] = []  # the width searched in each round (for benches and tests)

    def on_init(self, time_left_ms: int) -> None:
        self.plan = []
        self.overhead_ms = DEFAULT_OVERHEAD_MS
        self.expected_left_ms = None
        self.widths = []

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Move:
        started = time.monotonic()
        if self.expected_left_ms is not None:
            # What the clock lost beyond our own thinking is the per-move overhead (messages,
            # the referee's work). A moving average: one stall (a busy machine, a collection)
            # must not make the reserve swallow the clock; the 10 % kept back by
            # round_budget_ms and SAFETY_MS absorb single stalls.
            outside = min(max(self.expected_left_ms - time_left_ms, 0.3), MAX_OVERHEAD_MS)
            self.overhead_ms = 0.8 * self.overhead_ms + 0.2 * outside
        move = super().turn(events, time_left_ms)
        self.expected_left_ms = time_left_ms - (time.monotonic() - started) * 1000.0
        return move

    def round_budget_ms(self, state: TentenState, time_left_ms: float) -> float:
        """The share of the clock this round may spend searching."""
        rounds = rounds_left(state)
        moves = rounds * state.offer_size
        spare = time_left_ms - SAFETY_MS - 2.0 * self.overhead_ms * moves
        return max(0.0, min(MAX_ROUND_MS, 0.9 * spare / rounds))

    def choose(self, state: TentenState, time_left_ms: int) -> Move:
        position = (state.board, tuple(state.offer))
        if not self.plan or self.plan[0][0] != position:
            self.plan = self.new_plan(state, self.round_budget_ms(state, time_left_ms))
        if not self.plan:
            return state.legal_moves()[0]  # unreachable while the game runs: something fits
        _, drop = self.plan.pop(0)
        return [state.offer.index(drop.shape), drop.placement.k, drop.placement.r]

    def new_plan(
        self, state: TentenState, budget_ms: float
    ) -> list[tuple[tuple[int, tuple[Block, ...]], Drop]]:
        """Search the round and turn its plan into steps keyed by the position they expect."""
        plan, width = plan_round(
            state, budget_ms, self.weights, self.max_width, self.rng, self.samples, self.candidates
        )
        self.widths.append(width)
        steps = []
        board, offer = state.board, list(state.offer)
        for drop in plan.drops:
            steps.append(((board, tuple(offer)), drop))
            board = score_drop(board, drop.placement)[0]
            offer.remove(drop.shape)
        return steps
