"""What the Blocky drawing shows, read back from a page's board, beside what the rules say it must show.

Used by the viewer's browser tests (tests/viewer/test_browser.py) for every game that has this module:
`board_of(page, attrs)` reads the drawn board (attrs(key, value) gives [data-key, data-value] of every
board element with data-key), `expected(state)` computes the same shape from the position.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from arena.games import State

from ..rules import flatten

Attrs = Callable[[str, str], list[list[str]]]


def board_of(page: Any, attrs: Attrs) -> Any:
    """The board as a grid of colours, from the drawn leaves."""
    leaves = [list(map(int, leaf.split(","))) for leaf, _ in attrs("leaf", "leaf")]
    size = max(x + s for x, _, s, _ in leaves)
    grid = [[-1] * size for _ in range(size)]
    for x, y, s, colour in leaves:
        for column in grid[x:x + s]:
            column[y:y + s] = [colour] * s
    return grid


def expected(state: State) -> Any:
    """The same grid, from the position's quad-tree."""
    data = state.to_data()
    return flatten(data["board"], data["max_depth"])
