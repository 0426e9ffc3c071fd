"""Battleship's terminal view: fleets and cells as people type them; a person never drawn the other's ships."""

from __future__ import annotations

import io

from arena.games import get_game
from arena.kit.terminal import Terminal

from ..rules import Battle
from ..view import BattleshipView, parse_cell, parse_fleet

GAME = get_game("battleship")
SMALL = {"size": 4, "fleet": [2, 1]}


def position() -> Battle:
    state, _ = GAME.start(GAME.validate_setup(SMALL), 2, 1)
    assert isinstance(state, Battle)
    return state


def view(humans: list[int]) -> BattleshipView:
    return BattleshipView(GAME, Terminal(False, io.StringIO()), ["ann", "bob"], humans)


def test_cells_and_fleets_read_as_people_write_them() -> None:
    assert parse_cell("B7") == [1, 6] and parse_cell(" a1 ") == [0, 0] and parse_cell("B") is None
    assert parse_fleet("A1 h, C3 v") == [[0, 0, "h"], [2, 2, "v"]] == parse_fleet("a1H c3V")
    assert parse_fleet("A1 h, nonsense") is None and parse_fleet("") is None


def test_a_move_is_parsed_and_checked_against_the_rules() -> None:
    state, person = position(), view([0])
    assert person.parse("A1 v, D4 h", state) == ([[0, 0, "v"], [3, 3, "h"]], None)
    assert "overlap" in str(person.parse("A1 h, A2 h", state)[1])
    assert person.parse("hello", state)[0] is None
    fleet, why = person.parse("random", state)
    assert why is None and state.copy().check_move(0, fleet) is None
    state.apply_turn({0: [[0, 0, "v"], [3, 3, "h"]], 1: [[1, 1, "h"], [3, 0, "h"]]})
    assert person.parse("B2", state) == ([1, 1], None) and person.parse("1 1", state) == ([1, 1], None)
    state.apply([1, 1])
    state.apply([0, 0])
    assert "fired at already" in str(person.parse("B2", state)[1])
    assert "off the 4 x 4 board" in str(person.parse("E1", state)[1])


def test_a_person_sees_their_own_ships_only_and_an_onlooker_sees_both() -> None:
    state = position()
    state.apply_turn({0: [[0, 0, "v"], [3, 3, "h"]], 1: [[1, 1, "h"], [3, 0, "h"]]})
    state.apply([1, 1])  # ann hits bob's 2 at B2
    ships = [line.count("S") for line in view([0]).board(state).splitlines()[2:]]
    assert sum(ships) == 3  # ann's three cells; bob's unhit B3 and D1 are not drawn
    assert view([0]).board(state).splitlines()[3].split()[-4:] == [".", "x", ".", "."]
    onlooker = view([]).board(state)
    assert sum(line.count("S") for line in onlooker.splitlines()) == 5
    line = view([0]).announce(0, [1, 1], state, state)
    assert line is not None and "B2: hit" in line
    assert "placed a fleet" in str(view([0]).announce(1, None, state, state))
