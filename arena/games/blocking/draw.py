"""The drawing of Blocking: the grid, every picked cell marked by its seat (draw.js draws it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer


def blocking_view(data: Mapping[str, Any], picks: dict[tuple[int, int], int], last: list[int] | None) -> Frame:
    """Blocking: the grid row-major as one string: '-' free, 'X' blocked, a digit = picked by that seat."""
    rows, cols = data["rows"], data["cols"]
    grid = [["-"] * cols for _ in range(rows)]
    for r, c in data["blocked"]:
        grid[r][c] = "X"
    for (r, c), seat in picks.items():
        grid[r][c] = str(seat)
    return {"rows": rows, "cols": cols, "grid": "".join("".join(row) for row in grid), "last": last}



class BlockingFramer(Framer):
    """Blocking: the grid, with every picked cell marked by its seat."""

    def __init__(self) -> None:
        self.picks: dict[tuple[int, int], int] = {}

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The grid after record's pick."""
        if record is not None:
            move = record["move"]
            self.picks[(move[0], move[1])] = record["seat"]
        return blocking_view(state.to_data(), self.picks, None if record is None else list(record["move"]))


FRAMER = BlockingFramer
