"""Battleship: both players place a fleet in secret at once, then take turns firing at the other's waters.

Pure: no I/O, no clocks, no chance. The first turn is simultaneous: each seat places its whole
fleet (one move), and the other is shown only that it did ([seat, None]). Then the seats fire in
turn, seat 0 first, one shot a turn at a cell of the other's waters not fired at before; the
referee answers every shot with a public event: miss, hit, or sunk (with where the sunk ship lay and
its length). The first to sink the other's whole fleet wins.

A seat's view (Game.start_view) holds its own fleet once placed and never the other's: its own
shots' results arrive as the referee's events, the other's shots at it it works out itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.base import (
    REFEREE,
    Event,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    game_of_module,
    is_int,
    need_int,
    need_list,
    need_setup_map,
)

NAME = game_of_module(__name__)  # the folder's name
SIZE = 10
FLEET = (5, 4, 3, 3, 2)
MAX_SIZE = 26  # rows are lettered A..Z
MAX_SHIPS = 10
SETUP_KEYS = {"size", "fleet"}
DIRECTIONS = ("h", "v")  # h: along the row, to the right; v: down the column
RESULTS = ("miss", "hit", "sunk")
SAMPLE = 16  # the placements moves_of lists: the legal ones are far too many (~10^10 for the standard fleet)

Cell = tuple[int, int]
Ship = list[Any]  # [row, col, "h" | "v"]


def ship_cells(ship: Sequence[Any], length: int) -> list[Cell]:
    """The cells a ship [row, col, direction] of a length covers, from its first (top or left) cell."""
    row, col, direction = ship
    return [(row, col + i) if direction == "h" else (row + i, col) for i in range(length)]


def fleet_problem(fleet: Any, size: int, lengths: Sequence[int]) -> str | None:
    """Why a placement is not a legal fleet on a size x size board (None: it is)."""
    if not isinstance(fleet, list) or len(fleet) != len(lengths):
        return f"a placement is a list of {len(lengths)} ships [row, col, \"h\" or \"v\"], one per ship of the fleet"
    taken: dict[Cell, int] = {}
    for i, (ship, length) in enumerate(zip(fleet, lengths)):
        if (not isinstance(ship, list) or len(ship) != 3 or not is_int(ship[0]) or not is_int(ship[1])
                or ship[2] not in DIRECTIONS):
            return f"ship {i} is not [row, col, \"h\" or \"v\"]: {ship!r:.40}"
        for r, c in ship_cells(ship, length):
            if not (0 <= r < size and 0 <= c < size):
                return f"ship {i} (length {length}) at {ship[0]},{ship[1]} {ship[2]} leaves the {size} x {size} board"
            if (r, c) in taken:
                return f"ships {taken[(r, c)]} and {i} overlap at {r},{c}"
            taken[(r, c)] = i
    return None


def packed_fleet(size: int, lengths: Sequence[int]) -> list[Ship] | None:
    """The fleet laid along the rows, first fit, longest first (None: it does not fit that way)."""
    room = [size] * size
    fleet: list[Ship | None] = [None] * len(lengths)
    for i in sorted(range(len(lengths)), key=lambda i: (-lengths[i], i)):
        row = next((r for r in range(size) if room[r] >= lengths[i]), None)
        if row is None:
            return None
        fleet[i] = [row, size - room[row], "h"]
        room[row] -= lengths[i]
    return [ship for ship in fleet if ship is not None]


def random_fleet(size: int, lengths: Sequence[int], rng: random.Random) -> list[Ship]:
    """A random legal placement: each ship in turn at a random spot still free (the packed fleet if that fails)."""
    for _ in range(100):
        taken: set[Cell] = set()
        fleet: list[Ship] = []
        for length in lengths:
            spots = [[r, c, d] for d in DIRECTIONS for r in range(size) for c in range(size)
                     if (c + length <= size if d == "h" else r + length <= size)
                     and not taken.intersection(ship_cells([r, c, d], length))]
            if not spots:
                break
            ship = rng.choice(spots)
            taken.update(ship_cells(ship, length))
            fleet.append(ship)
        else:
            return fleet
    packed = packed_fleet(size, lengths)
    assert packed is not None, "validate_setup keeps only fleets that fit"
    return packed


_SAMPLES: dict[tuple[int, tuple[int, ...]], list[list[Ship]]] = {}


def sample_fleets(size: int, lengths: Sequence[int]) -> list[list[Ship]]:
    """The placements moves_of lists: a fixed list (a generator of constant seed), the same every call."""
    key = (size, tuple(lengths))
    if key not in _SAMPLES:
        rng = random.Random(f"{NAME}-placements:{size}:{list(lengths)}")
        _SAMPLES[key] = [random_fleet(size, lengths, rng) for _ in range(SAMPLE)]
    return [[list(ship) for ship in fleet] for fleet in _SAMPLES[key]]


def is_shot(move: Any) -> bool:
    """True for a move of the shape of a shot, [row, col]."""
    return isinstance(move, list) and len(move) == 2 and is_int(move[0]) and is_int(move[1])


def cell_name(row: int, col: int) -> str:
    """A cell as people say it: the row's letter, then the column from 1 (row 1, col 6 is B7)."""
    if 0 <= row < MAX_SIZE and 0 <= col:
        return f"{chr(ord('A') + row)}{col + 1}"
    return f"{row},{col}"  # off any board (a refused move, quoted)


