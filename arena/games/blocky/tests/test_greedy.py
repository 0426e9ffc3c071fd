"""The blocky `greedy` bot: one ply over every legal move, goal score minus penalty."""

from __future__ import annotations

import random
import time

import pytest

from arena.clock import ClockSettings
from arena.launch.specs.plugins import bots_for
from tests.helpers import run

from ..bots.greedy import GreedyBot, cell_of
from ..bots.simple import SmartBot
from ..rules import GAME, PENALTY, flatten, goal_score


def referee(bots: list, setup: dict, seed: int, time_left_ms: int = 10_000) -> list[float]:
    """Play one match in process; every move must be legal; return the scores."""
    players = len(bots)
    state, events = GAME.start(setup, players, seed)
    pending = [list(events) for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.reseed(f"m{seed}", seat)
        bot.init_game("blocky", seat, players, setup, time_left_ms, f"m{seed}")
    while not state.is_over():
        seat = state.to_move()
        move = bots[seat].turn(pending[seat], time_left_ms)
        pending[seat] = []
        assert move in state.legal_moves()
        caused = state.apply(move)
        for other in range(players):
            if other != seat:
                pending[other].append([seat, move])
            pending[other].extend(caused)
    return state.scores()


def started(board, goal: dict, max_depth: int = 1, **options) -> GreedyBot:
    """A greedy bot at the start of a one-seat match on board."""
    bot = GreedyBot(**options)
    setup = {"max_depth": max_depth, "turns": 1, "board": board, "goals": [goal]}
    bot.init_game("blocky", 0, 1, setup, 10_000, "m")
    return bot


def test_greedy_is_registered() -> None:
    assert ("greedy", "blocky") in {(b.name, b.game) for b in bots_for("blocky")}


def test_cell_of_agrees_with_flatten() -> None:
    rng = random.Random(3)
    for _ in range(20):
        path = [rng.randrange(4) for _ in range(3)]
        grid = flatten(marked(path), 3)
        x, y = cell_of(path, 3)
        assert grid[x][y] == 1 and sum(map(sum, grid)) == 1


def marked(path: list[int]) -> list:
    """A depth-3 tree of colour 0 with colour 1 at the unit cell of path."""
    def build(level: int, prefix: list[int]):
        if level == 3:
            return 1 if prefix == path else 0
        return [build(level + 1, prefix + [i]) for i in range(4)]
    return build(0, [])


def test_greedy_prefers_the_move_with_the_best_net_score() -> None:
    # Combining (2-1-1) makes a blob of 4 for penalty 1 (net 3); a paint gives 3 - 1 = 2.
    assert started([0, 1, 2, 1], {"kind": "blob", "colour": 1}).turn([], 10_000) == ["combine", []]


def test_greedy_passes_when_a_paint_only_pays_its_penalty() -> None:
    # Painting a neighbour colour 1 makes a blob of 2 (2 - 1 = 1): no better than passing, so
    # the tie goes to the cheaper move (combine is illegal: 1-1-1-1). The smart player,
    # ignoring penalties, paints.
    goal = {"kind": "blob", "colour": 1}
    assert started([1, 0, 2, 3], goal).turn([], 10_000) == ["pass"]
    smart = SmartBot(difficulty=1000)
    smart.init_game("blocky", 0, 1, {"max_depth": 1, "turns": 1, "board": [1, 0, 2, 3],
                                     "goals": [goal]}, 10_000, "m")
    assert smart.turn([], 10_000)[0] == "paint"


def test_greedy_takes_a_free_reorder_that_raises_the_score() -> None:
    # Perimeter of colour 3: the 3s sit in the middle of the depth-2 board; a rotation or swap
    # of the top block brings them to the edge at no cost.
    board = [[0, 0, 3, 0], [0, 0, 0, 3], [3, 0, 0, 0], [0, 3, 0, 0]]
    bot = started(board, {"kind": "perimeter", "colour": 3}, max_depth=2)
    move = bot.turn([], 10_000)
    state = GAME.start({"max_depth": 2, "turns": 1, "board": board,
                        "goals": [{"kind": "perimeter", "colour": 3}]}, 1, 0)[0]
    before = state.goal_score(0)
    state.apply(move)
    assert move[0] in ("rotate_cw", "rotate_ccw", "swap_h", "swap_v")
    assert state.goal_score(0) > before


def test_every_value_is_goal_after_minus_penalty() -> None:
    setup = GAME.random_setup(random.Random(8), 1, {"max_depth": 2, "turns": 3})
    bot = GreedyBot(samples=0)
    bot.init_game("blocky", 0, 1, setup, 10_000, "m")
    state = bot.state
    goal = state.goals[0]
    for move in bot.candidates(state):
        trial = state.copy()
        trial.apply(move)
        expected = goal_score(flatten(trial.board, 2), goal) - PENALTY.get(move[0], 0)
        assert bot.value(state, move) == expected, move


def test_paints_to_other_colours_and_smashes_without_samples_are_not_tried() -> None:
    setup = GAME.random_setup(random.Random(2), 1, {"max_depth": 3, "turns": 3})
    bot = GreedyBot(samples=0)
    bot.init_game("blocky", 0, 1, setup, 10_000, "m")
    colour = bot.state.goals[0]["colour"]
    kinds = {move[0] for move in bot.candidates(bot.state)}
    assert "smash" not in kinds
    assert all(move[2] == colour for move in bot.candidates(bot.state) if move[0] == "paint")


def test_smash_is_valued_by_its_sampled_mean() -> None:
    # A big leaf of another colour on a depth-2 board: a smash's children are random, so its
    # value is a mean of sampled goal scores minus 3, reproducible for one seed.
    values = []
    for _ in range(2):
        bot = started([2, 2, 2, [0, 1, 0, 1]], {"kind": "blob", "colour": 0}, max_depth=2,
                      samples=16, seed=5)
        bot.reseed("m", 0)
        values.append(bot.value(bot.state, ["smash", [0]]))
    assert values[0] == values[1]
    assert -3 < values[0] < 16 - 3 and values[0] != int(values[0])


def test_greedy_is_deterministic_for_a_seed() -> None:
    setup = GAME.random_setup(random.Random(5), 2, {"max_depth": 3, "turns": 6})
    first = referee([GreedyBot(seed=1), SmartBot(seed=2)], setup, seed=9)
    again = referee([GreedyBot(seed=1), SmartBot(seed=2)], setup, seed=9)
    assert first == again


def test_greedy_beats_smart_most_of_the_time() -> None:
    wins = games = 0
    for seed in range(20):
        setup = GAME.random_setup(random.Random(f"setup:{seed}"), 2, {})
        for seat in (0, 1):
            bots = [SmartBot(seed=seed, difficulty=5), SmartBot(seed=seed + 99, difficulty=5)]
            bots[seat] = GreedyBot(seed=seed)
            scores = referee(bots, setup, seed)
            wins += scores[seat] > scores[1 - seat]
            games += 1
    assert wins / games >= 0.65, f"{wins} of {games}"


def test_greedy_cuts_its_evaluation_short_when_the_clock_is_low() -> None:
    setup = GAME.random_setup(random.Random(1), 1, {"max_depth": 5, "turns": 10})
    bot = GreedyBot()
    bot.init_game("blocky", 0, 1, setup, 300, "m")
    legal = bot.state.legal_moves()
    began = time.monotonic()
    move = bot.turn([], 300)
    assert time.monotonic() - began < 1.5  # its 300 ms, with room for a loaded machine
    assert move in legal and bot.cut_short == 1


@pytest.mark.parametrize("seat", [0, 1])
def test_greedy_plays_a_real_match_inside_the_default_budget(seat: int) -> None:
    bots = ["smart", "smart"]
    bots[seat] = "greedy"
    result, _ = run("blocky", bots, {"max_depth": 4, "turns": 8}, seed=3, clock=ClockSettings())
    assert result.reason == "normal" and result.offender is None
    assert result.plies == 16
