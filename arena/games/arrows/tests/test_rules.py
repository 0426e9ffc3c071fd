"""Arrows: every rule of RULES.md and the contest's file of pairs."""

from __future__ import annotations

import random
import struct
from pathlib import Path

import pytest

from arena.games import IllegalMove, SetupError, get_game

from ..rules import (
    DIRECTIONS,
    ArrowsState,
    pairs_from_text,
    pairs_to_binary,
    pairs_to_text,
    setup_from_pairs,
)

GAME = get_game("arrows")
SETUPS = Path(__file__).resolve().parents[1] / "setups"


def make(heads, dirs, blocked=(), cols=6, rows=6, **extra) -> ArrowsState:
    """A started state of a small board."""
    setup = {"cols": cols, "rows": rows, "heads": heads, "dirs": dirs,
             "blocked": [list(c) for c in blocked], **extra}
    state, events = GAME.start(setup, 2, 0)
    assert events == []
    return state


@pytest.mark.parametrize(
    "direction, delta",
    [(0, (0, -1)), (1, (1, -1)), (2, (1, 0)), (3, (1, 1)),
     (4, (0, 1)), (5, (-1, 1)), (6, (-1, 0)), (7, (-1, -1))],
)
def test_direction_table(direction: int, delta: tuple[int, int]) -> None:
    assert DIRECTIONS[direction] == delta
    # Seat 0's head in the middle of a 6x6 board; its target is one step in `direction`.
    state = make([[3, 3], [6, 6]], [direction, 0])
    x, y = state.cell(state.target(0))
    assert (x - 3, y - 3) == delta
    state.apply(2)
    assert state.cell(state.heads[0]) == [3 + delta[0], 3 + delta[1]]
    assert state.dirs[0] == 2


def test_a_move_puts_the_new_piece_on_the_target_and_passes_the_turn() -> None:
    state = make([[1, 1], [6, 6]], [2, 6])  # seat 0 targets (2,1), seat 1 targets (5,6)
    assert state.to_move() == 0 and state.legal_moves() == list(range(8))
    state.apply(4)
    assert state.cell(state.heads[0]) == [2, 1] and state.dirs[0] == 4
    assert state.occupied >> state.index(1, 1) & 1  # the old head stays as a piece
    assert state.to_move() == 1
    state.apply(0)
    assert state.cell(state.heads[1]) == [5, 6]
    assert state.to_move() == 0 and not state.is_over()


def test_target_off_the_board_blocks_the_mover_before_it_is_asked() -> None:
    state = make([[1, 1], [4, 4]], [0, 2])  # seat 0 points north, off the board
    assert state.is_over() and state.to_move() is None
    assert state.legal_moves() == []
    assert state.end_reason() == "blocked"
    assert state.scores() == [0.0, 1.0] and state.ranks() == [2, 1]
    with pytest.raises(IllegalMove):
        state.apply(0)


def test_target_on_a_blocked_cell_blocks_the_mover() -> None:
    state = make([[2, 2], [5, 5]], [2, 0], blocked=[[3, 2]])
    assert state.is_over() and state.end_reason() == "blocked"
    assert state.scores() == [0.0, 1.0]


def test_target_holding_a_piece_blocks_the_mover_after_a_move() -> None:
    # Seat 0 turns back onto its own old head; seat 1 moves; seat 0 is then blocked.
    state = make([[2, 2], [5, 5]], [2, 0])
    state.apply(6)  # new head on (3,2) pointing W at (2,2), its own first piece
    assert not state.is_over() and state.to_move() == 1
    state.apply(0)  # seat 1 to (5,4)
    assert state.is_over() and state.to_move() is None
    assert state.end_reason() == "blocked" and state.scores() == [0.0, 1.0]


def test_target_holding_the_opponents_head_blocks_the_mover() -> None:
    state = make([[2, 2], [3, 2]], [2, 4], to_move=0)
    assert state.is_over() and state.scores() == [0.0, 1.0]


