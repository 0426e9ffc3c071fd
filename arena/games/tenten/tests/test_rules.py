"""Rules of tenten (1010!): drops, emptied lines, scoring, offers, rounds and the end."""

from __future__ import annotations

import random

import pytest

from arena.games import IllegalMove, SetupError, get_game

from ..rules import CATALOGUE, GAME, block_data, line_bonus

DOT = [[0, 0]]
H2 = [[0, 0], [1, 0]]
V2 = [[0, 0], [0, 1]]
H3 = [[0, 0], [1, 0], [2, 0]]
H4 = [[0, 0], [1, 0], [2, 0], [3, 0]]
H5 = [[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]]
SQUARE2 = [[0, 0], [1, 0], [0, 1], [1, 1]]
SQUARE3 = [[k, r] for k in range(3) for r in range(3)]


def start(setup: dict, seed: int = 0):
    """A started match and its opening events."""
    return GAME.start(setup, 1, seed)


def offer_of(events: list) -> list:
    """The blocks of the single offer event in events."""
    assert len(events) == 1 and events[0][0] == -1
    return events[0][1]["offer"]


def test_registered_and_single_player() -> None:
    assert get_game("tenten") is GAME
    assert (GAME.min_players, GAME.max_players) == (1, 1)
    with pytest.raises(SetupError, match="players"):
        GAME.validate_setup({}, 2)


def test_seed_example_sixteen_points_then_a_row_gives_thirty() -> None:
    # 3 + 3 + 9 + 1 = 16 points on the board, then a 4-dot block completes row 1.
    state, _ = start({"offer": 1, "sequence": [H3, H3, SQUARE3, DOT, H4]})
    for move in ([0, 1, 1], [0, 8, 1], [0, 1, 3], [0, 5, 8]):
        state.apply(move)
    assert state.scores() == [16.0]
    assert len(state.filled_cells()) == 16
    state.apply([0, 4, 1])
    assert state.scores() == [30.0]
    assert not any(r == 1 for _, r in state.filled_cells()), "row 1 was emptied"
    assert len(state.filled_cells()) == 16 - 6


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_line_bonus_is_five_n_n_plus_one(n: int) -> None:
    assert line_bonus(n) == 5 * n * (n + 1) == sum(10 * i for i in range(1, n + 1))


def almost_full(rows: set[int], columns: set[int], hole: set[tuple[int, int]]) -> list:
    """Cells of the given rows and columns of a 10x10 board, except the hole."""
    span = range(1, 11)
    cells = {(k, r) for r in rows for k in span} | {(k, r) for k in columns for r in span}
    return [list(c) for c in sorted(cells - hole)]


@pytest.mark.parametrize(
    "rows, columns, hole, block, lines",
    [
        ({1}, set(), {(1, 1)}, DOT, 1),
        ({1}, {1}, {(1, 1)}, DOT, 2),  # a row and a column emptied by the same drop
        ({1, 2}, {1}, {(1, 1), (1, 2)}, V2, 3),
        ({1, 2}, {1, 2}, {(1, 1), (2, 1), (1, 2), (2, 2)}, SQUARE2, 4),
    ],
)
def test_drop_emptying_n_lines_scores_dots_plus_bonus(rows, columns, hole, block, lines) -> None:
    filled = almost_full(rows, columns, hole)
    state, _ = start({"sequence": [block], "filled": filled, "offer": 1})
    state.apply([0, 1, 1])
    assert state.scores() == [len(block) + 5 * lines * (lines + 1)]
    assert state.filled_cells() == [], "every emptied line is empty and nothing else was filled"


def test_lines_empty_at_once_and_nothing_falls() -> None:
    filled = [[k, 1] for k in range(2, 11)] + [[5, 2], [7, 3]]
    state, _ = start({"sequence": [DOT], "filled": filled})
    state.apply([0, 1, 1])
    assert state.filled_cells() == [[5, 2], [7, 3]]
    assert state.scores() == [11.0]


