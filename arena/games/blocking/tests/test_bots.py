"""The seed's three Blocking strategies, driven in process as the referee would."""

from __future__ import annotations

from ..bots.simple import MaxBlockBot, RandomBot, SequentialBot


def first_move(bot_class: type, setup: dict, seed: int = 0) -> list[int]:
    bot = bot_class(seed=seed)
    bot.reseed("m", 0)
    bot.init_game("blocking", 0, 2, setup, 1000, "m")
    return bot.turn([], 1000)


def test_sequential_takes_first_free_cell_row_major() -> None:
    assert first_move(SequentialBot, {"rows": 3, "cols": 3, "blocked": [[0, 0], [0, 1]]}) == [0, 2]


def test_maxblock_takes_the_cell_blocking_most_free_cells() -> None:
    assert first_move(MaxBlockBot, {"rows": 3, "cols": 3, "blocked": []}) == [1, 1]
    # On 1 x 5 every inner cell blocks 3; the first in row-major order wins the tie.
    assert first_move(MaxBlockBot, {"rows": 1, "cols": 5, "blocked": []}) == [0, 1]


def test_random_is_seeded_and_legal() -> None:
    setup = {"rows": 6, "cols": 6, "blocked": [[0, 0]]}
    moves = {tuple(first_move(RandomBot, setup, seed)) for seed in range(20)}
    assert len(moves) > 3 and (0, 0) not in moves
    assert first_move(RandomBot, setup, 3) == first_move(RandomBot, setup, 3)


def test_bots_follow_the_opponents_moves() -> None:
    bot = SequentialBot()
    bot.init_game("blocking", 1, 2, {"rows": 1, "cols": 7, "blocked": []}, 1000, "m")
    assert bot.turn([[0, [0, 0]]], 1000) == [0, 2]
    assert bot.turn([[0, [0, 4]]], 1000) == [0, 6]
    assert bot.state.is_over()
