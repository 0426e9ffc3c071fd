"""tenten `lookahead` and `optimal`, the board evaluation, and `arena analyze tenten`."""

from __future__ import annotations

import random
import time
from functools import cache
from pathlib import Path

from arena.clock import ClockSettings
from arena.launch.specs.plugins import bots_for
from tests.helpers import run

from ..analyze import highest_score, play_greedy, start
from ..bots.evaluate import evaluator
from ..bots.lookahead import LookaheadBot, plan_round
from ..bots.optimal import OptimalBot, SequenceSolver, greedy_line, split_rounds
from ..bots.simple import GreedyBot
from ..rules import GAME, TentenState

DEMO = Path(__file__).resolve().parents[1] / "setups" / "tenten-sequence.json"
DOT = [[0, 0]]
H5 = [[k, 0] for k in range(5)]
V2 = [[0, 0], [0, 1]]
SQUARE2 = [[0, 0], [1, 0], [0, 1], [1, 1]]


def play(bot, setup: dict, seed: int, time_left_ms: int = 60_000) -> tuple[TentenState, list]:
    """Referee one match in process (clock not charged); every move must be legal."""
    state, events = GAME.start(setup, 1, seed)
    bot.reseed(f"m{seed}", 0)
    bot.init_game("tenten", 0, 1, setup, time_left_ms, f"m{seed}")
    moves = []
    while not state.is_over():
        move = bot.turn(events, time_left_ms)
        assert move in state.legal_moves()
        moves.append(move)
        events = state.apply(move)
    return state, moves


# --- an exhaustive search written apart from the bots: sets of cells, no masks, no bounds --


def brute_force(size: int, filled: list, sequence: list, offer: int) -> int:
    """The best total of a sequence by trying every order and every anchor of every round."""
    rounds = [tuple(tuple(map(tuple, b)) for b in sequence[i:i + offer])
              for i in range(0, len(sequence), offer)]
    span = range(1, size + 1)

    def drop(board: frozenset, block: tuple, k: int, r: int) -> tuple[frozenset, int] | None:
        cells = {(k + dk, r + dr) for dk, dr in block}
        if any(not (1 <= x <= size and 1 <= y <= size) or (x, y) in board for x, y in cells):
            return None
        new = board | cells
        rows = {y for y in span if all((x, y) in new for x in span)}
        columns = {x for x in span if all((x, y) in new for y in span)}
        lines = len(rows) + len(columns)
        kept = frozenset(c for c in new if c[1] not in rows and c[0] not in columns)
        return kept, len(block) + 5 * lines * (lines + 1)

    @cache
    def best(board: frozenset, j: int, left: tuple) -> int:
        if not left:
            return best(board, j + 1, rounds[j + 1]) if j + 1 < len(rounds) else 0
        result = 0
        for i, block in enumerate(left):
            for k in range(-size, 2 * size):
                for r in range(-size, 2 * size):
                    done = drop(board, block, k, r)
                    if done:
                        result = max(result, done[1] + best(done[0], j, left[:i] + left[i + 1:]))
        return result

    return best(frozenset(map(tuple, filled)), 0, rounds[0])


SHORT = 22  # seeded short sequences checked against the exhaustive search


@cache
def short_sequence(seed: int) -> dict:
    """A seeded short sequence on a small board, partly filled, offered 1 to 3 at a time."""
    rng = random.Random(seed)
    options = {"size": rng.choice([4, 5]), "offer": rng.choice([1, 2, 3]),
               "sequence_length": rng.randint(4, 6), "density": rng.choice([0.2, 0.4])}
    return GAME.random_setup(rng, 1, options)


@cache
def exact(seed: int) -> int:
    """The exhaustive search's best total for short_sequence(seed)."""
    setup = short_sequence(seed)
    return brute_force(setup["size"], setup.get("filled", []), setup["sequence"], setup["offer"])


# --- registration and the evaluation ------------------------------------------------------


def test_strong_bots_are_registered() -> None:
    names = {(b.name, b.game) for b in bots_for("tenten")}
    assert {("lookahead", "tenten"), ("optimal", "tenten")} <= names


def test_evaluation_terms_on_known_boards() -> None:
    evaluate = evaluator(5)
    empty = evaluate.terms(0)
    assert empty["holes"] == 0 and empty["lines"] == 10 and empty["filled"] == 0
    assert empty["big"] == 1 + 2 + 2  # one 3x3; two 1x5 of each direction side by side
    # A ring around the centre cell [3, 3]: that cell is an isolated hole.
    state = GAME.new_state(GAME.validate_setup({"size": 5, "filled": [
        [2, 2], [3, 2], [4, 2], [2, 3], [4, 3], [2, 4], [3, 4], [4, 4]]}), 0)
    ring = evaluate.terms(state.board)
    assert ring["holes"] == 1 and ring["filled"] == 8 and ring["lines"] == 4
    assert ring["big"] == 2 + 2 and ring["fit"] < empty["fit"]  # rows/columns 1 and 5
    assert evaluate.value(state.board) < evaluate.value(0)


# --- lookahead ----------------------------------------------------------------------------


def test_lookahead_plays_legal_moves_and_repeats_itself() -> None:
    setup = {"size": 7, "max_rounds": 6}
    first, moves = play(LookaheadBot(seed=3, max_width=4), setup, seed=2)
    again, moves_again = play(LookaheadBot(seed=3, max_width=4), setup, seed=2)
    assert moves == moves_again and first.points == again.points
    assert first.round == 6


