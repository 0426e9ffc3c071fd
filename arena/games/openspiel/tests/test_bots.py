"""The bots in process: mcts searches every kind of game from its seat's view alone, and repeats itself for a seed."""

from __future__ import annotations

from typing import Any

import pytest

from arena.games import get_game
from arena.games.seats import play_turn

from . import require_openspiel

require_openspiel()

from ..bots import MCTSBot, RandomBot  # noqa: E402
from ..rules import Knowledge, Position  # noqa: E402


def game_of_bots(name: str, bots: list[Any], seed: int) -> tuple[Any, list[Any]]:
    """A whole game in process, each bot sent its own view as the referee sends it; the end and the moves."""
    game = get_game(name)
    state, opening = game.start({}, 2, seed)
    queues: list[list[Any]] = [[], []]

    def deliver(events: list[Any], skip: int | None = None) -> None:
        for seat in (0, 1):
            if seat != skip:
                queues[seat] += [e for e in (state.observe(ev, seat) if game.hidden_information else ev
                                             for ev in events) if e is not None]

    deliver(opening)
    for seat, bot in enumerate(bots):
        bot.reseed("m", seat)
        bot.init_game(name, seat, 2, {}, 60_000, "m")
    moves = []
    while not state.is_over():
        turn = {}
        for seat in state.movers():
            turn[seat] = bots[seat].turn(queues[seat], 60_000)
            queues[seat] = []
        caused = play_turn(state, turn)
        moves.append(turn)
        for seat, move in turn.items():
            deliver([[seat, move]], skip=seat)
        deliver(caused)
    return state, moves


@pytest.mark.parametrize("name,view", [
    ("openspiel:kuhn_poker", Knowledge),  # IS-MCTS
    ("openspiel:goofspiel(num_cards=4)", Knowledge),  # IS-MCTS over the turn-based form
    ("openspiel:liars_dice", Knowledge),  # IS-MCTS keyed by information states
    ("openspiel:tic_tac_toe", Position),  # MCTS on the position
])
def test_mcts_searches_from_its_seats_view_in_every_kind_of_game(name: str, view: type) -> None:
    bots = [MCTSBot(simulations=12), MCTSBot(simulations=12)]
    state, _ = game_of_bots(name, bots, seed=2)
    assert state.is_over()
    for bot in bots:
        assert isinstance(bot.state, view)  # what its seat was sent, never the referee's state
        assert bot.unsearched == 0 and bot.last_simulations == 12


def test_mcts_repeats_itself_for_a_seed() -> None:
    runs = [game_of_bots("openspiel:goofspiel(num_cards=5)", [MCTSBot(simulations=15), RandomBot()], seed=4)[1]
            for _ in range(2)]
    assert runs[0] == runs[1]
