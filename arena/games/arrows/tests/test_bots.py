"""The arrows reference bots, driven in-process as the referee would drive them."""

from __future__ import annotations

import random

import pytest

from arena.games import get_game
from arena.launch.specs.plugins import bots_for

from ..bots import GreedyBot, RandomBot
from ..bots.simple import next_target_room

GAME = get_game("arrows")


def test_registry_lists_the_simple_bots() -> None:
    assert {("random", "arrows"), ("greedy", "arrows")} <= {(b.name, b.game) for b in bots_for("arrows")}


@pytest.mark.parametrize("bot_class", [RandomBot, GreedyBot])
def test_bots_play_whole_games_with_legal_moves(bot_class: type) -> None:
    for seed in range(30):
        setup = GAME.random_setup(random.Random(seed), 2)
        referee, _ = GAME.start(setup, 2, seed)
        bots = [bot_class(seed=seed), RandomBot(seed=seed + 1)]
        for seat, bot in enumerate(bots):
            bot.reseed(f"m{seed}", seat)
            bot.init_game("arrows", seat, 2, setup, 10_000, f"m{seed}")
        pending: list[list[list]] = [[], []]  # events each seat has not seen yet
        while not referee.is_over():
            seat = referee.to_move()
            move = bots[seat].turn(pending[seat], 10_000)
            pending[seat] = []
            assert move in referee.legal_moves()
            referee.apply(move)
            pending[1 - seat].append([seat, move])
        assert referee.end_reason() == "blocked"


def test_random_bot_is_deterministic_for_a_seed() -> None:
    setup = GAME.validate_setup({"cols": 8, "rows": 8, "heads": [[4, 4], [1, 8]], "dirs": [2, 0]})

    def first_move(seed: int) -> int:
        bot = RandomBot(seed=seed)
        bot.reseed("m", 0)
        bot.init_game("arrows", 0, 2, setup, 1000, "m")
        return bot.turn([], 1000)

    assert first_move(5) == first_move(5)
    assert {first_move(s) for s in range(40)} == set(range(8))


def test_greedy_steers_away_from_walls_and_its_own_chain() -> None:
    # Seat 0's target is (2,1) in the top row. Directions N, NE and NW would point off the
    # board; W points at its own old head (1,1); the best room is around the row below.
    setup = {"cols": 6, "rows": 6, "heads": [[1, 1], [6, 6]], "dirs": [2, 0]}
    bot = GreedyBot()
    bot.init_game("arrows", 0, 2, GAME.validate_setup(setup), 1000, "m")
    state = bot.state
    rooms = [next_target_room(state, d) for d in range(8)]
    assert rooms[0] == rooms[1] == rooms[7] == -1  # off the board
    assert rooms[6] == -1  # (1,1) is occupied
    assert rooms[2] == 4  # (3,1): neighbours (2,1) new piece, (4,1), (2,2), (3,2), (4,2)
    assert rooms[4] == 6  # (2,2): next to (1,1) and the new piece on (2,1)
    assert rooms[5] == 3  # (1,2): on the edge
    assert rooms[3] == 7  # (3,2): only the new piece is taken around it
    assert bot.turn([], 1000) == 3


def test_greedy_avoids_the_cell_the_opponent_fills_next() -> None:
    # Seat 0 puts its piece on (4,2). SE would aim at (5,3), the roomiest cell (4 free
    # neighbours) but seat 1's target, which seat 1 fills first. E, (5,2), and S, (4,3), both
    # leave 3: the tie goes to the lower direction, E.
    setup = GAME.validate_setup({
        "cols": 6, "rows": 6, "heads": [[4, 1], [6, 4]], "dirs": [4, 7],
        "blocked": [[3, 1], [5, 1], [6, 1], [3, 2], [6, 2], [3, 3], [3, 4], [4, 4]],
    })
    bot = GreedyBot()
    bot.init_game("arrows", 0, 2, setup, 1000, "m")
    rooms = [next_target_room(bot.state, d) for d in range(8)]
    assert rooms == [-1, -1, 3, -1, 3, -1, -1, -1]
    assert bot.turn([], 1000) == 2


def test_greedy_answers_as_second_player_after_the_opponents_move() -> None:
    setup = GAME.validate_setup({"cols": 6, "rows": 6, "heads": [[2, 3], [5, 5]], "dirs": [2, 7]})
    bot = GreedyBot()
    bot.init_game("arrows", 1, 2, setup, 1000, "m")
    move = bot.turn([[0, 2]], 1000)  # seat 0 went E onto (3,3)
    assert move in range(8)
    assert bot.state.cell(bot.state.heads[1]) == [4, 4] and bot.state.dirs[1] == move