def test_two_heads_pointing_at_the_same_cell_block_the_player_to_move() -> None:
    state = make([[2, 2], [4, 2]], [2, 6])  # both point at (3,2)
    assert state.is_over() and state.end_reason() == "blocked"
    assert state.scores() == [0.0, 1.0]
    state = make([[2, 2], [4, 2]], [2, 6], to_move=1)
    assert state.is_over() and state.scores() == [1.0, 0.0]


def test_seat_one_loses_when_it_is_blocked_after_seat_zeros_move() -> None:
    # Seat 0 plays onto (3,3) and points at (4,3), the cell seat 1 must take: seat 1 is stuck.
    state = make([[2, 3], [5, 3]], [2, 6])  # targets (3,3) and (4,3)
    state.apply(2)
    assert state.is_over() and state.scores() == [1.0, 0.0]


def test_255_resigns_and_loses() -> None:
    state = make([[1, 1], [6, 6]], [2, 6])
    assert 255 not in state.legal_moves()
    state.apply(255)
    assert state.is_over() and state.to_move() is None
    assert state.end_reason() == "resigned" and state.resigned() == 0
    assert state.scores() == [0.0, 1.0]
    state = make([[1, 1], [6, 6]], [2, 6])
    state.apply(3)
    state.apply(255)
    assert state.resigned() == 1 and state.scores() == [1.0, 0.0]


@pytest.mark.parametrize("move", [8, -1, 254, 256, "x", True, False, 1.0, None, [1], "3"])
def test_illegal_values_are_refused_without_changing_the_state(move: object) -> None:
    state = make([[1, 1], [6, 6]], [2, 6])
    before = state.to_data()
    with pytest.raises(IllegalMove):
        state.apply(move)
    assert state.to_data() == before


def test_forfeit_gives_the_other_seat_the_win() -> None:
    state = make([[1, 1], [6, 6]], [2, 6])
    assert state.forfeit_scores(0) == [0.0, 1.0]
    assert state.forfeit_scores(1) == [1.0, 0.0]


def test_data_round_trip_copy_and_to_setup() -> None:
    state = make([[1, 1], [6, 6]], [3, 7], blocked=[[4, 4]])
    for move in (2, 6, 4):
        state.apply(move)
    data = state.to_data()
    again = GAME.state_from_data(data)
    assert again.to_data() == data and again.render() == state.render()
    copy = state.copy()
    copy.apply(0)
    assert state.to_data() == data
    setup = state.to_setup()
    assert setup["to_move"] == 1
    # The pieces behind the heads become blocked cells; the heads stay heads.
    assert setup["blocked"] == [[1, 1], [2, 2], [4, 4], [6, 6]]
    assert setup["heads"] == [[3, 2], [5, 5]] and setup["dirs"] == [4, 6]
    restarted, _ = GAME.start(setup, 2, 0)
    assert restarted.occupied == state.occupied
    assert restarted.heads == state.heads and restarted.dirs == state.dirs


def test_render_marks_chains_heads_and_blocked_cells() -> None:
    state = make([[1, 1], [4, 4]], [2, 6], blocked=[[2, 3]], cols=4, rows=4)
    state.apply(4)
    assert state.render().splitlines()[:5] == [
        "   1 2 3 4",
        " 1 a A . .",
        " 2 . . . .",
        " 3 . # . .",
        " 4 . . . B",
    ]
    assert GAME.render_move(1) == "NE (1)" and GAME.render_move(255) == "resign (255)"


