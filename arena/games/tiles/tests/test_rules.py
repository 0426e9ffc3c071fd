"""Tiles: every rule of RULES.md and the seed's text format."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from arena.games import IllegalMove, SetupError, get_game

from ..rules import TilesState, distinct_moves, fold_plates, setup_to_text

GAME = get_game("tiles")
SETUPS = Path(__file__).resolve().parents[1] / "setups"

# The position of the seed's Figure 1 as its text describes it: two plates of 2 yellow and
# 2 blue; the pot then yields g, b, g, b, b, b, g, g, ...; Femke (seat 0) has a yellow row
# that cannot take 2 more, a fuller and two emptier rows that can, and a row of 3 blue.
SEED_TEXT = """ggbbggbbgbgbbbggbgbgbbgg
2 4
5 4
3 0
1 0
0 0
0 0
0 3
2 0
1 0
0 2
0 2
0 3
0
"""


def start(**setup) -> TilesState:
    """A started state; boards default to one empty board per seat."""
    setup.setdefault("plates", 2)
    setup.setdefault("plate_size", 4)
    setup.setdefault("rows", 3)
    setup.setdefault("row_len", 4)
    setup.setdefault("boards", [[[0, 0]] * setup["rows"]] * 2)
    state, events = GAME.start(setup, 2, 0)
    assert events == []
    return state


def seed_state() -> TilesState:
    state, _ = GAME.start(GAME.parse_setup_file(SEED_TEXT.encode(), "spel1.txt"), 2, 0)
    return state


def test_seed_file_is_read_and_plates_are_filled_from_the_front_of_the_pot() -> None:
    state = seed_state()
    assert state.plates == [[2, 2], [2, 2]]
    assert state.pot == "gbgbbbggbgbgbbgg"
    assert state.boards[0] == [[3, 0], [1, 0], [0, 0], [0, 0], [0, 3]]
    assert state.to_move() == 0
    assert (SETUPS / "tiles-opening.txt").read_text() == SEED_TEXT


def test_seed_example_row_choice_refill_and_blocked_blue() -> None:
    state = seed_state()
    state.apply([0, "g"])
    # Row 0 (3 of 4) cannot take 2; rows 2 and 3 can but are emptier than row 1; row 4 is blue.
    assert state.boards[0] == [[3, 0], [3, 0], [0, 0], [0, 0], [0, 3]]
    # Plate 0 is refilled with the next two tiles of the pot: g and b.
    assert state.plates[0] == [1, 3] and state.pot == "gbbbggbgbgbbgg"
    # Lieke cannot take the three blue tiles of plate 0: none of her rows has room for them.
    assert state.to_move() == 1
    assert [0, "b"] not in state.legal_moves()
    with pytest.raises(IllegalMove, match="no row takes 3 blue"):
        state.apply([0, "b"])
    assert state.legal_moves() == [[0, "g"], [1, "g"], [1, "b"]]


def test_femke_could_also_take_the_blue_tiles() -> None:
    state = seed_state()
    assert state.legal_moves() == [[0, "g"], [0, "b"], [1, "g"], [1, "b"]]
    assert distinct_moves(state) == [[0, "g"], [0, "b"]]
    state.apply([0, "b"])  # row 4 (3 blue) has no room for 2; the empty rows tie: lowest
    assert state.boards[0][2] == [0, 2] and state.boards[0][3] == [0, 0]


def test_fullest_fitting_row_wins_and_ties_go_to_the_lowest_row() -> None:
    boards = [[[0, 0], [1, 0], [0, 3], [3, 0], [3, 0], [5, 0]], [[0, 0]] * 6]
    state = start(pot="gggg", plate_size=2, rows=6, row_len=6, boards=boards)
    # 2 yellow: rows 0 (empty), 1 (1), 3 (3) and 4 (3) fit, row 5 (5) has no room and
    # row 2 is blue; rows 3 and 4 are the fullest, and 3 is the lower.
    state.apply([0, "g"])
    assert state.boards[0] == [[0, 0], [1, 0], [0, 3], [5, 0], [3, 0], [5, 0]]
    # A tie between a row further down and the lowest-numbered one: the lowest wins.
    state = start(pot="bb", plates=1, plate_size=2, rows=3, row_len=5,
                  boards=[[[0, 0], [0, 3], [0, 3]], [[0, 0]] * 3])
    state.apply([0, "b"])
    assert state.boards[0] == [[0, 0], [0, 5], [0, 3]]
    # 4 yellow: only the empty row 0 and row 1 (1 + 4 = 5) fit; row 1 is fuller.
    state = start(pot="gggg", plates=1, rows=2, row_len=6, boards=[[[0, 0], [1, 0]], [[0, 0]] * 2])
    state.apply([0, "g"])
    assert state.boards[0] == [[0, 0], [5, 0]]


def test_a_row_of_the_other_colour_never_takes_tiles() -> None:
    state = start(pot="bbgg", plate_size=2, plates=2, rows=2, row_len=4,
                  boards=[[[2, 0], [0, 0]], [[0, 0], [0, 0]]])
    state.apply([0, "b"])
    assert state.boards[0] == [[2, 0], [0, 2]]


def test_refill_takes_as_many_tiles_as_the_pot_still_has() -> None:
    state = start(pot="ggbb" + "bbbb" + "g", rows=3, row_len=4)
    state.apply([0, "g"])  # takes 2, only one tile left in the pot
    assert state.plates == [[1, 2], [0, 4]] and state.pot == ""
    state.apply([0, "b"])
    assert state.plates == [[1, 0], [0, 4]]


def test_game_ends_when_a_player_has_filled_all_rows() -> None:
    state = start(pot="gggg" + "bbbb" + "gggg", rows=2, row_len=4,
                  boards=[[[4, 0], [0, 0]], [[0, 0], [0, 0]]])
    assert not state.is_over()
    state.apply([0, "g"])
    assert state.boards[0] == [[4, 0], [4, 0]]
    assert state.is_over() and state.to_move() is None and state.legal_moves() == []
    assert state.end_reason() == "normal"
    assert state.scores() == [2.0, -2.0] and state.ranks() == [1, 2]


def test_all_rows_full_from_the_start_ends_even_if_the_mover_could_play() -> None:
    state = start(pot="gg", rows=1, row_len=2, to_move=0, boards=[[[0, 0]], [[2, 0]]])
    assert state.is_over() and state.end_reason() == "normal"
    assert state.scores() == [-1.0, 1.0]


def test_no_legal_move_ends_the_game_as_blocked() -> None:
    # Seat 1 holds blue rows with no room for 3 blue and no empty row; the plate is all blue.
    state = start(pot="bbb", plates=1, plate_size=3, rows=2, row_len=4, to_move=1,
                  boards=[[[0, 0], [0, 0]], [[0, 2], [4, 0]]])
    assert state.is_over() and state.end_reason() == "blocked"
    assert state.scores() == [-1.0, 1.0]


def test_empty_pot_and_empty_plates_end_the_game() -> None:
    state = start(pot="gg", plates=1, plate_size=2, rows=2, row_len=4)
    state.apply([0, "g"])
    assert state.plates == [[0, 0]] and state.pot == ""
    assert state.is_over() and state.end_reason() == "blocked"
    assert state.scores() == [0.0, 0.0] and state.ranks() == [1, 1]


def test_score_is_own_full_rows_minus_the_opponents() -> None:
    state = start(pot="g", plates=1, plate_size=1, rows=4, row_len=2, to_move=1,
                  boards=[[[2, 0], [0, 2], [2, 0], [1, 0]], [[0, 2], [1, 0], [0, 0], [0, 0]]])
    assert state.scores() == [2.0, -2.0]


def test_draw() -> None:
    state = start(pot="gb", plates=1, plate_size=2, rows=2, row_len=2,
                  boards=[[[1, 0], [0, 0]], [[0, 1], [0, 0]]])
    state.apply([0, "g"])  # seat 0 fills a row
    state.apply([0, "b"])  # seat 1 fills a row; the pot and plates are empty
    assert state.is_over() and state.scores() == [0.0, 0.0] and state.ranks() == [1, 1]


@pytest.mark.parametrize("move", [None, [0], [0, "y"], [5, "g"], [-1, "g"], [True, "g"],
                                  [0.0, "g"], (0, "G"), "0g", [0, "g", 1], [1, "g"]])
def test_malformed_and_illegal_moves_are_refused(move: object) -> None:
    state = start(pot="ggbb", plates=2, plate_size=2)  # plate 1 holds b, b
    before = state.to_data()
    with pytest.raises(IllegalMove):
        state.apply(move)
    assert state.to_data() == before


def test_distinct_moves_keep_the_lowest_plate_of_each_class() -> None:
    # The seed's footnote: plate 0 = 2 g + 2 b, plate 1 = 2 g + 1 b (the pot ran out).
    state = start(pot="ggbbggb", plates=2, plate_size=4, rows=3, row_len=4)
    assert state.plates == [[2, 2], [2, 1]]
    assert sorted(distinct_moves(state)) == [[0, "b"], [0, "g"], [1, "b"]]
    assert len(state.legal_moves()) == 4


def test_round_trips_and_to_setup_with_half_empty_plates() -> None:
    state = start(pot="ggbbbgg", plates=2, plate_size=4, rows=3, row_len=4)
    assert state.plates == [[2, 2], [2, 1]] and state.pot == ""
    state.apply([0, "b"])  # plate 0 keeps 2 g, nothing to refill
    setup = state.to_setup()
    assert setup["plate_tiles"] == [[2, 0], [2, 1]] and setup["pot"] == ""
    again, _ = GAME.start(setup, 2, 0)
    assert again.render() == state.render()
    data = state.to_data()
    assert GAME.state_from_data(data).to_data() == data
    # A position whose plates a pot can produce is written with the pot alone.
    state = start(pot="ggbbbbggbg", plates=2, plate_size=4)
    state.apply([1, "g"])
    setup = state.to_setup()
    assert "plate_tiles" not in setup and setup["pot"] == "ggbbgbbb"
    assert GAME.start(setup, 2, 0)[0].plates == state.plates
    assert fold_plates([[1, 0], [2, 0]], "", 2) is None


def test_midgame_json_in_configs_is_valid() -> None:
    setup = json.loads((SETUPS / "tiles-midgame.json").read_text())
    assert GAME.validate_setup(setup) == setup
    state, _ = GAME.start(setup, 2, 0)
    assert not state.is_over() and state.full_rows(0) == 2


def test_text_writer_round_trips() -> None:
    for seed in range(20):
        setup = GAME.random_setup(random.Random(seed), 2, {"fill": 0.5})
        assert GAME.parse_setup_file(setup_to_text(setup).encode(), "s.tiles") == setup


@pytest.mark.parametrize(
    "line, replacement, words",
    [
        (1, "ggxb", "line 1: the pot: letter 3 is 'x'"),
        (1, "gg bb", "line 1"),
        (2, "6 4", "line 2: M (plates) must be in 1..5, got 6"),
        (2, "2 0", "line 2: N (plate_size) must be in 1..5, got 0"),
        (3, "11 4", "line 3: K (rows) must be in 1..10, got 11"),
        (3, "5 7", "line 3: L (row_len) must be in 1..6, got 7"),
        (3, "5", "line 3: expected K L"),
        (4, "2 1", "line 4: row 0 of player 0 holds both colours"),
        (12, "1 3", "line 12: row 3 of player 1 holds both colours"),
        (5, "5 0", "line 5: row 1 of player 0 holds 5 tiles, more than L = 4"),
        (6, "-1 0", "line 6: row 2 of player 0 has a negative count"),
        (7, "a b", "line 7: expected row 3 of player 0"),
        (14, "2", "line 14: the player to move must be 0 or 1, got 2"),
    ],
)
def test_malformed_text_names_the_line(line: int, replacement: str, words: str) -> None:
    lines = SEED_TEXT.splitlines()
    lines[line - 1] = replacement
    with pytest.raises(SetupError) as info:
        GAME.parse_setup_file("\n".join(lines).encode(), "spel.txt")
    assert words in str(info.value)


@pytest.mark.parametrize(
    "keep, words",
    [(1, "expected M N"), (3, "expected row 0 of player 0"),
     (8, "expected row 0 of player 1 (yellow blue) after line 8"), (13, "expected the player to move after line 13")],
)
def test_missing_lines(keep: int, words: str) -> None:
    text = "\n".join(SEED_TEXT.splitlines()[:keep]) + "\n"
    with pytest.raises(SetupError, match="missing line") as info:
        GAME.parse_setup_file(text.encode(), "spel.txt")
    assert words in str(info.value)


def test_extra_content_after_the_last_line() -> None:
    with pytest.raises(SetupError, match="line 15: unexpected content"):
        GAME.parse_setup_file((SEED_TEXT + "0\n").encode(), "spel.txt")


def test_other_suffixes_are_not_tile_files() -> None:
    assert GAME.parse_setup_file(SEED_TEXT.encode(), "spel.dat") is None


@pytest.mark.parametrize(
    "change, words",
    [
        ({"pot": "ggq"}, "letter 3 is 'q'"),
        ({"plates": 0}, "plates must be in 1..5"),
        ({"plate_size": 6}, "plate_size must be in 1..5"),
        ({"rows": 11}, "rows must be in 1..10"),
        ({"row_len": 7}, "row_len must be in 1..6"),
        ({"boards": [[[1, 1]], [[0, 0]]], "rows": 1}, "row 0 of player 0 holds both colours"),
        ({"boards": [[[0, 0]], [[0, 5]]], "rows": 1}, "row 0 of player 1 holds 5 tiles"),
        ({"boards": [[[0, 0]]], "rows": 1}, "boards must hold 2"),
        ({"boards": [[[0, 0]], [[0, 0]]]}, "boards[0] must hold 3 rows"),
        ({"to_move": 2}, "to_move"),
        ({"plate_tiles": [[5, 0], [0, 0]]}, "plate_tiles[0]"),
        ({"colour": 1}, "unknown setup key"),
    ],
)
def test_setup_validation_names_the_field(change: dict, words: str) -> None:
    setup = {"pot": "gb", "plates": 2, "plate_size": 4, "rows": 3, "row_len": 4,
             "boards": [[[0, 0]] * 3] * 2, **change}
    with pytest.raises(SetupError) as info:
        GAME.validate_setup(setup)
    assert words in str(info.value)


def test_random_setup_completes_a_partial_setup_deterministically() -> None:
    options = {"min_rows": 4, "max_rows": 4, "fill": 1.0, "min_pot": 5, "max_pot": 5}
    a = GAME.random_setup(random.Random(7), 2, {**options, "plates": 3})
    assert a == GAME.random_setup(random.Random(7), 2, {**options, "plates": 3})
    assert a["plates"] == 3 and a["rows"] == 4 and len(a["pot"]) == 5
    assert not any(key in a for key in options)
    assert all(y + b > 0 for board in a["boards"] for y, b in board if a["row_len"] > 1)
    assert GAME.validate_setup(a) == a
    given = GAME.random_setup(random.Random(1), 2, {"boards": [[[1, 0]], [[0, 0]]], "row_len": 3})
    assert given["rows"] == 1 and given["boards"] == [[[1, 0]], [[0, 0]]]


def test_render_is_deterministic_and_shows_everything() -> None:
    state = seed_state()
    text = state.render()
    assert text == seed_state().render()
    assert "pot: gbgbbbggbgbgbbgg (16 left)" in text
    assert "plates: 0:[ggbb]  1:[ggbb]" in text
    assert "  0: ggg." in text and "  4: bbb." in text
    assert GAME.render_move([1, "b"]) == "blue (b) from plate 1"


def default_setup(seed: int) -> dict:
    """The setup a match or tournament with no setup of its own plays for this seed."""
    return GAME.random_setup(random.Random(f"setup:{seed}"), 2, {})


def test_every_default_setup_has_a_legal_first_move_and_room_to_play() -> None:
    for seed in range(500):
        setup = default_setup(seed)
        assert GAME.new_state(setup).legal_moves(), (seed, setup)
        # a plate of one colour fits an empty row, and the pot fills the plates and at least one board
        assert setup["plate_size"] < setup["row_len"], (seed, setup)
        assert len(setup["pot"]) >= setup["plates"] * setup["plate_size"] + setup["rows"] * setup["row_len"]


def test_a_drawn_position_has_a_legal_first_move_even_with_every_row_begun() -> None:
    for seed in range(200):
        setup = GAME.random_setup(random.Random(seed), 2, {"fill": 1.0, "max_pot": 8})
        assert GAME.new_state(setup).legal_moves(), (seed, setup)


def test_default_setups_give_real_games_under_random_play() -> None:
    # bench/tiles_lengths.py measures 1,000 seeds and two pairings; RULES.md quotes it
    lengths = []
    for seed in range(1, 201):
        state, rng = GAME.new_state(default_setup(seed)), random.Random(seed)
        while not state.is_over():
            state.apply(rng.choice(state.legal_moves()))
        lengths.append(state.ply)
    lengths.sort()
    assert lengths[0] > 0 and lengths[len(lengths) // 10] >= 10 and lengths[len(lengths) // 2] >= 15, lengths
