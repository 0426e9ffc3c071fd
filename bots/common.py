"""Helpers for bots that keep the position with the arena's own rules engines."""

from __future__ import annotations

from typing import Any

from arena.games import Move, State, get_game
from arena.games.seats import SeatView
from protocol.bot import Bot


def bits(mask: int) -> list[int]:
    """Indices of the set bits of mask, lowest first (a list: the searches sort and reuse it)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def int_option(name: str, value: Any, minimum: int = 1) -> int:
    """value if it is an integer (not a bool) of at least minimum; else ValueError naming it."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        what = {0: "a non-negative integer", 1: "a positive integer"}.get(
            minimum, f"an integer of at least {minimum}")
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


class GameBot(Bot):
    """A Bot that keeps its seat's view of the match in `self.state`; subclasses implement `choose`.

    The view is the game's own (Game.start_view): the position itself in a game of public
    information, what the seat may know of it otherwise. In a simultaneous turn the bot's own
    move waits until the others' arrive with its next turn's events; then the turn is played.
    """

    def init_game(
        self,
        game: str,
        seat: int,
        players: int,
        setup: dict[str, Any],
        time_left_ms: int,
        match: str,
    ) -> None:
        self.seat = seat
        self.players = players
        self.view = SeatView(seat, get_game(game).start_view(setup, players, seat))
        self.state = self.view.state
        self.on_init(time_left_ms)

    def on_init(self, time_left_ms: int) -> None:
        """Hook: prepare for the match (the clock is running)."""

    def observe(self, events: list[list[Any]]) -> None:
        """Apply the other seats' moves and the referee's events to self.state."""
        for event in events:
            self.view.see(event)

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Move:
        self.observe(events)
        move = self.choose(self.state, time_left_ms)
        self.view.play(self.seat, move)
        return move

    def choose(self, state: State, time_left_ms: int) -> Move:
        """Return the move to play in state (self.seat is to move)."""
        raise NotImplementedError


class RandomBot(GameBot):
    """A uniformly random legal move of its seat (seeded): a game's bots name it for their game."""

    name = "random"
    strength = 1
    description = "uniformly random legal move"

    def choose(self, state: State, time_left_ms: int) -> Move:
        return self.rng.choice(state.moves_of(self.seat))