def test_anchor_may_lie_off_the_board_when_the_dots_do_not() -> None:
    ring = [[dk, dr] for dk in (-1, 0, 1) for dr in (-1, 0, 1) if (dk, dr) != (0, 0)]
    state, _ = start({"sequence": [[[0, 1], [0, 2]], ring], "offer": 2})
    assert [0, 1, 0] in state.legal_moves()
    with pytest.raises(IllegalMove, match="off the board"):
        state.apply([0, 1, -1])
    state.apply([0, 1, 0])
    assert state.filled_cells() == [[1, 1], [1, 2]]
    # The ring's anchor is no dot: its centre stays empty and need not be free.
    state.apply([0, 3, 2])
    assert [2, 2] in state.filled_cells() and [3, 2] not in state.filled_cells()


def test_drop_on_a_filled_cell_is_illegal_and_changes_nothing() -> None:
    state, _ = start({"sequence": [H2], "filled": [[2, 1]]})
    before = state.to_data()
    with pytest.raises(IllegalMove, match="filled"):
        state.apply([0, 1, 1])
    for bad in ([1, 1, 1], [0, 10, 1], [0, 1], [0, 1, True], "0 1 1"):
        with pytest.raises(IllegalMove):
            state.apply(bad)
    assert state.to_data() == before


def test_offer_order_and_removal_of_dropped_blocks() -> None:
    state, events = start({"sequence": [DOT, H2, V2, H3]})
    assert offer_of(events) == [DOT, H2, V2]
    assert state.apply([1, 1, 1]) == []  # H2 dropped: the offer is now [DOT, V2]
    assert [block_data(b) for b in state.offer] == [DOT, V2]
    state.apply([1, 5, 5])  # index 1 is now V2
    assert state.filled_cells() == [[1, 1], [2, 1], [5, 5], [5, 6]]
    with pytest.raises(IllegalMove, match="not on offer"):
        state.apply([1, 8, 8])


def test_next_round_is_offered_when_the_last_block_is_dropped() -> None:
    state, _ = start({"sequence": [DOT, DOT, DOT, H2, V2, H3]})
    assert state.round == 1
    assert state.apply([0, 1, 1]) == [] and state.apply([0, 3, 3]) == []
    events = state.apply([0, 5, 5])
    assert offer_of(events) == [H2, V2, H3]
    assert state.round == 2 and len(state.offer) == 3


def test_used_up_sequence_ends_the_game_after_a_partial_round() -> None:
    state, _ = start({"sequence": [DOT, DOT, DOT, H2]})
    for k in (1, 3, 5):
        state.apply([0, k, 1])
    assert [block_data(b) for b in state.offer] == [H2], "the last round offers what is left"
    assert state.apply([0, 1, 5]) == []
    assert state.is_over() and state.to_move() is None and state.legal_moves() == []
    assert state.scores() == [5.0]
    with pytest.raises(IllegalMove, match="over"):
        state.apply([0, 1, 1])


def test_max_rounds_ends_the_game() -> None:
    state, _ = start({"max_rounds": 2}, seed=3)
    for _ in range(6):
        assert not state.is_over()
        state.apply(state.legal_moves()[0])
    assert state.round == 2 and state.is_over() and state.offer == []


def test_game_ends_when_nothing_on_offer_fits() -> None:
    # Column 3 is filled below row 5 and [1, 5] is filled: no row has five free cells.
    filled = [[3, r] for r in range(1, 5)] + [[1, 5]]
    state, _ = start({"size": 5, "offer": 2, "sequence": [DOT, H5], "filled": filled})
    assert not state.is_over(), "the dot still fits"
    assert all(move[0] == 0 for move in state.legal_moves())
    state.apply([0, 5, 5])
    assert state.is_over() and state.scores() == [1.0]
    alone, _ = start({"size": 4, "sequence": [H5]})
    assert alone.is_over() and alone.to_move() is None


def test_catalogue_has_weights_summing_to_42() -> None:
    assert sum(weight for _, weight in CATALOGUE) == 42
    assert len(CATALOGUE) == 19
    assert len({block for block, _ in CATALOGUE}) == 19
    GAME.validate_setup({"sequence": [block_data(b) for b, _ in CATALOGUE]})


def test_catalogue_draws_follow_the_seed() -> None:
    _, first = start({}, seed=11)
    _, again = start({}, seed=11)
    assert first == again
    catalogue = [block_data(b) for b, _ in CATALOGUE]
    assert all(block in catalogue for block in offer_of(first))
    draws = {tuple(map(tuple, b)) for seed in range(40) for b in offer_of(start({}, seed)[1])}
    assert len(draws) > 10, "different seeds draw different blocks"


