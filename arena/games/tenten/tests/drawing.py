"""What the 1010! drawing shows, read back from a page's board, beside what the rules say it must show.

Used by the viewer's browser tests (tests/viewer/test_browser.py) for every game that has this module:
`board_of(page, attrs)` reads the drawn board (attrs(key, value) gives [data-key, data-value] of every
board element with data-key), `expected(state)` computes the same shape from the position.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from arena.games import State

Attrs = Callable[[str, str], list[list[str]]]


def board_of(page: Any, attrs: Attrs) -> Any:
    """The filled cells and the blocks on offer."""
    cells = attrs("cell", "state")
    return {"filled": sorted(cell for cell, state in cells if state == "filled"),
            "offer": [re.sub(r"\s", "", dots) for _, dots in attrs("offer", "dots")]}


def expected(state: State) -> Any:
    """The same, from the position's data."""
    data = state.to_data()
    return {"filled": sorted(f"{k},{r}" for k, r in data["filled"]),
            "offer": [re.sub(r"\s", "", str(block)) for block in data["on_offer"]]}
