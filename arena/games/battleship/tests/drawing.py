"""What the Battleship drawing shows, read back from a page's board, beside what the rules say it must show.

Used by the viewer's browser tests (tests/viewer/test_browser.py) for every game that has this module:
`board_of(page, attrs)` reads the drawn board (attrs(key, value) gives [data-key, data-value] of every
board element with data-key), `expected(state)` computes the same shape from the position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.games import State

Attrs = Callable[[str, str], list[list[str]]]
STATES = {".": "water", "S": "ship", "o": "miss", "x": "hit", "#": "sunk", "?": "fired"}


def board_of(page: Any, attrs: Attrs) -> Any:
    """Each cell's state by "seat:row,col", and the ships drawn (seat:index:row,col,direction,length)."""
    return {"cells": dict(map(tuple, attrs("cell", "state"))),
            "ships": sorted(ship for ship, _ in attrs("ship", "ship"))}


def expected(state: State) -> Any:
    """The same, from the position: each seat's waters as the rules draw them, its fleet as placed."""
    data = state.to_data()
    cells = {f"{seat}:{r},{c}": STATES[mark] for seat in (0, 1)
             for r, row in enumerate(state.grid(seat)) for c, mark in enumerate(row)}  # type: ignore[attr-defined]
    ships = sorted(f"{seat}:{i}:{row},{col},{way},{data['fleet'][i]}" for seat, fleet in enumerate(data["fleets"])
                   for i, (row, col, way) in enumerate(fleet or []))
    return {"cells": cells, "ships": ships}
