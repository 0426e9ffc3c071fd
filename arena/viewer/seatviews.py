"""Each seat's own view of a logged match, re-derived with the rules as the referee showed it.

A seat's view starts as `Game.start_view` of the seat's share of the setup (`observe_setup`)
and follows what the referee sent that seat: its own moves, and of every other move and every
referee event what `State.observe` lets it see, delivered as the referee delivers them (a
turn's moves in seat order, then the events the turn caused). The game's Framer draws a view
state as it draws the whole one, so the viewer shows a seat's-eye picture with the game's own
drawing. What every seat saw alike is the public part of a turn: the moves and events any
spectator may be shown while the game is still being played, and the position itself as long
as every seat has been shown the same (`common`).
"""

from __future__ import annotations

from typing import Any

from arena.games import Game, GameError, State
from arena.games.base import REFEREE, Event
from arena.games.seats import SeatView
from arena.kit.drawing import Framer


def _seen_record(record: dict[str, Any] | None, seen: dict[int, Any]) -> dict[str, Any] | None:
    """A move record as one seat saw it: every move replaced by its observation (None: not seen)."""
    if record is None:
        return None
    out = {**record, "move": seen.get(record["seat"])}
    if "turn" in record:
        out["turn"] = [{**r, "move": seen.get(r["seat"])} for r in record["turn"]]
    return out


class SeatViews:
    """Every seat's view of one match, advanced turn by turn from the log's records and the rules."""

    def __init__(self, game: Game, setup: dict[str, Any], players: int, framer: type[Framer] | None) -> None:
        self.game = game
        valid = game.validate_setup(setup, players)
        shares = [game.observe_setup(valid, seat) for seat in range(players)]
        self.views = [SeatView(seat, game.start_view(share, players, seat)) for seat, share in enumerate(shares)]
        # Every seat was shown the same so far (one share of the setup, every event whole): each view
        # then holds public knowledge only. The first thing kept from a seat ends it for the match.
        self.common = all(share == shares[0] for share in shares)
        self.framers: list[Framer] | None = [framer() for _ in range(players)] if framer is not None else None
        self.error = ""  # why the views stopped (a view the rules could not advance), "" while they follow
        self.seen: list[dict[int, Any]] = [{} for _ in range(players)]  # each seat's view of the last turn's moves
        self.events: list[list[str]] = [[] for _ in range(players)]  # each seat's view of the last turn's events
        self.public: dict[str, Any] = {"moves": {}, "events": []}

    def _deliver(self, state: State, event: Event, skip: int | None = None) -> bool:
        """Show every seat (but skip) its view of event, as the referee does; True if every one saw all of it."""
        whole = True
        for seat, view in enumerate(self.views):
            if seat == skip:
                continue
            seen = state.observe(event, seat)
            whole = whole and seen == event
            self.common = self.common and seen == event
            if seen is None:
                continue
            view.see(seen)
            if seen[0] == REFEREE:
                self.events[seat].append(self.game.describe_event(seen[1]))
            else:
                self.seen[seat][seen[0]] = seen[1]
        return whole

    def opening(self, state: State, events: list[Event]) -> None:
        """The referee events the match opened with."""
        self._turn(state, [], events)

    def turn(self, state: State, records: list[dict[str, Any]], caused: list[Event]) -> None:
        """One turn played: its move records (several in a simultaneous turn) and the events it caused."""
        self._turn(state, records, caused)

    def _turn(self, state: State, records: list[dict[str, Any]], caused: list[Event]) -> None:
        if self.error:
            return
        self.seen = [{} for _ in self.views]
        self.events = [[] for _ in self.views]
        self.public = {"moves": {}, "events": []}
        try:
            for record in records:  # each mover plays its own move into its own view first
                seat = record["seat"]
                self.views[seat].play(seat, record["move"])
                self.seen[seat][seat] = record["move"]
            for record in records:
                event = [record["seat"], record["move"]]
                if self._deliver(state, event, skip=record["seat"]):
                    self.public["moves"][record["seat"]] = record["move"]
            for event in caused:
                if self._deliver(state, event):
                    self.public["events"].append(self.game.describe_event(event[1]))
        except (GameError, KeyError, TypeError, ValueError, IndexError) as exc:
            self.error = f"the seats' views stopped: {type(exc).__name__}: {exc}"

    def frames(self, record: dict[str, Any] | None) -> list[dict[str, Any]] | None:
        """Each seat's frame of the position just reached (None once the views stopped)."""
        if self.error:
            return None
        out = []
        for seat, view in enumerate(self.views):
            state = view.state
            moves = [{"seat": r["seat"], "move": self.describe_move(self.seen[seat], r["seat"])}
                     for r in (record.get("turn", [record]) if record is not None else [])]
            frame: dict[str, Any] = {"text": state.render(), "board": None, "moves": moves,
                                     "events": self.events[seat], "scores": [float(s) for s in state.scores()]}
            if self.framers is not None:
                try:
                    frame["board"] = self.framers[seat].view(state, _seen_record(record, self.seen[seat]))
                except Exception as exc:  # noqa: BLE001 - a game's draw.py failing on a view: the text is shown
                    self.framers = None
                    self.error = f"draw.py on seat {seat}'s view: {type(exc).__name__}: {exc}"
                    return None
            out.append(frame)
        return out

    def describe_move(self, seen: dict[int, Any], seat: int) -> str | None:
        """A move as a seat saw it, in the game's words (None: it was kept from the seat)."""
        return None if seen.get(seat) is None else self.game.render_move(seen[seat])
