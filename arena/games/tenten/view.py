"""The terminal view of 1010! for `arena play`: the board with its coordinates and the blocks on offer."""

from __future__ import annotations

from arena.games import Move, State
from arena.kit.terminal import Outcome, View, numbers

from .rules import TentenState, block_picture


class TentenView(View):
    """1010!: the board with columns and rows from 1 (rows from the bottom) and the offer."""


    def intro(self, state: State) -> str:
        assert isinstance(state, TentenState)
        return (f"1010! on a {state.size} x {state.size} board: columns 1..{state.size} from the left, "
                f"rows 1..{state.size} from the bottom.\n"
                "Drop the blocks on offer one at a time, in any order; full rows and columns empty out.\n"
                "A point per dot, and 10, 30, 60, ... for 1, 2, 3, ... lines emptied at once.\n"
                "Type the block number, then the column and row where its anchor goes: 0 3 4.\n"
                "The anchor is @ (a dot) or + (not a dot) in the block's picture.")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, TentenState)
        size = state.size
        width = len(str(size)) + 1
        lines = [f"round {state.round}, score {self.term.paint(str(state.points), 'bold')}"
                 + (f", {len(state.sequence)} blocks to come" if state.sequence is not None else "")]
        for r in range(size, 0, -1):
            cells = "".join(self.term.paint(f"{'#' if state.is_filled(k, r) else '.':>{width}}",
                                            "cyan" if state.is_filled(k, r) else "dim")
                            for k in range(1, size + 1))
            lines.append(self.term.paint(f"{r:>{width - 1}}", "dim") + cells)
        lines.append(self.term.paint(" " * (width - 1) + "".join(f"{k:>{width}}" for k in range(1, size + 1)), "dim"))
        if state.offer:
            pictures = [block_picture(block) for block in state.offer]
            height = max(len(p) for p in pictures)
            widths = [max(len(p[0]), 3) for p in pictures]
            padded = [[""] * (height - len(p)) + p for p in pictures]
            lines.append("offer: " + "   ".join(f"{i:<{w}}" for i, w in enumerate(widths)).rstrip())
            for row in range(height):
                lines.append("       " + "   ".join(
                    self.term.paint(f"{p[row]:<{w}}", "bold", "cyan") for p, w in zip(padded, widths)).rstrip())
        return "\n".join(lines)

    prompt = "Drop (block column row): "

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        assert isinstance(state, TentenState)
        values = numbers(text)
        if values is not None and len(values) == 2 and len(state.offer) == 1:
            values = [0, *values]  # one block on offer: its number may be left out
        if values is None or len(values) != 3:
            return None, "Type three numbers: the block, the column and the row (e.g. 0 3 4)."
        reason = self.illegal(state, values)
        return (values, None) if reason is None else (None, reason[:1].upper() + reason[1:] + ".")

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(before, TentenState) and isinstance(after, TentenState)
        gained = after.points - before.points
        who = "You" if seat in self.humans else self.name(seat)
        return f"{who} dropped block {move[0]} at column {move[1]}, row {move[2]}: +{gained} points."

    def outcome(self, result: Outcome, state: State) -> list[str]:
        assert isinstance(state, TentenState)
        if result.offender is not None:
            return [f"You stopped. Final score {result.scores[0]:g}."]
        why = "No block on offer fits any more" if state.offer else "No more blocks: the last round is over"
        return [f"{why}. Final score {result.scores[0]:g}."]




VIEW = TentenView
