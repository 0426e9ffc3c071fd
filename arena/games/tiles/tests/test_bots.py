"""The tiles reference bots, driven in-process as the referee would drive them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.games import get_game
from arena.launch.specs.plugins import bots_for

from ..bots import GreedyBot, RandomBot
from ..bots.simple import row_fill_after

GAME = get_game("tiles")
SETUPS = Path(__file__).resolve().parents[1] / "setups"


def test_registry_lists_the_simple_bots() -> None:
    assert {("random", "tiles"), ("greedy", "tiles")} <= {(b.name, b.game) for b in bots_for("tiles")}


@pytest.mark.parametrize("bot_class", [RandomBot, GreedyBot])
def test_bots_play_whole_games_with_legal_moves(bot_class: type) -> None:
    for seed in range(30):
        setup = GAME.random_setup(random.Random(seed), 2, {"fill": 0.3})
        referee, _ = GAME.start(setup, 2, seed)
        bots = [bot_class(seed=seed), RandomBot(seed=seed + 1)]
        for seat, bot in enumerate(bots):
            bot.reseed(f"m{seed}", seat)
            bot.init_game("tiles", seat, 2, setup, 10_000, f"m{seed}")
        pending: list[list[list]] = [[], []]
        while not referee.is_over():
            seat = referee.to_move()
            move = bots[seat].turn(pending[seat], 10_000)
            pending[seat] = []
            assert move in referee.legal_moves()
            referee.apply(move)
            pending[1 - seat].append([seat, move])
            assert bots[seat].state.render() == referee.render()


def test_random_bot_spreads_over_the_legal_moves() -> None:
    setup = json.loads((SETUPS / "tiles-midgame.json").read_text())
    seen = set()
    for seed in range(40):
        bot = RandomBot(seed=seed)
        bot.reseed("m", 0)
        bot.init_game("tiles", 0, 2, setup, 1000, "m")
        seen.add(tuple(bot.turn([], 1000)))
    assert seen == {(0, "g"), (0, "b"), (1, "b")}


def test_greedy_fills_a_row_and_breaks_ties_by_the_lowest_plate() -> None:
    # Seat 0: 3 yellow from plate 0 go to the empty row 3 (3 of 4); 1 blue from plate 0
    # fills row 4 (3 + 1); 4 blue from plate 1 fill row 3. Both fill a row: plate 0 first.
    setup = json.loads((SETUPS / "tiles-midgame.json").read_text())
    bot = GreedyBot()
    bot.init_game("tiles", 0, 2, setup, 1000, "m")
    state = bot.state
    assert [row_fill_after(state, m) for m in state.legal_moves()] == [3, 4, 4]
    assert bot.turn([], 1000) == [0, "b"]


def test_greedy_prefers_the_fullest_row_when_none_can_be_filled() -> None:
    # Row length 6. Plate 0: 1 yellow -> row 0 (2 + 1 = 3); plate 1: 2 blue -> row 1
    # (2 + 2 = 4); plate 0's 3 blue also go to row 1 (2 + 3 = 5): the fullest.
    setup = {"pot": "gbbb" + "bbgg", "plates": 2, "plate_size": 4, "rows": 2, "row_len": 6,
             "boards": [[[2, 0], [0, 2]], [[0, 0], [0, 0]]], "to_move": 0}
    bot = GreedyBot()
    bot.init_game("tiles", 0, 2, setup, 1000, "m")
    assert [row_fill_after(bot.state, m) for m in bot.state.legal_moves()] == [3, 5, 4, 4]
    assert bot.turn([], 1000) == [0, "b"]


def test_greedy_as_second_player_sees_the_first_players_move() -> None:
    setup = json.loads((SETUPS / "tiles-midgame.json").read_text())
    bot = GreedyBot()
    bot.init_game("tiles", 1, 2, setup, 1000, "m")
    move = bot.turn([[0, [1, "b"]]], 1000)
    # Seat 0 took plate 1's 4 blue into its row 3; plate 1 now holds g, b, b, g from the pot.
    # Seat 1: 3 yellow of plate 0 fit nowhere; 1 blue makes 3; 2 yellow of plate 1 fill row
    # 1 and 2 blue of plate 1 fill row 2: the yellow comes first.
    assert bot.state.boards[0][3] == [0, 4]
    assert move == [1, "g"]
    assert bot.state.boards[1][1] == [4, 0]
