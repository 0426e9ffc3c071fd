"""What each person at the terminal is shown in a game of hidden information: their own seat's view.

A person's view is kept as a bot keeps its own (arena/games/seats.py's SeatView): started from
the share of the setup their seat's `init` carried (`Game.start_view`), fed the events each of
their `turn` (and the `end`) messages carried, and their own moves. The terminal draws that view,
never the referee's state: the person is shown exactly what the referee sent their seat, when
it sent it (another's bid of a simultaneous turn only with their next turn, once every bid is in).

Two people at one terminal (the hot seat) hand the keyboard over between their turns: once a
person has moved the screen is cleared; before the next person's turn it says whose turn it is
and waits for Enter, and only then shows that person's view.
"""

from __future__ import annotations

from typing import Any

from arena.games import Game, GameError, Move, State
from arena.games.base import REFEREE, Event
from arena.games.seats import SeatView
from arena.kit.terminal import EndOfInput, View

END_WAIT_S = 2.0  # how long the end message of a finished match may take to arrive


class PersonViews:
    """The views of the people at this terminal, one per seat they play, and who has the keyboard."""

    def __init__(self, game: Game, view: View, players: int, humans: list[int]) -> None:
        self.game = game
        self.view = view
        self.term = view.term
        self.players = players
        self.humans = list(humans)
        self.views: dict[int, SeatView] = {}
        self.at_keyboard: int | None = None
        self.cleared = False  # nothing was said since the screen was last cleared
        self.ended: set[int] = set()  # the seats whose end message came
        self.last_words: dict[int, list[str]] = {}  # what each person is told of the moves their end message carried
        self._opening: State | None = None

    @property
    def hot_seat(self) -> bool:
        """Several people share the terminal: each must not see the others' views."""
        return len(self.humans) > 1

    def opening(self, setup: dict[str, Any]) -> State:
        """The first person's view of the opening, before the referee's init (the intro's position)."""
        if self._opening is None:
            seat = self.humans[0]
            self._opening = self.game.start_view(self.game.observe_setup(setup, seat), self.players, seat)
        return self._opening

    def start(self, seat: int, setup: dict[str, Any]) -> None:
        """A person's seat was sent its init: their view starts from the setup it carried."""
        self.views[seat] = SeatView(seat, self.game.start_view(setup, self.players, seat))

    def state(self, seat: int) -> State:
        """A person's view of the position."""
        return self.views[seat].state

    def turn(self, seat: int, events: list[Event]) -> bool:
        """A person's turn: take in what it carried, hand the keyboard over if need be, show their view.

        False when the person left at the hand-over (end of input): they resign.
        """
        lines, last = self._take(seat, events)
        if self.hot_seat and self.at_keyboard != seat and not self._hand_over(seat):
            return False
        self.at_keyboard = seat
        self.cleared = False
        self.term.say()
        for line in lines:
            self.term.say(line)
        self.term.say(self.view.board(self.state(seat), last))
        return True

    def played(self, seat: int, move: Move) -> None:
        """A person's own move, as their seat plays it (in a simultaneous turn it waits for the others')."""
        self.views[seat].play(seat, move)
        if self.hot_seat:
            self._clear()  # the next person must not find this one's view on the screen

    def end(self, seat: int, events: list[Event]) -> None:
        """The end message of a person's seat: the events they had not been sent yet."""
        self.ended.add(seat)
        if seat in self.views:
            self.last_words[seat] = self._take(seat, events)[0]

    def finish(self) -> None:
        """Tell everyone the moves they missed, show their last view (hot seat: under their names if views differ)."""
        boards = {seat: self.view.board(self.state(seat)) for seat in self.humans if seat in self.views}
        if self.hot_seat:
            self._clear()
        if len(set(boards.values())) > 1:
            for seat, board in boards.items():
                self.term.say()
                self.term.say(f"{self.view.name(seat)}'s view:")
                for line in self.last_words.get(seat, []):
                    self.term.say(line)
                self.term.say(board)
        elif boards:  # one view for all: each move said once
            self.term.say()
            for line in dict.fromkeys(line for seat in boards for line in self.last_words.get(seat, [])):
                self.term.say(line)
            self.term.say(next(iter(boards.values())))

    def _take(self, seat: int, events: list[Event]) -> tuple[list[str], tuple[int, Move] | None]:
        """Feed a seat's view the events it was sent; what to say of them, and the last move seen."""
        view = self.views[seat]
        lines: list[str] = []
        last = None
        for event in events:
            before = view.state.copy()
            try:
                view.see(event)
            except GameError as exc:  # the referee's events follow the rules: a view that cannot is the game's bug
                lines.append(f"(your view of the game could not take {event!r}: {exc})")
                continue
            actor, payload = event
            if actor == REFEREE or actor == seat:
                continue
            last = (actor, payload)
            if payload is None:
                line = self.view.announce_hidden(actor, before, view.state)
            else:
                line = self.view.announce(actor, payload, before, view.state)
            if line is not None:
                lines.append(line)
        return lines, last

    def _hand_over(self, seat: int) -> bool:
        """Clear the screen and wait until the person of seat has the keyboard and presses Enter."""
        self._clear()
        try:
            self.term.ask(self.term.paint(f"Hand the keyboard over to {self.view.name(seat)}, then press Enter. ",
                                          "bold"))
        except EndOfInput:
            return False
        self._clear()
        self.term.say(f"{self.view.name(seat)} to move.")
        self.cleared = False
        return True

    def _clear(self) -> None:
        if not self.cleared:
            self.term.clear()
        self.cleared = True
