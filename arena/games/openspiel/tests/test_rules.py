"""The adapter keeps the arena's contract for OpenSpiel's games of every kind, and shows each seat its own view."""

from __future__ import annotations

import random
import time

import pytest

from arena.games import IllegalMove, UnknownGame, get_game
from arena.games.conformance import check_game

from . import require_openspiel

require_openspiel()

from ..rules import Knowledge, Position  # noqa: E402
from ..worlds import sample_world  # noqa: E402

KINDS = [
    "kuhn_poker",  # imperfect information, chance deals
    "liars_dice",  # no observation: the information state is shown
    "goofspiel(num_cards=4)",  # simultaneous bids, a chance prize deck
    "matrix_rps",  # one-shot
    "connect_four",  # public, no chance
    "backgammon",  # public, dice
    "phantom_ttt",  # a refused move is retried, unseen by the other
]


@pytest.mark.parametrize("spec", KINDS)
def test_the_contract_holds_for_every_kind_of_game(spec: str) -> None:
    report = check_game(get_game(f"openspiel:{spec}"), seeds=3)
    assert report.ok, "\n".join(report.lines())


def test_a_move_is_an_action_or_its_string_and_nothing_else() -> None:
    game = get_game("openspiel:kuhn_poker")
    state, _ = game.start({}, 2, 7)
    assert state.legal_moves() == [0, 1]
    state.copy().apply("Bet")
    for bad in (2, "bet", True, 1.0, None, [1]):
        with pytest.raises(IllegalMove):
            state.check_move(0, bad)
    with pytest.raises(IllegalMove, match="seat 1 does not move now"):
        state.check_move(1, 0)
    state.apply("Pass")
    assert state.steps[-1] == 0 and state.movers() == [1]


def test_chance_is_the_referees_seed() -> None:
    game = get_game("openspiel:kuhn_poker")
    deals = {tuple(game.start({}, 2, seed)[1][0][1]["chance"]) for seed in range(12)}
    assert len(deals) > 3  # the seed decides the deal...
    assert game.start({}, 2, 5)[1] == game.start({}, 2, 5)[1]  # ...and only the seed
    moved = game.start({}, 2, 3)[0]
    assert isinstance(moved, Position)
    rebuilt = game.state_from_data(moved.to_data())
    assert rebuilt.render() == moved.render() and rebuilt.fingerprint() == moved.fingerprint()


def test_each_kuhn_seat_sees_its_own_card_and_never_the_others() -> None:
    game = get_game("openspiel:kuhn_poker")
    for seed in range(6):
        state, opening = game.start({}, 2, seed)
        cards = opening[0][1]["chance"]  # the truth: seat 0's card, then seat 1's
        while True:
            for seat in (0, 1):
                seen = state.observe([-1, {}], seat)
                if seen is not None:
                    assert seen[1]["observation"][0] == str(cards[seat])  # its own card, first
                    assert str(cards[1 - seat]) not in seen[1]["observation"][:1]
            if state.is_over():
                break
            mover = state.to_move()
            assert state.observe([mover, 0], 1 - mover) is None  # another's action: never shown
            state.apply(random.Random(seed).choice(state.legal_moves()))


def test_names_it_cannot_play_are_one_line() -> None:
    said = {
        "openspiel:no_such_game": "OpenSpiel has no game 'no_such_game'",
        "openspiel:goofspiel(bids=3)": "Unknown parameter 'bids'",
        "openspiel:mfg_garnet": "mean_field",
        "openspiel:negotiation": "sampled stochastic",
        "openspiel:crazy_eights": "it has 5 players",
    }
    for name, part in said.items():
        with pytest.raises(UnknownGame) as raised:
            get_game(name)
        assert part in str(raised.value) and "\n" not in str(raised.value)


def test_worlds_drawn_for_a_seat_keep_what_it_saw_and_vary_what_it_did_not() -> None:
    game = get_game("openspiel:kuhn_poker")
    state, opening = game.start({}, 2, 4)
    other, own = opening[0][1]["chance"]  # seat 0's card, seat 1's
    view = Knowledge(game, 1)
    view.apply_event(state.observe(opening[0], 1)[1])
    state.apply(0)  # seat 0 passes: seat 1 sees only that it moves now
    view.apply_event(state.observe([-1, {}], 1)[1])
    rng, deadline = random.Random(1), time.monotonic() + 10
    drawn = set()
    for _ in range(40):
        world = sample_world(game, 1, view.record, rng, deadline)
        assert world is not None and world.current_player() == 1
        assert world.information_state_string(1) == state.state.information_state_string(1)
        drawn.add(world.history()[0])
        assert world.history()[1] == own
    assert drawn == {0, 1, 2} - {own}  # seat 0's card: both it could hold, never seat 1's own
    assert other in drawn


def test_a_person_types_an_action_by_its_number_or_its_name() -> None:
    import io

    from arena.kit.terminal import Terminal

    from ..view import VIEW

    game = get_game("openspiel:kuhn_poker")
    state, opening = game.start({}, 2, 1)
    view = VIEW(game, Terminal(False, io.StringIO()), ["you", "bot"], [0])
    assert view.parse("bet", state) == (1, None) and view.parse("0", state) == (0, None)
    move, reason = view.parse("raise", state)
    assert move is None and "Legal actions: 0 = Pass; 1 = Bet." in reason
    seen = Knowledge(game, 0)
    seen.apply_event(state.observe(opening[0], 0)[1])
    assert view.parse("Pass", seen) == (0, None)  # from what the seat was sent alone
    assert view.announce(1, 1, state, state) == "bot moved."  # another's action in a hidden game: not named
