"""What the Blocking drawing shows, read back from a page's board, beside what the rules say it must show.

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
    """Each cell's state, by "r,c"."""
    return dict(map(tuple, attrs("cell", "state")))


def expected(state: State) -> Any:
    """Each cell free or blocked, as the rules' text picture says."""
    lines = state.render().splitlines()
    return {f"{r},{c}": "free" if ch == "-" else "blocked" for r, line in enumerate(lines) for c, ch in enumerate(line)}
