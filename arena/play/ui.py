"""The terminal side of `arena play`: colours, prompts, and one board view per game.

A View draws positions (coordinates along the edges, colours when the terminal takes them),
says what each move was, and reads the person's move: it re-asks with a short reason until
the move is legal in the position (checked on a copy with the rules engine), so the referee
only ever sees legal moves from a person. Commands at every prompt: `?` help, `u` take
back, `q` resign; end of input (Ctrl-D) or Ctrl-C at a prompt resigns as `q` does.
Blocking and arrows live here; tiles, tenten and blocky in arena/play/views.py.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, ClassVar, TextIO

from arena.games import GameError, Move, State, get_game
from arena.games.arrows import DIRECTION_NAMES, RESIGN, ArrowsState
from arena.games.blocking import BlockingState
from arena.match.result import MatchResult
from arena.outcomes import Reason

# SGR codes of the few styles the views use.
STYLES = {
    "bold": "1", "dim": "2", "reverse": "7", "red": "31", "green": "32", "yellow": "33",
    "blue": "34", "magenta": "35", "cyan": "36", "white": "37",
    "bg_red": "41", "bg_green": "42", "bg_yellow": "43", "bg_blue": "44", "bg_magenta": "45",
    "bg_cyan": "46", "bg_white": "47",
}
SEAT_STYLES = ("cyan", "magenta", "yellow", "green")  # seat i's pieces, names and last move
ARROW_GLYPHS = "↑↗→↘↓↙←↖"


class Command(StrEnum):
    """What a person can type instead of a move."""

    HELP = "help"
    UNDO = "undo"
    RESIGN = "resign"


COMMANDS = {"?": Command.HELP, "h": Command.HELP, "help": Command.HELP, "u": Command.UNDO,
            "undo": Command.UNDO, "q": Command.RESIGN, "quit": Command.RESIGN, "resign": Command.RESIGN}
COMMAND_HELP = "Commands: ? help, u take back your last move, q resign (Ctrl-D too)."


def colour_wanted(choice: str, stream: TextIO) -> bool:
    """Whether to colour output: `always`, `never`, or `auto` (a terminal, no NO_COLOR, not dumb)."""
    if choice in ("always", "never"):
        return choice == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False  # https://no-color.org: any non-empty NO_COLOR turns colour off
    return stream.isatty()


class EndOfInput(Exception):
    """The person closed the input (Ctrl-D) or interrupted a prompt (Ctrl-C)."""


class Terminal:
    """Line-based terminal I/O with optional ANSI colours."""

    def __init__(self, colour: bool, out: TextIO | None = None) -> None:
        self.colour = colour
        self.out = out or sys.stdout
        if sys.stdin.isatty():
            import readline  # noqa: F401 - input() gains line editing and history at a terminal
        encoding = (getattr(self.out, "encoding", "") or "").lower().replace("-", "")
        self.unicode = encoding in ("utf8", "utf8sig")  # arrows as glyphs, else digits

    def paint(self, text: str, *styles: str) -> str:
        """text in the given styles (unchanged without colour)."""
        codes = ";".join(STYLES[s] for s in styles if s in STYLES)
        return f"\x1b[{codes}m{text}\x1b[0m" if self.colour and codes and text else text

    def say(self, text: str = "") -> None:
        """Print a line (or several) and flush."""
        print(text, file=self.out, flush=True)

    def ask(self, prompt: str) -> str:
        """Read one line after prompt; raises EndOfInput on end of input or Ctrl-C."""
        try:
            return input(prompt)
        except EOFError:
            self.say()
            raise EndOfInput("end of input") from None
        except KeyboardInterrupt:
            self.say()
            raise EndOfInput("interrupted") from None


# The terminal view of each game, by game name: every View subclass with a game_name registers here.
VIEWS: dict[str, type[View]] = {}


class View:
    """How one game looks and reads at the terminal; subclasses fill in the game's parts."""

    game_name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A view of a game registers itself for that game (`view_for` finds it there)."""
        super().__init_subclass__(**kwargs)
        if cls.game_name:
            VIEWS[cls.game_name] = cls
    show_scores: ClassVar[bool] = True  # print the scores with the winner (not in win/loss games)

    def __init__(self, term: Terminal, names: Sequence[str], humans: Sequence[int]) -> None:
        self.term = term
        self.names = list(names)
        self.humans = set(humans)
        self.game = get_game(self.game_name)

    # --- to override ------------------------------------------------------------------

    def intro(self, state: State) -> str:
        """The notation, explained once at the start (and again on `?`)."""
        return ""

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        """The position with coordinates along the edges; last = (seat, move) just played."""
        return state.render()

    prompt = "Your move: "

    def ask_move(self, state: State) -> Move | Command:
        """Read moves until one is legal in state, or a command; never raises."""
        while True:
            text = self.read(self.prompt)
            if isinstance(text, Command):
                return text
            move, reason = self.parse(text, state)
            if reason is None:
                return move
            self.refuse(reason)

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        """A legal move from one line of input, or (None, the reason it is not one).

        The default reads the move as JSON, the wire form (for a game without its own view).
        """
        try:
            move = json.loads(text)
        except json.JSONDecodeError:
            return None, "type the move as JSON, e.g. [1, 2] (? for help)"
        reason = self.illegal(state, move)
        return (move, None) if reason is None else (None, reason)

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        """One line saying what a seat just did (None: the board says it all)."""
        if seat in self.humans:
            return None
        return f"{self.name(seat)} played {self.game.render_move(move)}."

    def resign_move(self) -> Move | None:
        """The game's own resignation move, if it has one (arrows: 255)."""
        return None

    def outcome(self, result: MatchResult, state: State) -> list[str]:
        """What the end of the game means, in the game's words."""
        lines = []
        if result.reason == Reason.RESIGNED and result.offender is not None:
            lines.append(f"{self.name(result.offender)} resigned.")
        elif result.offender is not None:
            detail = f" ({result.detail})" if result.detail else ""
            lines.append(f"{self.name(result.offender)} lost: {result.reason}{detail}.")
        lines.append(self.winners(result))
        return lines

    # --- shared helpers -----------------------------------------------------------------

    def name(self, seat: int) -> str:
        """A seat's display name, in its colour."""
        return self.term.paint(self.names[seat], "bold", SEAT_STYLES[seat % len(SEAT_STYLES)])

    def winners(self, result: MatchResult) -> str:
        """`X won.`, `Draw.`, or the score of a solo game."""
        if len(result.ranks) == 1:
            return f"Game over: score {result.scores[0]:g}."
        best = [seat for seat, rank in enumerate(result.ranks) if rank == 1]
        scores = ", ".join(f"{self.names[s]} {score:g}" for s, score in enumerate(result.scores))
        if len(best) == len(result.ranks):
            return f"Draw (scores: {scores})."
        who = " and ".join(self.name(s) for s in best)
        return f"{who} won." + (f" (scores: {scores})" if self.show_scores else "")

    def read(self, prompt: str) -> str | Command:
        """A line of input, or the command it names; end of input counts as `q`; `q` asks first."""
        while True:
            try:
                text = self.term.ask(self.term.paint(prompt, "bold")).strip()
            except EndOfInput as why:
                self.term.say(f"({why}: resigning)")
                return Command.RESIGN
            command = COMMANDS.get(text.lower(), text)
            if command is not Command.RESIGN or self.confirm("Resign the game? [y/N] "):
                return command

    def confirm(self, question: str) -> bool:
        """A yes/no answer (end of input: yes, the person has left)."""
        try:
            answer = self.term.ask(self.term.paint(question, "bold")).strip().lower()
        except EndOfInput:
            return True
        return answer in ("y", "yes")

    def refuse(self, reason: str) -> None:
        """Tell the person why the input is not a move (a new prompt follows)."""
        self.term.say(self.term.paint(f"  {reason}", "yellow"))

    def illegal(self, state: State, move: Move) -> str | None:
        """Why move is not legal in state (tried on a copy), or None when it is."""
        try:
            state.copy().apply(move)
        except GameError as exc:
            return str(getattr(exc, "reason", exc))
        return None

    def help(self, state: State) -> str:
        """The text `?` prints."""
        return "\n".join(filter(None, [self.intro(state), COMMAND_HELP]))


def numbers(text: str) -> list[int] | None:
    """The integers of a line like `1 4`, `1,4` or `(1, 4)`, or None if anything else is there."""
    words = [w for w in re.split(r"[\s,;()\[\]]+", text) if w]
    if not words or not all(re.fullmatch(r"-?\d+", w) for w in words):
        return None
    return [int(w) for w in words]


# --- blocking -------------------------------------------------------------------------


class BlockingView(View):
    """Blokovanie as in the seed: `-` free, `X` blocked, row then column from 0."""

    game_name = "blocking"
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

    def outcome(self, result: MatchResult, state: State) -> list[str]:
        assert isinstance(state, BlockingState)
        if result.reason == Reason.BLOCKED and len(result.ranks) == 2:
            loser = result.ranks.index(2)
            return [f"{self.name(loser)} cannot choose free field. {self.name(1 - loser)} won."]
        return super().outcome(result, state)


# --- arrows ---------------------------------------------------------------------------


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

    game_name = "arrows"
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

    def outcome(self, result: MatchResult, state: State) -> list[str]:
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
