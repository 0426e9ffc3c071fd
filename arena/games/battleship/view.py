"""The terminal view of Battleship for `arena play`: both waters side by side, cells as B7, ships as A1 h.

A person is never drawn the ships of a seat that is not theirs: with one person playing, the
other's ships show only where they were hit; with two at one terminal, only the seat to fire
sees its own ships. An onlooker (`--show`, no person playing) and the end of the game show both.
"""

from __future__ import annotations

import random
import re

from arena.games import Move, State
from arena.kit.terminal import SEAT_STYLES, Command, View, numbers

from .rules import Battle, cell_name, fleet_problem, is_shot, random_fleet

PLACE_PROMPT = "Your fleet (e.g. A1 h, C1 h, ... or random): "
SHOT_PROMPT = "Fire at (e.g. B7): "
SHIP = re.compile(r"([A-Za-z])\s*(\d+)\s*([hvHV])")
CELL = re.compile(r"\s*([A-Za-z])\s*(\d+)\s*")
STYLE = {".": "dim", "o": "blue", "x": "red", "#": "magenta", "S": "green", "?": "yellow"}


def parse_cell(text: str) -> list[int] | None:
    """[row, col] of a cell typed as B7 (row B, column 7), or None."""
    found = CELL.fullmatch(text)
    if not found:
        return None
    return [ord(found.group(1).upper()) - ord("A"), int(found.group(2)) - 1]


def parse_fleet(text: str) -> list[list[object]] | None:
    """The ships of a fleet typed as `A1 h, C3 v, ...` (each: its top or left cell, h or v), or None."""
    ships = SHIP.findall(text)
    if not ships or SHIP.sub("", text).strip(" ,;") != "":
        return None
    return [[ord(row.upper()) - ord("A"), int(col) - 1, way.lower()] for row, col, way in ships]


class BattleshipView(View):
    """Each seat's waters with the other's shots on them; a fleet is typed ship by ship, a shot as a cell."""

    show_scores = False
    prompt = SHOT_PROMPT

    def intro(self, state: State) -> str:
        assert isinstance(state, Battle)
        last = cell_name(state.size - 1, state.size - 1)
        ships = ", ".join(str(length) for length in state.fleet)
        return (f"Battleship on a {state.size} x {state.size} board: rows A..{last[0]} from the top, columns "
                f"1..{state.size} from the left (B7 is row B, column 7).\n"
                f"First both players place their fleet ({ships} cells long) at once, in secret: each ship by its "
                "top or left cell and h (along the row) or v (down the column), in the fleet's order, e.g. "
                "`A1 h, C1 h, E1 h, G1 h, I1 h`, or `random`. Ships may touch, never overlap.\n"
                "Then you fire in turn, one cell a turn: miss (o), hit (x) or sunk (#) is said. "
                "Sink the whole fleet to win.")

    def shown(self, state: Battle) -> set[int]:
        """The seats whose ships are drawn: both to an onlooker and at the end, else the person's (the firer's)."""
        if state.is_over() or not self.humans:
            return {0, 1}
        if len(self.humans) == 1:
            return set(self.humans)
        mover = state.to_move()
        return set() if mover is None or not state.placed else {mover}

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, Battle)
        shown = self.shown(state)
        grids = []
        for seat in (0, 1):
            rows = state.grid(seat)
            if seat not in shown:
                rows = [row.replace("S", ".") for row in rows]
            grids.append(rows)
        width = 3 + 3 * state.size
        heads = [f"{self.names[s]}'s waters" for s in (0, 1)]
        numbers_row = "   " + "".join(f"{c + 1:>3}" for c in range(state.size))
        lines = [f"{heads[0]:<{width + 4}}{heads[1]}", self.term.paint(f"{numbers_row:<{width + 4}}{numbers_row}",
                                                                       "dim")]
        target = list(last[1]) if last is not None and is_shot(last[1]) else None
        for r in range(state.size):
            halves = []
            for seat in (0, 1):
                cells = []
                for c, mark in enumerate(grids[seat][r]):
                    text = self.term.paint(f"{mark:>3}", STYLE.get(mark, "dim"))
                    if target == [r, c] and last is not None and last[0] == 1 - seat:
                        text = self.term.paint(f"{mark:>3}", "reverse", "bold", SEAT_STYLES[last[0] % 4])
                    cells.append(text)
                halves.append(self.term.paint(f"{chr(ord('A') + r):>3}", "dim") + "".join(cells))
            lines.append(halves[0] + "    " + halves[1])
        return "\n".join(lines)

    def ask_move(self, state: State) -> Move | Command:
        assert isinstance(state, Battle)
        self.prompt = PLACE_PROMPT if not state.placed else SHOT_PROMPT
        return super().ask_move(state)

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        assert isinstance(state, Battle)
        if not state.placed:
            fleet = (random_fleet(state.size, state.fleet, random.Random()) if text.strip().lower() == "random"
                     else parse_fleet(text))
            if fleet is None:
                return None, (f"Type {len(state.fleet)} ships, each its top or left cell and h or v, e.g. "
                              "A1 h, C1 h, ... (or random).")
            problem = fleet_problem(fleet, state.size, state.fleet)
            return (fleet, None) if problem is None else (None, problem + ".")
        values = numbers(text)
        shot = values if values is not None and len(values) == 2 else parse_cell(text)
        if shot is None:
            return None, "Type a cell: its row's letter and its column's number, e.g. B7."
        reason = self.illegal(state, shot)
        return (shot, None) if reason is None else (None, f"{reason}.")

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(after, Battle)
        if not is_shot(move):
            return f"{self.name(seat)} placed a fleet."
        row, col = move
        result = {"o": "miss", "x": "hit", "#": "sunk", "?": "fired"}.get(after.marks[seat][row * after.size + col],
                                                                             "")
        return f"{self.name(seat)} fires at {cell_name(row, col)}: {result}."


VIEW = BattleshipView
