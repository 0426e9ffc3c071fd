"""The drawing contract: a game's frames (plain data, computed in Python) and its `draw.js` that draws them.

A game's `draw.py` may define `FRAMER`, a `Framer` subclass: one instance follows a match and
returns, for each position, what the picture needs as plain data (lists, numbers, strings).
Without one, a frame is the position's `to_data()`. The game's `draw.js` defines
`function draw(root, board)`, which draws one frame's board into the SVG element `root` with
the helpers of `kit` (arena/kit/kit.js). A game with no `draw.js`, or one that fails, is shown
by its `render()` text on a board-like panel, and the page says why.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

from arena.games import State

Frame = dict[str, Any]  # what draw(root, board) receives as board


class Framer:
    """Builds the frame of each position of one match, in order (a frame may need the positions before it)."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The frame of state, reached by record's move (None: the initial position)."""
        return state.to_data()


def kit_script() -> str:
    """The JavaScript helpers every draw.js may use (the `kit` object)."""
    return resources.files("arena.kit").joinpath("kit.js").read_text(encoding="utf-8")
