"""The terminal kit of a game's view (its `view.py`, for `arena play` and `--show`): colours, prompts, a View.

A View draws positions (coordinates along the edges, colours when the terminal takes them),
says what each move was, and reads the person's move: it re-asks with a short reason until
the move is legal in the position (checked on a copy with the rules engine), so the referee
only ever sees legal moves from a person. Commands at every prompt: `?` help, `u` take
back, `q` resign; end of input (Ctrl-D) or Ctrl-C at a prompt resigns as `q` does.
A game's `view.py` defines `VIEW`, a subclass; a game without one gets this View itself:
the rules engine's text picture, and moves typed as the game writes them.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import ClassVar, Protocol, TextIO

from arena.games import Game, GameError, Move, State
from arena.outcomes import Reason

# SGR codes of the few styles the views use.
STYLES = {
    "bold": "1", "dim": "2", "reverse": "7", "red": "31", "green": "32", "yellow": "33",
    "blue": "34", "magenta": "35", "cyan": "36", "white": "37",
    "bg_red": "41", "bg_green": "42", "bg_yellow": "43", "bg_blue": "44", "bg_magenta": "45",
    "bg_cyan": "46", "bg_white": "47",
}
SEAT_STYLES = ("cyan", "magenta", "yellow", "green")  # seat i's pieces, names and last move
SHOWN_MOVES = 12  # legal moves listed in a refusal of the generic view
CLEAR = "\x1b[H\x1b[2J\x1b[3J"  # cursor home, clear the screen, clear the scrollback


class Outcome(Protocol):
    """How a match ended, as a view tells it (a MatchResult is one)."""

    scores: list[float]
    ranks: list[int]
    reason: str
    offender: int | None
    detail: str


class Command(StrEnum):
    """What a person can type instead of a move."""

    HELP = "help"
    UNDO = "undo"
    RESIGN = "resign"


COMMANDS = {"?": Command.HELP, "h": Command.HELP, "help": Command.HELP, "u": Command.UNDO,
            "undo": Command.UNDO, "q": Command.RESIGN, "quit": Command.RESIGN, "resign": Command.RESIGN}
COMMAND_HELP = "Commands: ? help, u take back your last move, q resign (Ctrl-D too)."
# A game of hidden information takes no move back: one played again would know what it revealed.
COMMAND_HELP_NO_TAKE_BACKS = "Commands: ? help, q resign (Ctrl-D too); no take-backs in a game of hidden information."


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

    def clear(self) -> None:
        """Clear the screen and its scrollback (what the person before saw); a rule when not a terminal."""
        if self.out.isatty():
            print(CLEAR, end="", file=self.out, flush=True)
        else:
            self.say("\n" + "-" * 40 + " (screen cleared) " + "-" * 40 + "\n")

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


class View:
    """How one game looks and reads at the terminal; a game's view.py subclasses it as VIEW."""

    show_scores: ClassVar[bool] = True  # print the scores with the winner (not in win/loss games)

    def __init__(self, game: Game, term: Terminal, names: Sequence[str], humans: Sequence[int]) -> None:
        self.game = game
        self.term = term
        self.names = list(names)
        self.humans = set(humans)
        # The seat whose move is read now (`arena play` sets it before each prompt: in the hot seat it
        # changes from turn to turn), None when unknown: a view's parse and illegal use it in a
        # simultaneous turn, where every mover has moves of its own.
        self.mover: int | None = None
        self.commands = COMMAND_HELP_NO_TAKE_BACKS if game.hidden_information else COMMAND_HELP  # shown on `?`

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

        The default takes a move as the game writes it (`render_move`, as `?` lists them), as
        its wire form (JSON, e.g. [1, 2]), or as bare numbers (1 2): what a game without a
        view of its own can offer.
        """
        legal = self.legal(state)
        typed = " ".join(text.split()).lower()
        for move in legal:
            if typed in (" ".join(self.game.render_move(move).split()).lower(), json.dumps(move).lower()):
                return move, None
        try:
            move: Move = json.loads(text)
        except json.JSONDecodeError:
            values = numbers(text)
            move = values if values is None or len(values) != 1 else values[0]
        if move is None:
            return None, f"{text.strip()!r} is not a move. {self.move_format(state)}"
        reason = self.illegal(state, move)
        return (move, None) if reason is None else (None, f"{reason}. {self.move_format(state)}")

    def move_format(self, state: State) -> str:
        """How a move is typed, with examples from the position (the generic view's hint)."""
        legal = self.legal(state)
        if not legal:
            return ""
        shown = "; ".join(f"{self.game.render_move(m)} = {json.dumps(m)}" for m in legal[:SHOWN_MOVES])
        more = f" ({len(legal) - SHOWN_MOVES} more)" if len(legal) > SHOWN_MOVES else ""
        return f"Type a move as the game writes it or as data, e.g. {shown}{more}."

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        """One line saying what a seat just did (None: the board says it all)."""
        if seat in self.humans:
            return None
        return f"{self.name(seat)} played {self.game.render_move(move)}."

    def announce_hidden(self, seat: int, before: State, after: State) -> str | None:
        """One line saying that a seat moved, its move kept from the person (a game of hidden information)."""
        return f"{self.name(seat)} moved; the move is not shown to you."

    def resign_move(self) -> Move | None:
        """The game's own resignation move, if it has one (arrows: 255)."""
        return None

    def outcome(self, result: Outcome, state: State) -> list[str]:
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

    def winners(self, result: Outcome) -> str:
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
        """Why move is not legal in state (tried on a copy; the mover's own in a simultaneous turn), or None."""
        try:
            if self.mover is not None and len(state.movers()) > 1:
                state.check_move(self.mover, move)
            else:
                state.copy().apply(move)
        except GameError as exc:
            return str(getattr(exc, "reason", exc))
        return None

    def legal(self, state: State) -> list[Move]:
        """The legal moves of the person to move: the mover's own in a simultaneous turn."""
        if self.mover is not None and len(state.movers()) > 1:
            return state.moves_of(self.mover)
        return state.legal_moves()

    def help(self, state: State) -> str:
        """The text `?` prints (a view without an intro: the moves of the position)."""
        return "\n".join(filter(None, [self.intro(state) or self.move_format(state), self.commands]))


def numbers(text: str) -> list[int] | None:
    """The integers of a line like `1 4`, `1,4` or `(1, 4)`, or None if anything else is there."""
    words = [w for w in re.split(r"[\s,;()\[\]]+", text) if w]
    if not words or not all(re.fullmatch(r"-?\d+", w) for w in words):
        return None
    return [int(w) for w in words]
