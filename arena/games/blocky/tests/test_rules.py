"""Rules of blocky: the quad-tree, moves and their legality, goals, penalties and turns."""

from __future__ import annotations

import random

import pytest

from arena.games import IllegalMove, SetupError, get_game

from ..rules import (
    GAME,
    blob_score,
    flatten,
    perimeter_score,
    random_tree,
    rotate_ccw,
    rotate_cw,
    swap_h,
    swap_v,
)

REFERENCE = [[0, 1, 1, 3], 2, 1, 3]
BLOBS = [{"kind": "blob", "colour": 1}, {"kind": "perimeter", "colour": 3}]


def start(board, max_depth: int = 2, players: int = 2, turns: int = 10, seed: int = 0, **extra):
    """A started match on a given board with blob/perimeter goals (first `players` of BLOBS)."""
    goals = extra.pop("goals", (BLOBS * 2)[:players])
    setup = {"max_depth": max_depth, "turns": turns, "board": board, "goals": goals, **extra}
    state, events = GAME.start(setup, players, seed)
    assert events == []
    return state


def test_registered_with_one_to_four_players() -> None:
    assert get_game("blocky") is GAME
    assert (GAME.min_players, GAME.max_players) == (1, 4)


def test_reference_board_flattens_and_scores_as_the_course_example() -> None:
    grid = flatten(REFERENCE, 2)
    assert grid == [[2, 2, 1, 1], [2, 2, 1, 1], [1, 1, 3, 3], [0, 3, 3, 3]]
    assert [blob_score(grid, c) for c in range(4)] == [1, 4, 4, 5]
    assert [perimeter_score(grid, c) for c in range(4)] == [2, 5, 4, 5]


def test_reference_board_scores_through_the_state() -> None:
    state = start(REFERENCE)
    assert state.scores() == [4.0, 5.0]
    assert state.render().splitlines()[1:5] == ["2 2 1 0", "2 2 1 3", "1 1 3 3", "1 1 3 3"]


def test_perimeter_counts_corner_cells_twice() -> None:
    assert perimeter_score(flatten(0, 1), 0) == 8
    assert perimeter_score(flatten(0, 2), 0) == 16
    assert perimeter_score(flatten([1, 0, 0, 0], 1), 1) == 2


def test_child_orders_of_rotations_and_swaps() -> None:
    assert rotate_cw([0, 1, 2, 3]) == [1, 2, 3, 0]
    assert rotate_ccw([0, 1, 2, 3]) == [3, 0, 1, 2]
    assert swap_h([0, 1, 2, 3]) == [1, 0, 3, 2]
    assert swap_v([0, 1, 2, 3]) == [3, 2, 1, 0]


def test_rotation_is_recursive_and_swaps_are_not() -> None:
    board = [[0, 1, 2, 3], 1, 2, 3]
    assert rotate_cw(board) == [1, 2, 3, [1, 2, 3, 0]]
    assert rotate_ccw(board) == [3, [3, 0, 1, 2], 1, 2]
    assert swap_h(board) == [1, [0, 1, 2, 3], 3, 2]
    assert swap_v(board) == [3, 2, 1, [0, 1, 2, 3]]


def test_rotating_clockwise_turns_the_picture_clockwise() -> None:
    rng = random.Random(7)
    for _ in range(20):
        tree = random_tree(rng, 0, 3, 4)
        before, after = flatten(tree, 3), flatten(rotate_cw(tree), 3)
        n = len(before)
        # y grows downwards: a clockwise quarter turn takes (x, y) to (n - 1 - y, x).
        assert all(after[n - 1 - y][x] == before[x][y] for x in range(n) for y in range(n))
        assert rotate_ccw(rotate_cw(tree)) == tree


def test_moves_apply_at_a_path_and_cost_nothing() -> None:
    state = start(REFERENCE)
    state.apply(["rotate_cw", [0]])
    assert state.board == [[1, 1, 3, 0], 2, 1, 3]
    state.apply(["swap_v", []])
    assert state.board == [3, 1, 2, [1, 1, 3, 0]]
    assert state.penalties == [0, 0]
    with pytest.raises(IllegalMove, match="no children"):
        state.apply(["rotate_ccw", [1]])


