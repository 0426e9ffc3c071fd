"""The drawing of Goofspiel: the prize shown, both hands, the bids of every round and the points (draw.js draws it)."""

from __future__ import annotations

from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer


class RoundFramer(Framer):
    """Each position as the cards on the table."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The prize, the hands, the points and the bids so far."""
        data = state.to_data()
        return {"cards": data["cards"], "prize": data["prize"], "hands": data["hands"], "points": data["points"],
                "bids": data["bids"], "deck": data["deck"]}


FRAMER = RoundFramer
