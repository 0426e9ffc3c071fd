"""The blocky reference bots, driven in process as the referee would drive them."""

from __future__ import annotations

import random

import pytest

from arena.launch.specs.plugins import bots_for

from ..bots.simple import RandomBot, SmartBot
from ..rules import GAME


def referee(bots: list, setup: dict, seed: int) -> tuple[list[float], list]:
    """Play one match: each bot hears every move and event since its last turn."""
    players = len(bots)
    state, events = GAME.start(setup, players, seed)
    pending = [list(events) for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.reseed(f"m{seed}", seat)
        bot.init_game("blocky", seat, players, setup, 60_000, f"m{seed}")
    moves = []
    while not state.is_over():
        seat = state.to_move()
        move = bots[seat].turn(pending[seat], 60_000)
        pending[seat] = []
        assert move in state.legal_moves()
        moves.append(move)
        caused = state.apply(move)
        for other in range(players):
            if other != seat:
                pending[other].append([seat, move])
            pending[other].extend(caused)
    for seat, bot in enumerate(bots):
        bot.observe(pending[seat])  # what the end of the match would tell it
        assert bot.state.render() == state.render(), "every mirror ends on the referee's board"
    return state.scores(), moves


def start_bot(bot: object, board, goal: dict, max_depth: int = 1) -> dict:
    setup = {"max_depth": max_depth, "turns": 1, "board": board, "goals": [goal]}
    bot.init_game("blocky", 0, 1, setup, 1000, "m")
    return setup


def test_bots_are_registered() -> None:
    assert {("random", "blocky"), ("smart", "blocky")} <= {(b.name, b.game) for b in bots_for("blocky")}


def test_random_and_smart_play_a_whole_match_with_smashes() -> None:
    setup = GAME.random_setup(random.Random(5), 3, {"max_depth": 4, "turns": 8})
    bots = [RandomBot(seed=1), SmartBot(seed=2, difficulty=10), RandomBot(seed=3)]
    scores, moves = referee(bots, setup, seed=9)
    assert len(moves) == 24 and len(scores) == 3
    again = [RandomBot(seed=1), SmartBot(seed=2, difficulty=10), RandomBot(seed=3)]
    assert referee(again, setup, seed=9) == (scores, moves)


def test_smart_plays_the_best_move_it_sees() -> None:
    bot = SmartBot(difficulty=1000)  # sees every legal move
    setup = start_bot(bot, [0, 1, 2, 1], {"kind": "blob", "colour": 1})
    # Combining (2-1-1) makes the whole board colour 1, a blob of 4; a paint reaches only 3.
    assert bot.turn([], 1000) == ["combine", []]
    weaker = SmartBot(difficulty=1000)
    start_bot(weaker, [0, 1, 2, 3], {"kind": "blob", "colour": 1})
    move = weaker.turn([], 1000)
    trial = GAME.start({**setup, "board": [0, 1, 2, 3]}, 1, 0)[0]
    trial.apply(move)
    assert move[0] == "paint" and trial.goal_score(0) == 2


def test_smart_passes_when_nothing_beats_the_current_score() -> None:
    bot = SmartBot(difficulty=1000)
    start_bot(bot, [2, 2, 2, 2], {"kind": "perimeter", "colour": 2})
    assert bot.turn([], 1000) == ["pass"]


def test_smart_ignores_penalties() -> None:
    # Only a paint (penalty 1) improves the blob; the smart player still takes it.
    bot = SmartBot(difficulty=1000)
    start_bot(bot, [0, 1, 0, 1], {"kind": "blob", "colour": 3})
    assert bot.turn([], 1000)[0] == "paint"


def test_smart_with_low_difficulty_samples_few_moves() -> None:
    moves = set()
    for seed in range(30):
        bot = SmartBot(seed=seed, difficulty=1)
        bot.reseed("m", 0)
        start_bot(bot, [[0, 1, 2, 3], 1, 2, 3], {"kind": "blob", "colour": 1}, max_depth=2)
        moves.add(str(bot.turn([], 1000)))
    # One sampled move: played when it helps the blob of colour 1, else a pass.
    assert "['pass']" in moves and len(moves) > 1


def test_difficulty_must_be_positive() -> None:
    with pytest.raises(ValueError, match="difficulty"):
        SmartBot(difficulty=0)
    assert SmartBot(difficulty=3, seed=4).difficulty == 3


def test_random_bot_moves_are_legal_and_seeded() -> None:
    picks = set()
    for seed in range(10):
        bot = RandomBot(seed=seed)
        bot.reseed("m", 0)
        setup = start_bot(bot, [[0, 1, 2, 3], 1, 2, 3], {"kind": "blob", "colour": 1}, max_depth=2)
        legal = GAME.start(setup, 1, 0)[0].legal_moves()
        move = bot.turn([], 1000)
        assert move in legal
        picks.add(str(move))
    assert len(picks) > 3
