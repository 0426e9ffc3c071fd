"""Battleship's rules: a secret simultaneous placement, shots in turn answered miss / hit / sunk, each seat's view."""

from __future__ import annotations

import pytest

from arena.games import IllegalMove, SetupError, get_game
from arena.games.seats import SeatView

from ..rules import SAMPLE, Battle, fleet_problem, random_fleet

GAME = get_game("battleship")
SMALL = {"size": 4, "fleet": [2, 1]}
FLEET0 = [[0, 0, "v"], [3, 3, "h"]]  # a 2 on A1-B1, a 1 on D4
FLEET1 = [[1, 1, "h"], [3, 0, "h"]]  # a 2 on B2-B3, a 1 on D1


def start(setup: dict) -> Battle:
    state, events = GAME.start(GAME.validate_setup(setup), 2, 1)
    assert isinstance(state, Battle) and events == []
    return state


def placed() -> Battle:
    state = start(SMALL)
    assert state.apply_turn({0: FLEET0, 1: FLEET1}) == []
    return state


def test_the_placement_is_one_simultaneous_turn_of_whole_fleets() -> None:
    state = start({})
    assert (state.size, state.fleet) == (10, [5, 4, 3, 3, 2])
    assert state.movers() == [0, 1] and state.to_move() == 0
    sample = state.moves_of(0)
    assert len(sample) == SAMPLE and sample == state.moves_of(1) == start({}).moves_of(0)  # fixed, the same for both
    assert all(fleet_problem(fleet, 10, [5, 4, 3, 3, 2]) is None for fleet in sample)
    with pytest.raises(IllegalMove, match="simultaneous turn"):
        state.apply([0, 0])
    with pytest.raises(IllegalMove, match="a fleet from each"):
        state.apply_turn({0: sample[0]})
    with pytest.raises(IllegalMove):  # the referee's state never takes an unknown fleet
        state.apply_turn({0: sample[0], 1: None})


@pytest.mark.parametrize("fleet,words", [
    ([[0, 0, "h"], [0, 1, "h"]], "overlap at 0,1"),
    ([[0, 3, "h"], [3, 3, "h"]], "leaves the 4 x 4 board"),
    ([[3, 0, "v"], [0, 0, "h"]], "leaves the 4 x 4 board"),
    ([[0, 0, "h"]], "a list of 2 ships"),
    ([[0, 0, "h"], [1, 1, "h"], [2, 2, "h"]], "a list of 2 ships"),
    ([[0, 0, "H"], [3, 3, "h"]], "ship 0 is not"),
    ([[0, 0, "h"], [3.0, 3, "h"]], "ship 1 is not"),
    ([[0, 0], [3, 3]], "ship 0 is not"),
    ([[-1, 0, "h"], [3, 3, "h"]], "leaves the"),
    ("A1 h", "a list of 2 ships"),
])
def test_a_bad_placement_is_refused_saying_why(fleet: object, words: str) -> None:
    state = start(SMALL)
    with pytest.raises(IllegalMove, match=words):
        state.check_move(1, fleet)


def test_ships_may_touch_but_never_overlap() -> None:
    state = start({"size": 4, "fleet": [2, 2, 2]})
    touching = [[0, 0, "h"], [1, 0, "h"], [0, 2, "v"]]  # side by side and end to end
    state.check_move(0, touching)
    state.check_move(1, [[0, 0, "h"], [1, 1, "h"], [2, 2, "h"]])  # corner to corner
    assert state.apply_turn({0: touching, 1: touching}) == [] and state.placed


