"""Blocking rules (RULES.md), validation, the seed's example game and its rendering."""

from __future__ import annotations

import random

import pytest

from arena.games import IllegalMove, SetupError, get_game

from ..rules import BlockingState

GAME = get_game("blocking")

# The seed's example (5 x 6, human first against the random strategy) and its pictures.
SEED_MOVES = [(1, 1), (4, 5), (1, 4), (4, 0), (4, 2)]
SEED_PICTURES = [
    "XXX---\nXXX---\nXXX---\n------\n------",
    "XXX---\nXXX---\nXXX---\n----XX\n----XX",
    "XXXXXX\nXXXXXX\nXXXXXX\n----XX\n----XX",
    "XXXXXX\nXXXXXX\nXXXXXX\nXX--XX\nXX--XX",
    "XXXXXX\nXXXXXX\nXXXXXX\nXXXXXX\nXXXXXX",
]


def start(**setup: object) -> BlockingState:
    state, events = GAME.start(setup, 2, 0)
    assert events == []
    assert isinstance(state, BlockingState)
    return state


def test_seed_example_game() -> None:
    state = start(rows=5, cols=6)
    assert state.render() == "\n".join(["------"] * 5)
    for move, picture in zip(SEED_MOVES, SEED_PICTURES):
        assert not state.is_over()
        state.apply(list(move))
        assert state.render() == picture
    assert state.is_over() and state.to_move() is None
    assert state.end_reason() == "blocked"
    assert state.scores() == [1.0, 0.0] and state.ranks() == [1, 2]


def test_move_blocks_cell_and_neighbours_including_diagonals() -> None:
    state = start(rows=3, cols=3)
    state.apply([0, 0])
    assert state.render() == "XX-\nXX-\n---"
    assert state.to_move() == 1
    assert state.legal_moves() == [[0, 2], [1, 2], [2, 0], [2, 1], [2, 2]]


def test_player_without_free_cell_loses() -> None:
    state = start(rows=3, cols=3)
    state.apply([1, 1])  # the centre blocks everything
    assert state.is_over() and state.scores() == [1.0, 0.0]
    state = start(rows=1, cols=4)
    state.apply([0, 0])
    state.apply([0, 3])
    assert state.is_over() and state.scores() == [0.0, 1.0]


@pytest.mark.parametrize("move", [[5, 0], [0, 6], [-1, 0], [0], [0, 0, 0], "a1", [0.0, 1], [True, 0], None])
def test_illegal_moves(move: object) -> None:
    state = start(rows=5, cols=6)
    with pytest.raises(IllegalMove):
        state.apply(move)


def test_blocked_cell_is_illegal_and_state_unchanged() -> None:
    state = start(rows=5, cols=6, blocked=[[2, 2]])
    before = state.to_data()
    with pytest.raises(IllegalMove, match="already blocked"):
        state.apply([2, 2])
    assert state.to_data() == before


@pytest.mark.parametrize(
    ("setup", "fragment"),
    [
        ({"rows": 0, "cols": 5}, "rows must be in 1..50"),
        ({"rows": 5, "cols": 51}, "cols must be in 1..50"),
        ({"rows": "5", "cols": 5}, "rows must be an integer"),
        ({"rows": 5.0, "cols": 5}, "rows must be an integer"),
        ({"cols": 5}, "missing rows"),
        ({"rows": 5, "cols": 5, "blocked": [[5, 0]]}, r"blocked\[0\] = \[5, 0\] is off the 5x5 board"),
        ({"rows": 5, "cols": 5, "blocked": [[1, 2, 3]]}, r"blocked\[0\] must be a pair"),
        ({"rows": 5, "cols": 5, "blocked": "none"}, "blocked must be a list"),
        ({"rows": 5, "cols": 5, "colour": 1}, "unknown setup key 'colour'"),
    ],
)
def test_setup_validation_names_the_field(setup: dict, fragment: str) -> None:
    with pytest.raises(SetupError, match=fragment):
        GAME.validate_setup(setup, 2)


def test_player_count_is_checked() -> None:
    with pytest.raises(SetupError, match="players must be 2"):
        GAME.validate_setup({"rows": 3, "cols": 3}, 3)


def test_random_setup_is_seeded_and_keeps_given_keys() -> None:
    a = GAME.random_setup(random.Random(7), 2, {"cols": 9, "density": 0.2})
    b = GAME.random_setup(random.Random(7), 2, {"cols": 9, "density": 0.2})
    assert a == b and a["cols"] == 9 and "density" not in a
    assert len(a["blocked"]) == int(a["rows"] * 9 * 0.2)
    assert GAME.random_setup(random.Random(1), 2, {"rows": 4, "cols": 4}) == {"rows": 4, "cols": 4, "blocked": []}


def test_to_setup_restarts_the_same_position() -> None:
    state = start(rows=4, cols=7)
    state.apply([0, 0])
    again, _ = GAME.start(state.to_setup(), 2, 0)
    assert again.render() == state.render() and again.to_move() == 1


def test_forfeit_gives_the_other_seat_the_win() -> None:
    state = start(rows=4, cols=4)
    assert state.forfeit_scores(0) == [0.0, 1.0]
    assert state.forfeit_scores(1) == [1.0, 0.0]


def test_an_illegal_move_is_quoted_in_one_short_line() -> None:
    move = [[0] * 100_000, 1]  # what a bot sends is quoted cut, not whole (bench/fuzz/wire_moves.py)
    with pytest.raises(IllegalMove) as caught:
        start(rows=3, cols=3).apply(move)
    assert len(str(caught.value)) < 250 and "(300005 characters)" in str(caught.value)
    assert caught.value.move is move
