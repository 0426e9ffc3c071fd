"""The game conformance test: every registered game is checked just by being registered."""

from __future__ import annotations

import random

import pytest

from arena.games import REFEREE, IllegalMove, game_names, get_game, ranks_from_scores

GAMES_PER_ENGINE = 200
MAX_PLIES = 20_000
GARBAGE_MOVES = [None, "garbage", -1, [], {"x": 1}, [10**9, 10**9], 3.5, True]


def play_checked(name: str, seed: int) -> list:
    """Play one seeded random game of `name`, checking the contract at every ply."""
    game = get_game(name)
    rng = random.Random(seed)
    players = rng.randint(game.min_players, game.max_players)
    setup = game.random_setup(rng, players)
    assert game.validate_setup(setup, players) == setup, "a generated setup must validate to itself"
    state, events = game.start(setup, players, seed)
    # A bot's mirror: started without the seed, told the chance outcomes through events.
    mirror, _ = game.start(setup, players, 0)
    for actor, payload in events:
        assert actor == REFEREE
        mirror.apply_event(payload)
    transcript = [state.render()]
    for ply in range(MAX_PLIES):
        assert state.render() == mirror.render(), f"mirror diverged at ply {ply}"
        data = state.to_data()
        assert game.state_from_data(data).to_data() == data, "to_data/state_from_data must round-trip"
        if state.is_over():
            break
        mover = state.to_move()
        assert mover is not None and 0 <= mover < players
        legal = state.legal_moves()
        assert legal, "a game that is not over must offer a legal move"
        assert legal == state.legal_moves(), "legal_moves must be deterministic"
        for garbage in GARBAGE_MOVES:
            with pytest.raises(IllegalMove):
                state.apply(garbage)
            assert state.to_data() == data, f"a refused move {garbage!r} must not change the state"
        move = rng.choice(legal)
        copy = state.copy()
        events = state.apply(move)
        assert copy.to_data() == data, "copy must be independent"
        mirror.apply(move)
        for event in events:
            assert isinstance(event, list) and len(event) == 2 and event[0] == REFEREE
            mirror.apply_event(event[1])
        transcript.append((mover, move, events, state.render()))
    else:
        pytest.fail(f"{name}: game did not end within {MAX_PLIES} plies")
    assert state.to_move() is None
    scores = state.scores()
    assert len(scores) == players
    assert state.ranks() == ranks_from_scores(scores)
    assert state.end_reason() in ("normal", "blocked", "resigned")
    transcript.append((scores, state.end_reason()))
    return transcript


@pytest.mark.parametrize("name", game_names())
def test_seeded_random_games_keep_the_contract(name: str) -> None:
    for seed in range(GAMES_PER_ENGINE):
        play_checked(name, seed)


@pytest.mark.parametrize("name", game_names())
def test_games_are_deterministic_for_a_seed(name: str) -> None:
    for seed in (1, 2, 3):
        assert play_checked(name, seed) == play_checked(name, seed)


@pytest.mark.parametrize("name", game_names())
def test_game_metadata(name: str) -> None:
    game = get_game(name)
    assert game.name == name
    assert isinstance(game.version, int) and game.version >= 1
    assert 1 <= game.min_players <= game.max_players <= 4