@pytest.mark.parametrize(
    "change, words",
    [
        ({"cols": 3}, "cols must be in 4..10"),
        ({"rows": 11}, "rows must be in 4..10"),
        ({"heads": [[1, 1], [1, 1]]}, "same cell"),
        ({"heads": [[0, 1], [2, 2]]}, "heads[0]"),
        ({"heads": [[1, 1], [2, 7]]}, "off the"),
        ({"blocked": [[1, 1]]}, "heads[0] = [1, 1] is a blocked cell"),
        ({"blocked": [[7, 1]]}, "blocked[0]"),
        ({"dirs": [0, 8]}, "dirs[1] must be in 0..7"),
        ({"dirs": [0]}, "dirs must hold 2"),
        ({"to_move": 2}, "to_move"),
        ({"bogus": 1}, "unknown setup key 'bogus'"),
        ({"large": "yes"}, "large"),
    ],
)
def test_setup_validation_names_the_field(change: dict, words: str) -> None:
    setup = {"cols": 6, "rows": 6, "heads": [[1, 1], [2, 2]], "dirs": [2, 4], **change}
    with pytest.raises(SetupError) as info:
        GAME.validate_setup(setup)
    assert words in str(info.value)


def test_large_boards_need_the_option() -> None:
    setup = {"cols": 40, "rows": 12, "heads": [[1, 1], [40, 12]], "dirs": [2, 6]}
    with pytest.raises(SetupError, match="large"):
        GAME.validate_setup(setup)
    valid = GAME.validate_setup({**setup, "large": True})
    state, _ = GAME.start(valid, 2, 0)
    state.apply(2)
    assert state.cell(state.heads[0]) == [2, 1]


def test_random_setup_is_valid_deterministic_and_keeps_given_keys() -> None:
    for seed in range(50):
        a = GAME.random_setup(random.Random(seed), 2, {"density": 0.3, "max_size": 6})
        assert a == GAME.random_setup(random.Random(seed), 2, {"density": 0.3, "max_size": 6})
        assert GAME.validate_setup(a) == a and max(a["cols"], a["rows"]) <= 6
    kept = GAME.random_setup(random.Random(1), 2, {"cols": 9, "heads": [[1, 1], [9, 4]]})
    assert kept["cols"] == 9 and kept["heads"] == [[1, 1], [9, 4]]
    assert [1, 1] not in kept["blocked"] and [9, 4] not in kept["blocked"]
    big = GAME.random_setup(random.Random(2), 2, {"min_size": 30, "max_size": 30})
    assert big["large"] is True and big["cols"] == 30
    dense = GAME.random_setup(random.Random(3), 2, {"cols": 4, "rows": 4, "density": 0.99})
    assert len(dense["blocked"]) == 14  # always room for the two heads


# --- the file of pairs --------------------------------------------------------------------


def test_contest_files_in_configs_are_the_same_board() -> None:
    binary = GAME.parse_setup_file((SETUPS / "arrows-contest.dat").read_bytes(), "arrows-contest.dat")
    text = GAME.parse_setup_file((SETUPS / "arrows-contest.txt").read_bytes(), "arrows-contest.txt")
    assert binary == text
    assert binary["cols"] == binary["rows"] == 10 and binary["blocked"]


def test_binary_encoding_is_little_endian_16_bit_pairs() -> None:
    setup = {"cols": 10, "rows": 8, "heads": [[1, 2], [3, 4]], "dirs": [5, 6], "blocked": [[7, 8]]}
    data = pairs_to_binary(setup)
    assert data == struct.pack("<10h", 10, 8, 1, 2, 3, 4, 5, 6, 7, 8)
    assert data[:4] == b"\x0a\x00\x08\x00"


def test_binary_and_text_round_trip_to_identical_setups() -> None:
    for seed in range(20):
        setup = GAME.random_setup(random.Random(seed), 2, {"density": 0.2})
        from_binary = GAME.parse_setup_file(pairs_to_binary(setup), "board.bin")
        from_text = GAME.parse_setup_file(pairs_to_text(setup).encode(), "board.pairs")
        assert from_binary == from_text == setup