def test_apply_event_assigns_the_offer() -> None:
    state, _ = start({}, seed=5)
    state.apply_event({"offer": [H5, DOT]})
    assert [block_data(b) for b in state.offer] == [[[0, 0], [1, 0], [2, 0], [3, 0], [4, 0]], DOT]
    assert state.legal_moves()[0] == [0, 1, 1]
    for bad in ({"offer": []}, {"offer": [DOT] * 4}, {"offer": [[[0, 0], [2, 0]]]}, {"x": 1}, [1]):
        with pytest.raises(IllegalMove):
            state.apply_event(bad)
    small, _ = start({"size": 4})
    small.apply_event({"offer": [H5]})
    assert small.is_over(), "an imposed offer that fits nowhere ends the game"


def test_mirror_fed_with_events_follows_the_referee() -> None:
    rng = random.Random(2)
    setup = GAME.random_setup(rng, 1, {"size": 8, "max_rounds": 4, "density": 0.3})
    referee, events = start(setup, seed=99)
    mirror, _ = start(setup, seed=0)
    while True:
        for _, payload in events:
            mirror.apply_event(payload)
        assert mirror.render() == referee.render()
        if referee.is_over():
            break
        move = rng.choice(referee.legal_moves())
        mirror.apply(move)
        events = referee.apply(move)
    assert mirror.scores() == referee.scores()


@pytest.mark.parametrize(
    "setup, field",
    [
        ({"size": 0}, "size"),
        ({"offer": 11}, "offer"),
        ({"sequence": [[]]}, r"sequence\[0\] is an empty block"),
        ({"sequence": [DOT, [[0, 0], [1, 1]]]}, r"sequence\[1\] is not orthogonally connected"),
        ({"sequence": [[[0, 0], [0, 0]]]}, r"sequence\[0\] has the dot \[0, 0\] twice"),
        ({"sequence": [[[0, "a"]]]}, r"sequence\[0\] has a dot"),
        ({"sequence": []}, "sequence must hold"),
        ({"filled": [[11, 1]]}, r"filled\[0\] = \[11, 1\] is off the 10x10 board"),
        ({"filled": [[k, 2] for k in range(1, 11)]}, "row 2"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"colour": 1}, "unknown setup key 'colour'"),
    ],
)
def test_bad_setups_are_refused_naming_the_field(setup: dict, field: str) -> None:
    with pytest.raises(SetupError, match=field):
        GAME.validate_setup(setup)


def test_random_setup_options_and_completion() -> None:
    options = {"size": 7, "sequence_length": 12, "density": 0.4}
    setup = GAME.random_setup(random.Random(4), 1, options)
    assert setup["size"] == 7 and len(setup["sequence"]) == 12
    assert 10 <= len(setup["filled"]) <= 20
    assert GAME.validate_setup(setup) == setup
    kept = GAME.random_setup(random.Random(4), 1, {"sequence": [DOT], "offer": 1})
    assert kept["sequence"] == [DOT] and kept["offer"] == 1
    assert GAME.random_setup(random.Random(4), 1) == GAME.random_setup(random.Random(4), 1)


def test_render_puts_the_top_row_first_and_shows_offer_and_score() -> None:
    state, _ = start({"size": 4, "sequence": [SQUARE2], "filled": [[1, 4]]})
    lines = state.render().splitlines()
    assert lines[1] == "4 # . . ."
    assert lines[4] == "1 . . . ."
    assert lines[5] == "  1 2 3 4"
    assert "score 0" in lines[0]
    assert lines[-2:] == ["       ##", "       @#"]
    assert state.render() == state.copy().render()


def test_to_setup_and_data_round_trip() -> None:
    state, _ = start({"size": 6, "sequence": [DOT, H2, V2, H3, DOT], "filled": [[6, 6]]})
    for move in ([0, 1, 1], [0, 3, 3], [0, 5, 1]):
        state.apply(move)
    setup = state.to_setup()
    assert setup["sequence"] == [H3, DOT]
    assert setup["filled"] == state.filled_cells()
    fresh, _ = start(setup)
    assert fresh.filled_cells() == state.filled_cells() and fresh.offer == state.offer
    data = state.to_data()
    assert GAME.state_from_data(data).to_data() == data
