"""The drawing of Tiles: pot, plates and both players' rows (draw.js draws it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer


def tiles_view(data: Mapping[str, Any], mover: int | None) -> Frame:
    """Tiles: pot, plates as [yellow, blue], both boards as rows of [yellow, blue], the seat to move (None: over)."""
    return {
        "pot": data["pot"], "plates": data["plate_tiles"], "plate_size": data["plate_size"],
        "boards": data["boards"], "row_len": data["row_len"], "mover": mover,
    }


class TilesFramer(Framer):
    """Tiles: plates, pot and rows."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """Plates, pot and rows; no seat to move once the game is over."""
        return tiles_view(state.to_data(), state.to_move())


FRAMER = TilesFramer
