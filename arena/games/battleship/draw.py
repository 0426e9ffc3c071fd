"""The drawing of Battleship: both waters, every ship, every shot and its result, the last shot (draw.js draws it)."""

from __future__ import annotations

from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer

from .rules import Battle, is_shot


class BattleFramer(Framer):
    """Each position as the two waters: the marks of the shots at them and the ships on them (the whole truth)."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """Each seat's waters row by row (Battle.grid's letters), its ships, and the shot just fired."""
        assert isinstance(state, Battle)
        last = None
        if record is not None and is_shot(record.get("move")):
            last = [record["seat"], *record["move"]]
        ships = [[[*ship, state.fleet[i]] for i, ship in enumerate(fleet or [])] for fleet in state.fleets]
        return {"size": state.size, "grids": [state.grid(0), state.grid(1)], "ships": ships, "last": last,
                "placed": state.placed, "winner": state.winner()}


FRAMER = BattleFramer
