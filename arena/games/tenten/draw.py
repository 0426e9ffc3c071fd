"""The drawing of 1010!: the board, the cells the last block covered, and the offer (draw.js draws it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer


def tenten_view(data: Mapping[str, Any], dropped: list[list[int]]) -> Frame:
    """Tenten: filled cells, the blocks on offer, the cells of the last drop, score and round."""
    return {
        "size": data["size"], "filled": data["filled"], "offer": data["on_offer"], "dropped": dropped,
        "points": data["points"], "round": data["round"], "drops": data["drops"],
        "left": None if data.get("sequence") is None else len(data["sequence"]),
    }



class TentenFramer(Framer):
    """Tenten: the board, the cells the last block covered, and the offer."""

    def __init__(self) -> None:
        self.offer: list[Any] = []

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The board after record's drop."""
        data = state.to_data()
        dropped = []
        if record is not None:
            move = record["move"]
            if 0 <= move[0] < len(self.offer):
                dropped = [[move[1] + dk, move[2] + dr] for dk, dr in self.offer[move[0]]]
        self.offer = data["on_offer"]
        return tenten_view(data, dropped)


FRAMER = TentenFramer
