"""The terminal view of Tiles for `arena play`: plates and both players' rows; a move is a plate and a colour."""

from __future__ import annotations

import re

from arena.games import Move, State
from arena.kit.terminal import SEAT_STYLES, Command, View

from .rules import COLOUR_NAMES, COLOURS, TilesState

TILE_STYLES = {"g": ("bold", "yellow"), "b": ("bold", "blue")}
COLOUR_WORDS = {"g": "g", "y": "g", "yellow": "g", "geel": "g", "b": "b", "blue": "b", "blauw": "b"}


class TilesView(View):
    """Tegelspel: plates and both players' rows; a move is a plate and a colour."""


    def tiles(self, yellow: int, blue: int, width: int) -> str:
        """A row of tiles, coloured, padded with dots to width."""
        cells = ["g"] * yellow + ["b"] * blue + ["."] * (width - yellow - blue)
        return " ".join(self.term.paint(c, *TILE_STYLES.get(c, ("dim",))) for c in cells)

    def intro(self, state: State) -> str:
        return ("Tiles: a move takes every tile of one colour from one plate (numbered from 0) and lays\n"
                "them in one of your rows: a row that is empty or holds that colour only, with room for all.\n"
                "Among those the fullest row is used (the lowest on a tie); the plate is refilled from the pot.\n"
                "A full row scores; the game ends when a player has filled every row or the mover cannot move.\n"
                "Type the plate and the colour: 0 g (yellow) or 2 b (blue).")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, TilesState)  # narrowing: this view only gets tiles states
        pot = "".join(self.term.paint(c, *TILE_STYLES[c]) for c in state.pot[:40])
        more = "…" if len(state.pot) > 40 else ""
        lines = [f"pot: {pot or '-'}{more} ({len(state.pot)} left)"]
        lines.append("plates: " + "   ".join(
            f"{p}: " + self.tiles(g, b, state.size) for p, (g, b) in enumerate(state.plates)))
        heads = [f"{self.names[s]} ({state.full_rows(s)} full)" for s in (0, 1)]
        width = max(2 * state.row_len + 6, len(heads[0]) + 3)
        lines.append("        " + "".join(self.term.paint(f"{h:<{width}}", "bold", SEAT_STYLES[s])
                                           for s, h in enumerate(heads)).rstrip())
        for j in range(len(state.boards[0])):
            pad = " " * (width - (2 * state.row_len - 1))  # the tiles are 2 * row_len - 1 characters wide
            rows = [self.tiles(state.boards[s][j][0], state.boards[s][j][1], state.row_len) + pad for s in (0, 1)]
            lines.append(self.term.paint(f"row {j:<3}", "dim") + " " + "".join(rows).rstrip())
        return "\n".join(lines)

    def ask_move(self, state: State) -> Move | Command:
        assert isinstance(state, TilesState)
        while True:
            text = self.read("Your move (plate colour, e.g. 0 g): ")
            if isinstance(text, Command):
                return text
            move, reason = self.parse(text, state)
            if reason is None:
                return move
            legal = ", ".join(f"{p} {c}" for p, c in state.legal_moves())
            self.refuse(f"{reason}. Moves now: {legal}.")

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        found = re.fullmatch(r"\s*(\d+)\s*,?\s*([a-z]+)\s*|\s*([a-z]+)\s*,?\s*(\d+)\s*", text.lower())
        if found is None:
            return None, "Type a plate number and a colour (g or b)"
        plate, word = (found.group(1), found.group(2)) if found.group(1) else (found.group(4), found.group(3))
        colour = COLOUR_WORDS.get(word)
        if colour is None:
            return None, f"{word!r} is not a colour (g = yellow, b = blue)"
        move = [int(plate), colour]
        reason = self.illegal(state, move)
        return (move, None) if reason is None else (None, reason[:1].upper() + reason[1:])

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(before, TilesState)
        if seat in self.humans:
            return None
        plate, colour = move
        count = before.plates[plate][COLOURS.index(colour)]
        row = before.target_row(seat, COLOURS.index(colour), count)
        return (f"{self.name(seat)} took {count} {COLOUR_NAMES[colour]} tile{'s' * (count != 1)} "
                f"from plate {plate} into row {row}.")




VIEW = TilesView