@pytest.mark.parametrize(
    "children, colour",
    [([1, 1, 2, 3], 1), ([2, 0, 2, 2], 2), ([3, 3, 3, 3], 3), ([1, 2, 2, 3], 2)],
)
def test_combine_takes_a_strict_majority(children, colour) -> None:
    state = start(children, max_depth=1)
    assert ["combine", []] in state.legal_moves()
    state.apply(["combine", []])
    assert state.board == colour and state.penalties == [1, 0]


@pytest.mark.parametrize("children", [[1, 1, 2, 2], [0, 1, 2, 3], [2, 3, 3, 2]])
def test_combine_without_majority_is_illegal(children) -> None:
    state = start(children, max_depth=1)
    assert ["combine", []] not in state.legal_moves()
    with pytest.raises(IllegalMove, match="more often"):
        state.apply(["combine", []])
    assert state.penalties == [0, 0] and state.ply == 0


def test_combine_needs_unit_cell_children() -> None:
    state = start([[0, 0, 0, 1], 1, 1, 1])
    with pytest.raises(IllegalMove, match="unit cells"):
        state.apply(["combine", []])
    state.apply(["combine", [0]])
    assert state.board == [0, 1, 1, 1]


def test_paint_only_unit_cells_with_another_colour() -> None:
    state = start(REFERENCE)
    with pytest.raises(IllegalMove, match="already has"):
        state.apply(["paint", [0, 0], 0])
    with pytest.raises(IllegalMove, match="unit cell"):
        state.apply(["paint", [1], 0])
    with pytest.raises(IllegalMove, match="colour"):
        state.apply(["paint", [0, 0], 4])
    state.apply(["paint", [0, 0], 3])
    assert state.board == [[3, 1, 1, 3], 2, 1, 3]
    assert state.penalties == [1, 0]
    # Seat 0 (blob of 1) pays the penalty; seat 1's perimeter of 3 gains a corner (two points).
    assert state.scores() == [4.0 - 1, 5.0 + 2]


def test_smash_legality_penalty_and_event() -> None:
    state = start(REFERENCE, seed=12)
    with pytest.raises(IllegalMove, match="smash"):
        state.apply(["smash", [0, 1]])  # a unit cell
    with pytest.raises(IllegalMove, match="smash"):
        state.apply(["smash", [0]])  # has children
    events = state.apply(["smash", [1]])
    assert len(events) == 1
    actor, payload = events[0]
    assert actor == -1 and payload["smash"] == [1]
    block = payload["block"]
    assert isinstance(block, list) and len(block) == 4
    assert all(isinstance(c, int) and 0 <= c < 4 for c in block), "level 2 is the unit level"
    assert state.board[1] == block
    assert state.penalties == [3, 0]
    assert state.scores()[0] == state.goal_score(0) - 3


def test_smash_event_round_trip_through_apply_event() -> None:
    referee = start([0, 1, 2, 3], max_depth=4, seed=5)
    mirror = start([0, 1, 2, 3], max_depth=4, seed=0)
    boards = set()
    for path in ([2], [3], [0]):
        events = referee.apply(["smash", path])
        mirror.apply(["smash", path])
        for _, payload in events:
            mirror.apply_event(payload)
        assert mirror.to_data()["board"] == referee.to_data()["board"]
        boards.add(str(referee.board[path[0]]))
    assert mirror.render() == referee.render()
    with pytest.raises(IllegalMove, match="deeper"):
        mirror.apply_event({"smash": [0], "block": [[[[1, 1, 1, 1], 1, 1, 1], 1, 1, 1], 1, 1, 1]})
    with pytest.raises(IllegalMove):
        mirror.apply_event({"smash": [0, 0, 0, 0, 0], "block": 1})
    with pytest.raises(IllegalMove):
        mirror.apply_event({"offer": []})


def test_setup_without_board_or_goals_opens_with_an_event() -> None:
    referee, events = GAME.start({"max_depth": 2, "turns": 1}, 3, 8)
    mirror, _ = GAME.start({"max_depth": 2, "turns": 1}, 3, 0)
    assert len(events) == 1 and set(events[0][1]) == {"board", "goals"}
    mirror.apply_event(events[0][1])
    assert mirror.render() == referee.render()
    goals = referee.goals
    assert len({g["kind"] for g in goals}) == 1 and len({g["colour"] for g in goals}) == 3