def test_text_pairs_allow_comments_blank_lines_and_any_white_space() -> None:
    text = b"# a board\n\n 6\t5 # size\n1 1\n  6 5\n2 6\n\n4 4   \n"
    assert pairs_from_text(text) == [(6, 5), (1, 1), (6, 5), (2, 6), (4, 4)]
    assert GAME.parse_setup_file(text, "b.txt") == {
        "cols": 6, "rows": 5, "heads": [[1, 1], [6, 5]], "dirs": [2, 6], "blocked": [[4, 4]],
    }


def test_other_suffixes_are_not_pair_files() -> None:
    assert GAME.parse_setup_file(b"{}", "board.json") is None


GOOD = [(6, 6), (1, 1), (6, 6), (2, 6)]


@pytest.mark.parametrize(
    "pairs, words",
    [
        (GOOD[:3], "at least 4 pairs"),
        ([(3, 6)] + GOOD[1:], "pair 1: cols must be in 4..10"),
        ([(6, 11)] + GOOD[1:], "pair 1: rows must be in 4..10"),
        (GOOD + [(1, 1)], "pair 2: heads[0] = [1, 1] is a blocked cell"),
        (GOOD[:2] + [(7, 1)] + GOOD[3:], "pair 3: heads[1]"),
        (GOOD[:3] + [(2, 9)], "pair 4: dirs[1] must be in 0..7"),
        (GOOD[:3] + [(-1, 0)], "pair 4: dirs[0]"),
        (GOOD + [(2, 2), (0, 3)], "pair 6: blocked[1]"),
    ],
)
def test_malformed_pairs_name_the_pair(pairs: list, words: str) -> None:
    with pytest.raises(SetupError) as info:
        setup_from_pairs(pairs)
    assert words in str(info.value)
    # The same error comes out of both encodings.
    binary = struct.pack(f"<{2 * len(pairs)}h", *(v for p in pairs for v in p))
    with pytest.raises(SetupError, match="pair"):
        GAME.parse_setup_file(binary, "x.dat")


def test_binary_length_must_be_a_multiple_of_4() -> None:
    data = pairs_to_binary({"cols": 6, "rows": 6, "heads": [[1, 1], [6, 6]], "dirs": [2, 6]})
    with pytest.raises(SetupError, match="length 18 bytes is not a multiple of 4"):
        GAME.parse_setup_file(data + b"\x01\x02", "x.dat")


@pytest.mark.parametrize(
    "text, words",
    [
        (b"6 6\n1 1\n6 6 6\n2 6\n", "line 3: expected two integers"),
        (b"6 6\n1 1\n# c\n6\n2 6\n", "line 4: expected two integers"),
        (b"6 6\n1 x\n6 6\n2 6\n", "line 2"),
        (b"6 6\n1 1\n6 6\n", "at least 4 pairs"),
        (b"\xff\xfe", "not UTF-8"),
    ],
)
def test_malformed_text_files(text: bytes, words: str) -> None:
    with pytest.raises(SetupError) as info:
        GAME.parse_setup_file(text, "x.txt")
    assert words in str(info.value)


def test_writers_refuse_what_a_pair_file_cannot_say() -> None:
    setup = {"cols": 6, "rows": 6, "heads": [[1, 1], [6, 6]], "dirs": [2, 6], "to_move": 1}
    with pytest.raises(SetupError, match="to_move"):
        pairs_to_binary(setup)


@pytest.mark.parametrize(("partial", "words"), [  # found by bench/fuzz/setup_json.py: once TypeErrors
    ({"blocked": 0}, "blocked must be a list"),
    ({"blocked": [[[1], 2]]}, r"blocked\[0\] must be a pair of integers"),
    ({"heads": 5}, "heads must be a list"),
    ({"heads": [[1, 1], "a"]}, r"heads\[1\] must be a pair of integers"),
])
def test_random_setup_names_a_malformed_field(partial: dict, words: str) -> None:
    with pytest.raises(SetupError, match=words):
        GAME.random_setup(random.Random(1), 2, partial)
