"""The tenten reference bots, driven in process as the referee would drive them."""

from __future__ import annotations

import itertools
import random
import time

import pytest

from arena.launch.specs.plugins import bots_for

from ..bots import simple
from ..bots.simple import GreedyBot, RandomBot, RoundPlanner
from ..rules import GAME, placements, score_drop, to_block

DOT = [[0, 0]]
H2 = [[0, 0], [1, 0]]
SQUARE2 = [[0, 0], [1, 0], [0, 1], [1, 1]]


def play(bot_class: type, setup: dict, seed: int) -> tuple[float, list]:
    """Referee one match: every move must be legal; return the score and the moves."""
    state, events = GAME.start(setup, 1, seed)
    bot = bot_class(seed=seed)
    bot.reseed(f"m{seed}", 0)
    bot.init_game("tenten", 0, 1, setup, 60_000, f"m{seed}")
    moves = []
    while not state.is_over():
        move = bot.turn(events, 60_000)
        assert move in state.legal_moves()
        moves.append(move)
        events = state.apply(move)
    return state.scores()[0], moves


def test_bots_are_registered() -> None:
    assert {("random", "tenten"), ("greedy", "tenten")} <= {(b.name, b.game) for b in bots_for("tenten")}


@pytest.mark.parametrize("bot_class", [RandomBot, GreedyBot])
def test_bots_play_legal_moves_to_the_end(bot_class: type) -> None:
    setup = {"size": 8, "max_rounds": 12}
    score, moves = play(bot_class, setup, seed=4)
    assert moves and score >= len(moves)
    assert play(bot_class, setup, seed=4) == (score, moves), "seeded bots repeat themselves"


def test_greedy_takes_the_line_a_first_fit_would_miss() -> None:
    # Row 5 lacks only [5, 5]: the round's best plan puts a dot there (4 + 1 + 1 + 10 points),
    # while the first free cell from the bottom left would score no line at all.
    filled = [[k, 5] for k in range(1, 5)]
    setup = {"size": 5, "sequence": [SQUARE2, DOT, DOT, DOT], "filled": filled}
    state, events = GAME.start(setup, 1, 0)
    bot = GreedyBot()
    bot.init_game("tenten", 0, 1, setup, 1000, "m")
    for _ in range(3):
        events = state.apply(bot.turn(events, 1000))
    assert state.scores() == [16.0]
    assert len(state.filled_cells()) == 4 + 4 + 1 + 1 - 5


def test_greedy_plans_once_per_round(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    original = simple.plan_round
    monkeypatch.setattr(simple, "plan_round", lambda state: calls.append(1) or original(state))
    _, moves = play(GreedyBot, {"size": 10, "max_rounds": 3}, seed=1)
    assert len(moves) == 9 and len(calls) == 3


def brute_force(board: int, size: int, blocks: list) -> int:
    """The most points a round can score: every order, every placement, no shortcuts."""
    best = 0
    for order in itertools.permutations(blocks):
        def search(board: int, rest: tuple) -> int:
            if not rest:
                return 0
            found = 0
            for p in placements(size, rest[0]):
                if not board & p.mask:
                    after, points = score_drop(board, p)
                    found = max(found, points + search(after, rest[1:]))
            return found
        best = max(best, search(board, order))
    return best


def test_round_planner_finds_the_true_optimum_on_small_boards() -> None:
    for seed in range(12):
        options = {"size": 5, "density": 0.45, "sequence_length": 3}
        setup = GAME.random_setup(random.Random(seed), 1, options)
        state, _ = GAME.start(setup, 1, 0)
        blocks = [to_block("tenten", "b", b) for b in setup["sequence"]]
        value, _ = RoundPlanner(5).best(state.board, tuple(sorted(blocks)))
        assert value == brute_force(state.board, 5, blocks), f"seed {seed}"


def test_greedy_is_quick_on_an_empty_ten_by_ten() -> None:
    setup = {"size": 10, "sequence": [DOT, H2, [[0, 0], [0, 1]]]}
    state, _ = GAME.start(setup, 1, 0)
    started = time.process_time()  # CPU time: what the plan costs, however busy the machine is
    steps = simple.plan_round(state)
    assert time.process_time() - started < 1.0
    assert len(steps) == 3


def test_greedy_outscores_random() -> None:
    greedy = sum(play(GreedyBot, {"size": 8, "max_rounds": 12}, seed)[0] for seed in range(4))
    random_ = sum(play(RandomBot, {"size": 8, "max_rounds": 12}, seed)[0] for seed in range(4))
    assert greedy > random_