def test_shots_alternate_from_seat_0_and_are_answered_miss_hit_sunk() -> None:
    state = placed()
    assert state.movers() == [0] and state.moves_of(0) == [[r, c] for r in range(4) for c in range(4)]
    assert state.moves_of(1) == []
    assert state.apply([1, 1]) == [[-1, {"by": 0, "shot": [1, 1], "result": "hit"}]]
    assert state.to_move() == 1
    assert state.apply([2, 2]) == [[-1, {"by": 1, "shot": [2, 2], "result": "miss"}]]
    with pytest.raises(IllegalMove, match="fired at already"):
        state.apply([1, 1])
    with pytest.raises(IllegalMove, match="off the 4 x 4 board"):
        state.apply([4, 0])
    with pytest.raises(IllegalMove, match="a shot is"):
        state.apply("B2")
    assert state.apply([1, 2]) == [[-1, {"by": 0, "shot": [1, 2], "result": "sunk", "ship": [1, 1, "h"],
                                         "length": 2}]]
    assert not state.is_over() and state.scores() == [0.0, 0.0]
    state.apply([0, 0])  # a hit
    assert state.apply([3, 0]) == [[-1, {"by": 0, "shot": [3, 0], "result": "sunk", "ship": [3, 0, "h"],
                                         "length": 1}]]
    assert state.is_over() and state.winner() == 0 and state.movers() == [] and state.to_move() is None
    assert state.scores() == [1.0, 0.0] and state.ranks() == [1, 2]
    assert state.forfeit_scores(0) == [0.0, 1.0]
    assert state.to_data()["marks"] == ["." * 5 + "##" + "." * 5 + "#" + "." * 3, "x" + "." * 9 + "o" + "." * 5]
    assert state.grid(1) == ["....", ".##.", "....", "#..."] and state.grid(0) == ["x...", "S...", "..o.", "...S"]
    with pytest.raises(IllegalMove, match="over"):
        state.apply([0, 1])


def test_a_placement_is_hidden_from_the_other_seat_and_shots_are_public() -> None:
    state = placed()
    assert state.observe([0, FLEET0], 1) == [0, None] and state.observe([1, FLEET1], 0) == [1, None]
    assert state.observe([0, FLEET0], 0) == [0, FLEET0]
    shot = state.apply([1, 1])
    assert state.observe([0, [1, 1]], 1) == [0, [1, 1]] and state.observe(shot[0], 1) == shot[0]


def test_a_seats_view_keeps_its_own_fleet_learns_its_results_and_never_holds_the_others() -> None:
    truth = placed()
    views = [SeatView(seat, GAME.start_view(GAME.observe_setup(SMALL, seat), 2, seat)) for seat in (0, 1)]
    views[0].play(0, FLEET0)
    views[0].see(truth.observe([1, FLEET1], 0))
    views[1].see(truth.observe([0, FLEET0], 1))
    views[1].play(1, FLEET1)
    mine = views[0].state
    assert isinstance(mine, Battle) and mine.fleets == [FLEET0, None] and mine.placed
    assert views[1].state.fleets == [None, FLEET1]  # type: ignore[attr-defined]
    for move in ([1, 1], [0, 0], [1, 2]):
        seat, cell = truth.to_move(), move[0] * 4 + move[1]
        events = truth.apply(move)
        views[seat].play(seat, move)
        assert views[seat].state.marks[seat][cell] == "?"  # type: ignore[attr-defined] # its own shot: not known yet
        views[1 - seat].see([seat, move])
        assert views[1 - seat].state.marks[seat][cell] == truth.marks[seat][cell]  # type: ignore[attr-defined]
        for view in views:
            for event in events:
                view.see(event)
        mover = truth.to_move()
        assert views[mover].state.moves_of(mover) == truth.moves_of(mover)
    assert mine.marks == truth.marks and mine.sunk == truth.sunk and mine.fleets[1] is None
    assert views[1].state.marks == truth.marks  # type: ignore[attr-defined]
    with pytest.raises(IllegalMove, match="last shot"):
        mine.apply_event({"by": 0, "shot": [3, 3], "result": "miss"})


def test_random_fleets_are_legal_and_the_seed_decides_them() -> None:
    import random

    for seed in range(30):
        fleet = random_fleet(10, [5, 4, 3, 3, 2], random.Random(seed))
        assert fleet_problem(fleet, 10, [5, 4, 3, 3, 2]) is None
        assert fleet == random_fleet(10, [5, 4, 3, 3, 2], random.Random(seed))
    tight = random_fleet(4, [4, 4], random.Random(1))  # half the board: still placed
    assert fleet_problem(tight, 4, [4, 4]) is None


@pytest.mark.parametrize("setup,words", [
    ({"size": 1}, "size must be in 2..26"), ({"size": 27}, "size must be in 2..26"),
    ({"fleet": []}, "1..10 ships"), ({"fleet": [2] * 11}, "1..10 ships"), ({"fleet": [11]}, r"fleet\[0\]"),
    ({"fleet": [0]}, r"fleet\[0\]"), ({"size": 4, "fleet": [4, 4, 1]}, "more than half"),
    ({"fleet": "5,4"}, "fleet must be a list"), ({"ships": 3}, "unknown setup key"),
])
def test_bad_setups_are_one_line(setup: dict, words: str) -> None:
    with pytest.raises(SetupError, match=words):
        GAME.validate_setup(setup)