def test_lookahead_takes_the_double_clear_of_the_last_round() -> None:
    # Rows 1 and 2 lack only column 5; the vertical 1x2 empties both (2 + 30 points).
    filled = [[k, r] for k in range(1, 5) for r in (1, 2)]
    setup = {"size": 5, "sequence": [V2, DOT, DOT], "filled": filled}
    state, _ = GAME.start(setup, 1, 0)
    plan, _ = plan_round(state, 1000.0)
    assert plan.points == 2 + 30 + 1 + 1


def test_lookahead_outlives_greedy() -> None:
    # On a 6x6 board greedy fills up within a dozen rounds or so; lookahead keeps room.
    setup = {"size": 6, "max_rounds": 30}
    greedy = lookahead = 0
    for seed in range(3):
        greedy += play(GreedyBot(seed=seed), setup, seed)[0].points
        state, _ = play(LookaheadBot(seed=seed, max_width=4, samples=2), setup, seed)
        lookahead += state.points
    assert lookahead > 1.5 * greedy


def test_lookahead_narrows_its_search_when_the_clock_is_low() -> None:
    setup = {"size": 10, "max_rounds": 300}
    rich = LookaheadBot(max_width=64, samples=0)
    began = time.monotonic()
    play_rounds(rich, setup, rounds=2, time_left_ms=600_000)
    rich_s = time.monotonic() - began
    poor = LookaheadBot(max_width=64, samples=0)
    began = time.monotonic()
    play_rounds(poor, setup, rounds=2, time_left_ms=400)
    poor_s = time.monotonic() - began
    # Ordering, not a wall-clock bound: the narrow search is far faster on any machine.
    assert poor_s < rich_s / 4, (poor_s, rich_s)
    # The rich search reaches 64 on an idle machine; under load it may stop a doubling short.
    assert max(poor.widths) < min(rich.widths)


def play_rounds(bot: LookaheadBot, setup: dict, rounds: int, time_left_ms: int) -> None:
    """Let bot play the first rounds of a match with a fixed clock reading."""
    state, events = GAME.start(setup, 1, 1)
    bot.init_game("tenten", 0, 1, setup, time_left_ms, "m")
    while state.round <= rounds and not state.is_over():
        events = state.apply(bot.turn(events, time_left_ms))


def test_lookahead_never_times_out_in_real_matches() -> None:
    # Up to 120 rounds on a budget of 3 s, through the referee and real processes: the
    # rounds get a few milliseconds each, and the bot must still never run out of time.
    clock = ClockSettings(budget_ms=3000)
    result, _ = run("tenten", ["lookahead"], {"size": 10, "max_rounds": 120}, seed=5, clock=clock)
    assert result.reason == "normal" and result.offender is None
    assert result.plies > 100 and result.time_used_ms[0] < 3000


# --- optimal ------------------------------------------------------------------------------


def test_optimal_equals_an_exhaustive_search_on_short_sequences() -> None:
    for seed in range(SHORT):
        state = start(short_sequence(seed))
        expected = exact(seed)
        result = highest_score(state)
        assert result.finished and result.score == expected, f"setup {seed}"
        assert result.score >= play_greedy(state).score
        # The moves are real: replayed by the rules engine, they score what was claimed.
        trial = state.copy()
        for move in result.moves:
            trial.apply(move)
        assert trial.points == expected


def test_the_bound_is_never_below_the_true_value() -> None:
    for seed in range(SHORT):
        state = start(short_sequence(seed))
        solver = SequenceSolver(state.size, split_rounds(state.offer, state.sequence,
                                                         state.offer_size, None))
        assert solver.bound(state.board, 0, tuple(sorted(state.offer))) >= exact(seed)


def test_optimal_bot_plays_the_optimal_line() -> None:
    for seed in range(0, SHORT, 4):
        state, _ = play(OptimalBot(), short_sequence(seed), seed=0)
        assert state.points == exact(seed)


def test_optimal_bot_is_never_below_greedy_even_when_out_of_time() -> None:
    # Fifteen blocks on an empty 8x8: far too many to prove optimal on a clock of 800 ms.
    rng = random.Random(4)
    setup = GAME.random_setup(rng, 1, {"size": 8, "sequence_length": 15})
    bot = OptimalBot()
    state, _ = play(bot, setup, seed=0, time_left_ms=800)
    greedy, _ = play(GreedyBot(), setup, seed=0)
    assert state.points >= greedy.points
    assert bot.searches and not bot.searches[0][1]  # the first search ran out of time


def test_optimal_bot_without_a_sequence_plays_like_lookahead() -> None:
    setup = {"size": 7, "max_rounds": 3}
    optimal, _ = play(OptimalBot(seed=1, max_width=4), setup, seed=3)
    lookahead, _ = play(LookaheadBot(seed=1, max_width=4), setup, seed=3)
    assert optimal.points == lookahead.points


def test_greedy_line_matches_the_greedy_bot() -> None:
    for seed in range(5):
        setup = short_sequence(seed)
        state = start(setup)
        assert greedy_line(state).points == play(GreedyBot(), setup, seed=0)[0].points
        assert play_greedy(state).score == greedy_line(state).points
