"""What the Arrows drawing shows, read back from a page's board, beside what the rules say it must show.

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
    """Each cell's glyph, by "x,y"."""
    return dict(map(tuple, attrs("cell", "glyph")))


def expected(state: State) -> Any:
    """Each cell's glyph, as the rules' text picture has it."""
    data, lines = state.to_data(), state.render().splitlines()
    return {f"{x},{y}": glyph for y in range(1, data["rows"] + 1)
            for x, glyph in enumerate(lines[y].split()[1:], start=1)}
