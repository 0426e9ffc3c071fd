"""A bench bot for Goofspiel that answers at once: its lowest card, without looking at the events."""

from __future__ import annotations

from typing import Any

from protocol.bot import Bot


class InstantBidder(Bot):
    """Bids its cards in order, 1, 2, 3, ..."""

    def init_game(self, game: str, seat: int, players: int, setup: dict[str, Any], time_left_ms: int,
                  match: str) -> None:
        self.cards = list(range(setup["cards"], 0, -1))

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        return self.cards.pop()