def test_turns_rotate_seats_and_end_the_game() -> None:
    state = start(REFERENCE, players=3, turns=2)
    seats = []
    while not state.is_over():
        seats.append(state.to_move())
        state.apply(["pass"])
    assert seats == [0, 1, 2, 0, 1, 2]
    assert state.to_move() is None and state.legal_moves() == []
    with pytest.raises(IllegalMove, match="over"):
        state.apply(["pass"])


def test_legal_moves_are_complete_and_all_legal() -> None:
    state = start(REFERENCE)
    moves = state.legal_moves()
    assert moves == state.legal_moves()
    assert moves[:5] == [
        ["rotate_cw", []], ["rotate_ccw", []], ["swap_h", []], ["swap_v", []], ["rotate_cw", [0]]
    ]
    assert moves[-1] == ["pass"]
    kinds = [m[0] for m in moves]
    assert kinds.count("rotate_cw") == 2 and kinds.count("combine") == 1
    assert kinds.count("smash") == 3 and kinds.count("paint") == 12
    assert len(moves) == 25
    for move in moves:
        state.copy().apply(move)


@pytest.mark.parametrize(
    "move",
    [["paint", [0, 0]], ["pass", []], ["rotate_cw"], ["rotate_cw", [4]], ["rotate_cw", [1, 0]],
     ["rotate_cw", [0, True]], ["spin", []], ["paint", [0, 0], "red"], [["pass"]]],
)
def test_malformed_moves_are_illegal(move) -> None:
    state = start(REFERENCE)
    before = state.to_data()
    with pytest.raises(IllegalMove):
        state.apply(move)
    assert state.to_data() == before


@pytest.mark.parametrize(
    "setup, players, message",
    [
        ({"max_depth": 1, "board": [[0, 1, 1, 1], 1, 1, 1]}, 1, r"path \[0\] is subdivided deeper"),
        ({"max_depth": 2, "board": [[0, [1, 1, 1, 1], 1, 1], 1, 1, 1]}, 1, r"path \[0, 1\]"),
        ({"board": [1, 2, 3]}, 1, "list of four"),
        ({"board": [1, 2, 3, 4]}, 1, r"path \[3\] is 4, not a colour 0..3"),
        ({"colours": 1}, 1, "colours"),
        ({"turns": 0}, 1, "turns"),
        ({"goals": [{"kind": "blob", "colour": 1}]}, 2, "one goal per seat"),
        ({"goals": [{"kind": "line", "colour": 1}]}, 1, r"goals\[0\].kind"),
        ({"goals": [{"kind": "blob", "colour": 4}]}, 1, r"goals\[0\].colour"),
        ({"colours": 2}, 3, "at least players"),
        ({"size": 3}, 1, "unknown setup key"),
    ],
)
def test_bad_setups_name_the_field(setup: dict, players: int, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        GAME.validate_setup(setup, players)


def test_random_setup_goals_are_one_kind_with_distinct_colours() -> None:
    for seed in range(20):
        setup = GAME.random_setup(random.Random(seed), 4)
        assert GAME.validate_setup(setup, 4) == setup
        assert len({g["kind"] for g in setup["goals"]}) == 1
        assert sorted(g["colour"] for g in setup["goals"]) == [0, 1, 2, 3]
    kept = GAME.random_setup(random.Random(1), 2, {"board": REFERENCE, "max_depth": 2})
    assert kept["board"] == REFERENCE


def test_random_trees_subdivide_less_deeper_down() -> None:
    rng = random.Random(3)
    trees = [random_tree(rng, 0, 5, 4) for _ in range(200)]
    assert all(isinstance(t, list) for t in trees), "exp(0) = 1: the top always splits"
    level1 = [child for t in trees for child in t]
    split = sum(isinstance(c, list) for c in level1) / len(level1)
    assert 0.70 < split < 0.85  # exp(-0.25) = 0.78


def test_to_setup_and_data_round_trip() -> None:
    state = start(REFERENCE, turns=3)
    state.apply(["paint", [0, 0], 2])
    state.apply(["pass"])
    setup = state.to_setup()
    assert setup["board"] == [[2, 1, 1, 3], 2, 1, 3] and setup["turns"] == 2
    data = state.to_data()
    assert GAME.state_from_data(data).to_data() == data
    copy = state.copy()
    copy.apply(["swap_h", []])
    assert state.board == [[2, 1, 1, 3], 2, 1, 3], "a copy is independent"
