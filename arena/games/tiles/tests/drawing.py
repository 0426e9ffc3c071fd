"""What the Tiles drawing shows, read back from a page's board, beside what the rules say it must show.

Used by the viewer's browser tests (tests/viewer/test_browser.py) for every game that has this module:
`board_of(page, attrs)` reads the drawn board (attrs(key, value) gives [data-key, data-value] of every
board element with data-key), `expected(state)` computes the same shape from the position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.games import State

Attrs = Callable[[str, str], list[list[str]]]


def board_of(page: Any, attrs: Attrs) -> Any:
    """The pot, each plate's tiles and each row's tiles."""
    return {"pot": page.get_attribute("#board [data-pot]", "data-pot"),
            "plates": dict(map(tuple, attrs("plate", "tiles"))),
            "rows": dict(map(tuple, attrs("row", "tiles")))}


def _tiles(pair: list[int]) -> str:
    return "g" * pair[0] + "b" * pair[1]


def expected(state: State) -> Any:
    """The same, from the position's data."""
    data = state.to_data()
    return {"pot": data["pot"], "plates": {str(p): _tiles(t) for p, t in enumerate(data["plate_tiles"])},
            "rows": {f"{s}:{j}": _tiles(row) for s, board in enumerate(data["boards"]) for j, row in enumerate(board)}}
