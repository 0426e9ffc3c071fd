"""The terminal view of Blocking for `arena play`: the board as in the assignment, moves as row and column."""

from __future__ import annotations

from arena.games import Move, State
from arena.kit.terminal import SEAT_STYLES, Command, Outcome, View, numbers
from arena.outcomes import Reason

from .rules import BlockingState


class BlockingView(View):
    """Blokovanie as in the seed: `-` free, `X` blocked, row then column from 0."""

    show_scores = False

    def intro(self, state: State) -> str:
        assert isinstance(state, BlockingState)  # narrowing: this view only gets blocking states
        return (f"Blocking on a {state.rows} x {state.cols} board: rows 0..{state.rows - 1} from the top, "
                f"columns 0..{state.cols - 1} from the left.\n"
                "'-' is a free field, 'X' a blocked one. Choose a free field: it and its neighbours "
                "(diagonal ones too) become blocked.\n"
                "Whoever cannot choose a free field loses. Type the row, then the column "
                "(or both at once: 1 4).")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, BlockingState)
        width = len(str(state.cols - 1))
        sep = "" if width == 1 else " "  # single digits keep the assignment's compact rows
        pad = len(str(state.rows - 1))
        head = " " * (pad + 1) + sep.join(f"{c:>{width}}" for c in range(state.cols))
        lines = [self.term.paint(head, "dim")]
        for r in range(state.rows):
            cells = []
            for c in range(state.cols):
                free = state.is_free(r, c)
                text = f"{'-' if free else 'X':>{width}}"
                if last is not None and list(last[1]) == [r, c]:
                    text = self.term.paint(text, "reverse", "bold", SEAT_STYLES[last[0] % len(SEAT_STYLES)])
                else:
                    text = self.term.paint(text, "green" if free else "red")
                cells.append(text)
            lines.append(self.term.paint(f"{r:>{pad}}", "dim") + " " + sep.join(cells))
        return "\n".join(lines)

    def ask_move(self, state: State) -> Move | Command:
        assert isinstance(state, BlockingState)
        while True:
            row = self._coordinate("Choose row: ", "Row", state.rows, state)
            if isinstance(row, Command):
                return row
            if isinstance(row, list):  # both coordinates on one line
                move = row
            else:
                col = self._coordinate("Choose column: ", "Column", state.cols, state)
                if isinstance(col, Command):
                    return col
                if isinstance(col, list):
                    self.refuse("Type one number, the column. Choose again.")
                    continue
                move = [row, col]
            if not state.is_free(*move):
                self.refuse(f"Row {move[0]} and column {move[1]} is already blocked (X). Choose a free field (-).")
                continue
            return move

    def _coordinate(self, prompt: str, what: str, size: int, state: BlockingState) -> int | list[int] | Command:
        """One coordinate in 0..size-1, a [row, column] pair typed at once, or a command."""
        while True:
            text = self.read(prompt)
            if isinstance(text, Command):
                return text
            values = numbers(text)
            if values is None:
                self.refuse(f"{what} must be a number from 0 to {size - 1} (? for help).")
            elif len(values) == 2 and what == "Row":
                r, c = values
                if not (0 <= r < state.rows and 0 <= c < state.cols):
                    self.refuse(f"Row {r} and column {c} is off the {state.rows} x {state.cols} board.")
                else:
                    return values
            elif len(values) != 1:
                self.refuse(f"Type one number, the {what.lower()} (0 to {size - 1}).")
            elif not 0 <= values[0] < size:
                self.refuse(f"{what} {values[0]} is off the board ({what.lower()}s are 0 to {size - 1}).")
            else:
                return values[0]

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        if seat in self.humans:
            return None
        return f"{self.name(seat)} chose row {move[0]} and column {move[1]}."

    def outcome(self, result: Outcome, state: State) -> list[str]:
        assert isinstance(state, BlockingState)
        if result.reason == Reason.BLOCKED and len(result.ranks) == 2:
            loser = result.ranks.index(2)
            return [f"{self.name(loser)} cannot choose free field. {self.name(1 - loser)} won."]
        return super().outcome(result, state)




VIEW = BlockingView