class Battle(State):
    """A position: the fleets (None: not placed, or not known to this view), where each seat fired, the ships sunk."""

    def __init__(self, size: int, fleet: Sequence[int], fleets: list[list[Ship] | None], placed: bool,
                 marks: list[list[str]], last: list[list[int] | None], sunk: list[list[list[Any]]],
                 viewer: int | None = None) -> None:
        self.size = size
        self.fleet = list(fleet)  # the ships' lengths
        self.fleets = fleets  # each seat's placement (in a seat's view: the other's is None)
        self.placed = placed  # the placement turn is over
        # marks[s]: seat s's shots at the other's waters, row by row: "." not fired at, "o" a miss, "x" a hit,
        # "#" a cell of a ship sunk, "?" fired at, the result not known yet (a seat's own shot in its view)
        self.marks = marks
        self.last = last  # each seat's last shot, [row, col] (None before its first)
        self.sunk = sunk  # sunk[s]: the ships seat s sank, each [row, col, direction, length]
        self.viewer = viewer  # None: the whole truth (the referee's); a seat: that seat's view
        self.shots = [size * size - m.count(".") for m in marks]  # how many shots each seat fired

    # --- whose turn -------------------------------------------------------------------

    def movers(self) -> list[int]:
        if self.is_over():
            return []
        return [0, 1] if not self.placed else [self.shooter()]

    def shooter(self) -> int:
        """The seat to fire next (seat 0 fires first)."""
        return 0 if self.shots[0] == self.shots[1] else 1

    def to_move(self) -> int | None:
        if self.is_over():
            return None
        return 0 if not self.placed else self.shooter()

    def legal_moves(self) -> list[Move]:
        seat = self.to_move()
        return [] if seat is None else self.moves_of(seat)

    def moves_of(self, seat: int) -> list[Move]:
        if self.is_over() or seat not in self.movers():
            return []
        if not self.placed:
            return sample_fleets(self.size, self.fleet)
        marks, size = self.marks[seat], self.size
        return [[i // size, i % size] for i in range(size * size) if marks[i] == "."]

    # --- moves ------------------------------------------------------------------------

    def check_move(self, seat: int, move: Move) -> None:
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if seat not in self.movers():
            raise IllegalMove(move, f"seat {seat} does not move now")
        if not self.placed:
            problem = fleet_problem(move, self.size, self.fleet)
            if problem:
                raise IllegalMove(move, problem)
            return
        if not is_shot(move):
            raise IllegalMove(move, "a shot is [row, col]")
        row, col = move
        if not (0 <= row < self.size and 0 <= col < self.size):
            raise IllegalMove(move, f"{row},{col} is off the {self.size} x {self.size} board")
        if self.marks[seat][row * self.size + col] != ".":
            raise IllegalMove(move, f"{cell_name(row, col)} ({row},{col}) was fired at already")

    def apply_turn(self, moves: Mapping[int, Move]) -> list[Event]:
        if self.placed:
            return super().apply_turn(moves)
        if set(moves) != {0, 1}:
            raise IllegalMove(dict(moves), "the placement turn needs a fleet from each seat")
        for seat in (0, 1):
            if moves[seat] is None and self.viewer is not None and seat != self.viewer:
                continue  # the other's fleet, which a seat's view is never shown
            self.check_move(seat, moves[seat])
        self.fleets = [None if moves[s] is None else [list(ship) for ship in moves[s]] for s in (0, 1)]
        self.placed = True
        return []

    def apply(self, move: Move) -> list[Event]:
        if not self.placed and not self.is_over():
            raise IllegalMove(move, "the placement is a simultaneous turn: both fleets at once (apply_turn)")
        seat = self.to_move()
        if seat is None:
            raise IllegalMove(move, "the game is over")
        self.check_move(seat, move)
        row, col = move
        self.last[seat] = [row, col]
        self.shots[seat] += 1
        target = self.fleets[1 - seat]
        if target is None:  # a seat's own shot in its view: the result comes with the referee's event
            self.marks[seat][row * self.size + col] = "?"
            return []
        result, ship = self.result_at(seat, target, (row, col))
        payload: dict[str, Any] = {"by": seat, "shot": [row, col], "result": result}
        if ship is None:
            self.mark(seat, [(row, col)], "o" if result == "miss" else "x")
        else:
            payload |= {"ship": list(target[ship]), "length": self.fleet[ship]}
            self.sink(seat, [*target[ship], self.fleet[ship]])
        return [[REFEREE, payload]]

    def mark(self, seat: int, cells: Sequence[Sequence[int]], mark: str) -> None:
        """Mark cells of seat's record of the other's waters."""
        for r, c in cells:
            self.marks[seat][r * self.size + c] = mark

    def sink(self, seat: int, ship: list[Any]) -> None:
        """Seat sank a ship, [row, col, direction, length]."""
        self.mark(seat, ship_cells(ship[:3], ship[3]), "#")
        self.sunk[seat].append(ship)

    def result_at(self, seat: int, target: list[Ship], cell: Cell) -> tuple[str, int | None]:
        """What seat's shot at cell does to the fleet target: the result, and the ship it sinks (else None)."""
        marks, size = self.marks[seat], self.size
        for i, ship in enumerate(target):
            cells = ship_cells(ship, self.fleet[i])
            if cell in cells:
                whole = all(marks[r * size + c] == "x" for r, c in cells if (r, c) != cell)
                return ("sunk", i) if whole else ("hit", None)
        return "miss", None

    def apply_event(self, payload: Any) -> None:
        seat = payload.get("by") if isinstance(payload, dict) else None
        if (not isinstance(payload, dict) or seat not in (0, 1) or not is_shot(payload.get("shot"))
                or payload.get("result") not in RESULTS
                or payload["result"] == "sunk" and (not is_int(payload.get("length")) or fleet_problem(
                    [payload.get("ship")], self.size, [payload["length"]]))):
            raise IllegalMove(payload, f"{NAME}'s referee events are {{\"by\": seat, \"shot\": [row, col], "
                                       "\"result\": \"miss\" | \"hit\" | \"sunk\", ...}")
        if self.last[seat] != payload["shot"]:
            raise IllegalMove(payload, f"seat {seat}'s last shot is not {payload['shot']}")
        row, col = payload["shot"]
        if self.marks[seat][row * self.size + col] != "?":
            return  # a shot this view worked out itself (one at its own fleet)
        if payload["result"] == "sunk":
            self.sink(seat, [*payload["ship"], payload["length"]])
        else:
            self.mark(seat, [(row, col)], "o" if payload["result"] == "miss" else "x")

    def observe(self, event: Event, seat: int) -> Event | None:
        actor, payload = event
        if actor != REFEREE and actor != seat and not is_shot(payload):
            return [actor, None]  # another seat's placement: only that it placed its fleet
        return event

    # --- the end ------------------------------------------------------------------------

    def winner(self) -> int | None:
        """The seat that sank the other's whole fleet, else None."""
        ships = len(self.fleet)
        return 0 if len(self.sunk[0]) == ships else 1 if len(self.sunk[1]) == ships else None

    def is_over(self) -> bool:
        ships = len(self.fleet)
        return len(self.sunk[0]) == ships or len(self.sunk[1]) == ships

    def scores(self) -> list[float]:
        winner = self.winner()
        return [0.0, 0.0] if winner is None else [float(s == winner) for s in (0, 1)]

    def forfeit_scores(self, offender: int) -> list[float]:
        return [float(s != offender) for s in (0, 1)]

    # --- pictures and data ----------------------------------------------------------------

    def grid(self, seat: int) -> list[str]:
        """Seat's waters, row by row: the other's marks on it, and `S` for a ship of seat's not hit (when known)."""
        cells = list(self.marks[1 - seat])
        for i, ship in enumerate(self.fleets[seat] or []):
            for r, c in ship_cells(ship, self.fleet[i]):
                if cells[r * self.size + c] == ".":
                    cells[r * self.size + c] = "S"
        return ["".join(cells[r * self.size:(r + 1) * self.size]) for r in range(self.size)]

    def render(self) -> str:
        winner = self.winner()
        head = (f"over: seat {winner} sank the whole fleet" if winner is not None
                else "placing the fleets" if not self.placed
                else f"shot {self.shots[0] + self.shots[1] + 1}, seat {self.shooter()} fires")
        grids = [self.grid(0), self.grid(1)]
        lines = [head, f"{'seat 0':<{self.size + 4}}seat 1"]
        lines += [f"{grids[0][r]}    {grids[1][r]}" for r in range(self.size)]
        return "\n".join(lines)

    def to_data(self) -> dict[str, Any]:
        return {"size": self.size, "fleet": list(self.fleet),
                "fleets": [None if f is None else [list(ship) for ship in f] for f in self.fleets],
                "placed": self.placed, "marks": ["".join(m) for m in self.marks],
                "last": [None if shot is None else list(shot) for shot in self.last],
                "sunk": [[list(ship) for ship in s] for s in self.sunk], "viewer": self.viewer}

    def copy(self) -> Battle:
        return Battle(self.size, self.fleet, [None if f is None else [list(ship) for ship in f] for f in self.fleets],
                      self.placed, [list(m) for m in self.marks],
                      [None if shot is None else list(shot) for shot in self.last],
                      [[list(ship) for ship in s] for s in self.sunk], self.viewer)


class Battleship(Game):
    """Battleship on a size x size board (10 x 10, fleet 5-4-3-3-2 by default): secret placement, then shots."""

    version = 1
    min_players = 2
    max_players = 2
    description = "place a fleet in secret, then fire in turn; hit, miss or sunk is said; sink the whole fleet"
    hidden_information = True  # a seat's placement is not for the other

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(self.name, setup, SETUP_KEYS)
        size = need_int(self.name, "size", setup.get("size", SIZE), 2, MAX_SIZE)
        fleet = need_list(self.name, "fleet", setup.get("fleet", list(FLEET)))
        if not 1 <= len(fleet) <= MAX_SHIPS:
            raise SetupError(self.name, f"fleet must hold 1..{MAX_SHIPS} ships, got {len(fleet)}")
        for i, length in enumerate(fleet):
            need_int(self.name, f"fleet[{i}]", length, 1, size)
        if 2 * sum(fleet) > size * size:
            raise SetupError(self.name, f"the fleet's {sum(fleet)} cells are more than half of the "
                                        f"{size} x {size} board")
        return {"size": size, "fleet": list(fleet)}

    def random_setup(self, rng: random.Random, players: int, partial: Mapping[str, Any] | None = None
                     ) -> dict[str, Any]:
        return self.validate_setup(dict(partial or {}), players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        return self.opening(setup, players, None), []

    def start_view(self, setup: Mapping[str, Any], players: int, seat: int) -> State:
        return self.opening(setup, players, seat)

    def opening(self, setup: Mapping[str, Any], players: int, viewer: int | None) -> Battle:
        """The position before the placement: the whole truth (viewer None) or a seat's view."""
        s = self.validate_setup(setup, players)
        empty = ["."] * (s["size"] * s["size"])
        return Battle(s["size"], s["fleet"], [None, None], False, [list(empty), list(empty)], [None, None],
                      [[], []], viewer)

    def state_from_data(self, data: Mapping[str, Any]) -> Battle:
        return Battle(data["size"], list(data["fleet"]),
                      [None if f is None else [list(ship) for ship in f] for f in data["fleets"]],
                      bool(data["placed"]), [list(m) for m in data["marks"]],
                      [None if shot is None else list(shot) for shot in data["last"]],
                      [[list(ship) for ship in s] for s in data["sunk"]],
                      data.get("viewer"))

    def render_move(self, move: Move) -> str:
        if move is None:
            return "a fleet (hidden)"
        if is_shot(move):
            return cell_name(*move)
        if isinstance(move, list) and all(isinstance(s, list) and len(s) == 3 for s in move):
            return "fleet " + " ".join(f"{cell_name(s[0], s[1])}{s[2]}" for s in move
                                       if is_int(s[0]) and is_int(s[1]))
        return repr(move)

    def describe_event(self, payload: Any) -> str:
        if isinstance(payload, dict) and is_shot(payload.get("shot")):
            what = payload.get("result")
            if what == "sunk":
                what = f"sunk (a ship of {payload.get('length')})"
            return f"seat {payload.get('by')}'s shot at {cell_name(*payload['shot'])}: {what}"
        return super().describe_event(payload)


GAME = Battleship()
Battle.game = GAME
