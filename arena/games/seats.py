"""A seat's view of a match, kept from what the seat is shown (what a bot keeps), and random turns.

Pure: the rules engines' own calls, nothing else. `SeatView` is the one way a seat's copy of
the game follows it: a referee event is imposed, another seat's move is played, and a
simultaneous turn is played once every mover's move is known. The SDK's GameBot keeps one,
and the conformance checks keep one per seat.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.base import REFEREE, Event, Move, State


def wire(value: Any) -> Any:
    """A value as a bot sends it back over the wire: tuples become lists."""
    if isinstance(value, (list, tuple)):
        return [wire(item) for item in value]
    if isinstance(value, dict):
        return {key: wire(item) for key, item in value.items()}
    return value


def random_turn(state: State, rng: random.Random) -> dict[int, Move]:
    """Each mover's random legal move of a turn (one mover's, or every mover's at once)."""
    movers = state.movers()
    if len(movers) == 1:
        return {movers[0]: rng.choice(state.legal_moves())}
    return {seat: rng.choice(state.moves_of(seat)) for seat in movers}


def play_turn(state: State, moves: dict[int, Move]) -> list[Event]:
    """Play a turn's moves: apply for one mover, apply_turn for several."""
    if len(moves) == 1 and len(state.movers()) == 1:
        return state.apply(wire(next(iter(moves.values()))))
    return state.apply_turn({seat: wire(move) for seat, move in moves.items()})


class SeatView:
    """One seat's view of the game, kept as a bot keeps it (bots/common.py's GameBot)."""

    def __init__(self, seat: int, state: State) -> None:
        self.seat = seat
        self.state = state
        self.pending: dict[int, Move] = {}

    def play(self, seat: int, move: Move) -> None:
        """A move of a seat: at once, or once every mover of a simultaneous turn has one."""
        movers = self.state.movers()
        if len(movers) <= 1:
            self.state.apply(move)
            return
        self.pending[seat] = move
        if set(self.pending) >= set(movers):
            moves, self.pending = self.pending, {}
            self.state.apply_turn(moves)

    def see(self, event: Event) -> None:
        """An event the seat is shown."""
        actor, payload = event
        if actor == REFEREE:
            self.state.apply_event(payload)
        else:
            self.play(actor, payload)


