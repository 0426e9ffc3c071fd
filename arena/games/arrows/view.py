"""The terminal view of Arrows for `arena play`: chains drawn as arrows, moves typed as directions."""

from __future__ import annotations

import re

from arena.games import Move, State
from arena.kit.terminal import SEAT_STYLES, Command, Outcome, View
from arena.outcomes import Reason

from .rules import DIRECTION_NAMES, RESIGN, ArrowsState

ARROW_GLYPHS = "↑↗→↘↓↙←↖"


def parse_direction(text: str) -> int | None:
    """A direction from `0`..`7`, a compass name (N, ne, …) or an arrow glyph; else None."""
    word = text.strip().upper()
    if re.fullmatch(r"[0-7]", word):
        return int(word)
    if word in DIRECTION_NAMES:
        return DIRECTION_NAMES.index(word)
    if len(word) == 1 and word in ARROW_GLYPHS:
        return ARROW_GLYPHS.index(word)
    return None


def arrow_pieces(state: ArrowsState) -> dict[int, tuple[int, int]]:
    """Cell index -> (seat, direction) of every arrow on the board, replayed from the start."""
    replay = ArrowsState(state.start)  # the state keeps its setup and moves, not per-cell arrows
    pieces = {replay.heads[seat]: (seat, replay.dirs[seat]) for seat in (0, 1)}
    for move in state.moves:
        if move == RESIGN:
            break
        seat = replay.mover
        replay.apply(move)
        pieces[replay.heads[seat]] = (seat, move)
    return pieces


class ArrowsView(View):
    """Arrows (swawolne strzały): chains drawn as arrows, moves typed as directions."""

    show_scores = False

    def glyph(self, direction: int) -> str:
        """The arrow of a direction (its digit where the terminal has no arrows)."""
        return ARROW_GLYPHS[direction] if self.term.unicode else str(direction)

    def intro(self, state: State) -> str:
        assert isinstance(state, ArrowsState)
        g = self.glyph
        roles = ", ".join(f"{self.names[s]} is {'AB'[s]}" for s in (0, 1))
        return "\n".join([
            (f"Arrows on a {state.cols} x {state.rows} board: x = column 1..{state.cols} from the left, "
             f"y = row 1..{state.rows} from the top. {roles}."),
            f"Directions:  7 0 1   {g(7)} {g(0)} {g(1)}   NW  N  NE",
            f"             6 . 2   {g(6)} . {g(2)}   W   .   E",
            f"             5 4 3   {g(5)} {g(4)} {g(3)}   SW  S  SE",
            "On your turn you put a new arrow on the cell your head points at (shown a+ for A, b+ for B)",
            "and choose where it points. That cell must be free and not the other player's target;",
            "a player whose target is taken or off the board on their turn is blocked and loses.",
            f"Board: A{g(2)} head of A, a{g(2)} earlier arrows of A, # blocked, . free.",
            "Type a direction: 0-7 or N NE E SE S SW W NW.",
        ])

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, ArrowsState)
        pieces = arrow_pieces(state)
        targets: dict[int, list[int]] = {}
        for seat in (0, 1):
            t = state.target(seat)
            if t >= 0 and not state.occupied >> t & 1:
                targets.setdefault(t, []).append(seat)
        lines = [self.term.paint("   " + " ".join(f"{x:>2}" for x in range(1, state.cols + 1)), "dim")]
        for y in range(state.rows):
            row = []
            for x in range(state.cols):
                i = y * state.cols + x
                if i in pieces:
                    seat, d = pieces[i]
                    head = i == state.heads[seat]
                    text = ("AB"[seat] if head else "ab"[seat]) + self.glyph(d)
                    styles = ("bold", SEAT_STYLES[seat]) if head else (SEAT_STYLES[seat],)
                    if last is not None and head and last[0] == seat:
                        styles = ("reverse", *styles)
                    row.append(self.term.paint(text, *styles))
                elif i in targets:
                    seats = targets[i]
                    text = "++" if len(seats) == 2 else "ab"[seats[0]] + "+"
                    row.append(self.term.paint(text, SEAT_STYLES[seats[0]]))
                elif state.occupied >> i & 1:
                    row.append(self.term.paint(" #", "red"))
                else:
                    row.append(self.term.paint(" .", "dim"))
            lines.append(self.term.paint(f"{y + 1:>2}", "dim") + " " + " ".join(row))
        return "\n".join(lines)

    def ask_move(self, state: State) -> Move | Command:
        assert isinstance(state, ArrowsState)
        seat = state.mover
        cell = state.cell(state.target(seat))
        safe = self.safe_directions(state)
        hint = ("safe: " + " ".join(DIRECTION_NAMES[d] for d in safe)) if safe else "none is safe"
        while True:
            text = self.read(f"Your new arrow goes on {cell}. Direction (0-7 or N..NW; {hint}): ")
            if isinstance(text, Command):
                return text
            direction = parse_direction(text)
            if direction is None:
                self.refuse("A direction is 0-7 or one of N NE E SE S SW W NW (? for help).")
                continue
            return direction

    def safe_directions(self, state: ArrowsState) -> list[int]:
        """Directions for the new arrow whose next target is on the board and free now."""
        seat = state.mover
        new = state.target(seat)
        occupied = state.occupied | 1 << new
        result = []
        for d in range(8):
            t = state.table[new * 8 + d]
            if t >= 0 and not occupied >> t & 1:
                result.append(d)
        return result

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(before, ArrowsState)
        if seat in self.humans or move == RESIGN:
            return None
        cell = before.cell(before.target(seat))
        return (f"{self.name(seat)} put an arrow on {cell} pointing "
                f"{self.glyph(move)} {DIRECTION_NAMES[move]} ({move}).")

    def resign_move(self) -> Move | None:
        return RESIGN

    def outcome(self, result: Outcome, state: State) -> list[str]:
        assert isinstance(state, ArrowsState)
        if result.reason == Reason.BLOCKED:
            loser = state.mover
            t = state.target(loser)
            if t < 0:
                why = "points off the board"
            elif t == state.target(1 - loser):
                why = f"points at {state.cell(t)}, the other player's target"
            else:
                why = f"points at {state.cell(t)}, which is taken"
            return [f"{self.name(loser)} is blocked: its head {why}.", f"{self.name(1 - loser)} won."]
        return super().outcome(result, state)


VIEW = ArrowsView
