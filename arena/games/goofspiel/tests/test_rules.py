"""Goofspiel's rules: simultaneous bids, ties discard the prize, the deck hidden from the players."""

from __future__ import annotations

import pytest

from arena.games import IllegalMove, get_game

from ..rules import Round

GAME = get_game("goofspiel")


def start(setup: dict, seed: int = 1) -> tuple[Round, list]:
    state, events = GAME.start(GAME.validate_setup(setup), 2, seed)
    assert isinstance(state, Round)
    return state, events


def test_a_round_is_a_simultaneous_turn_and_the_higher_bid_takes_the_prize() -> None:
    state, events = start({"cards": 3, "deck": [2, 3, 1]})
    assert events == [[-1, {"prize": 2}]] and state.movers() == [0, 1]
    assert state.moves_of(0) == [1, 2, 3] == state.moves_of(1)
    assert state.apply_turn({0: 3, 1: 1}) == [[-1, {"prize": 3}]]
    assert state.points == [2, 0] and state.hands == [[1, 2], [2, 3]]
    state.apply_turn({0: 2, 1: 2})  # equal bids: the prize 3 is discarded
    assert state.points == [2, 0]
    state.apply_turn({0: 1, 1: 3})
    assert state.is_over() and state.points == [2, 1] and state.scores() == [2.0, 1.0] and state.ranks() == [1, 2]
    assert state.movers() == []


def test_bids_are_checked_alone_and_a_bad_turn_changes_nothing() -> None:
    state, _ = start({"cards": 4})
    for bad in (0, 5, "3", 3.0, True, None, [1]):
        with pytest.raises(IllegalMove):
            state.check_move(0, bad)
    state.apply_turn({0: 4, 1: 1})
    with pytest.raises(IllegalMove, match="not in seat 0's hand"):
        state.check_move(0, 4)
    before = state.to_data()
    with pytest.raises(IllegalMove):
        state.apply_turn({0: 4, 1: 2})
    with pytest.raises(IllegalMove):
        state.apply_turn({0: 3})
    assert state.to_data() == before
    with pytest.raises(IllegalMove, match="simultaneous turn"):
        state.apply(3)


def test_the_deck_is_the_seeds_and_no_player_is_sent_it() -> None:
    one, _ = start({"cards": 13}, seed=4)
    again, _ = start({"cards": 13}, seed=4)
    other, _ = start({"cards": 13}, seed=5)
    assert one.to_data() == again.to_data() and one.to_data() != other.to_data()
    setup = GAME.validate_setup({"cards": 5, "deck": [5, 4, 3, 2, 1]})
    assert GAME.observe_setup(setup, 0) == GAME.observe_setup(setup, 1) == {"cards": 5}
    view = GAME.start_view(GAME.observe_setup(setup, 0), 2, 0)
    assert isinstance(view, Round) and view.deck is None and view.prize is None
    view.apply_event({"prize": 5})
    assert view.prize == 5 and view.moves_of(0) == [1, 2, 3, 4, 5]


def test_bad_setups_are_one_line() -> None:
    for setup, words in (({"cards": 0}, "cards"), ({"cards": 3, "deck": [1, 2]}, "deck must hold"),
                         ({"cards": 3, "deck": [1, 1, 2]}, "deck must hold"), ({"prizes": 3}, "unknown setup key")):
        with pytest.raises(Exception, match=words):
            GAME.validate_setup(setup)
