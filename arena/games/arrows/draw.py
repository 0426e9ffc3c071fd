"""The drawing of Arrows: the board, both chains of arrows and their targets (draw.js draws it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer

ARROW_STEPS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))  # RULES.md
RESIGN = 255


def arrows_view(data: Mapping[str, Any]) -> Frame:
    """Arrows: blocked cells, each seat's chain of [x, y, dir] (head last) and target."""
    cols, rows = data["cols"], data["rows"]
    chains = [[[x, y, d]] for (x, y), d in zip(data["heads"], data["dirs"], strict=True)]
    occupied = {tuple(cell) for cell in data.get("blocked", [])} | {tuple(h) for h in data["heads"]}
    mover = data.get("to_move", 0)
    resigned = None

    def target(seat: int) -> list[int] | None:
        x, y, d = chains[seat][-1]
        dx, dy = ARROW_STEPS[d]
        return [x + dx, y + dy] if 1 <= x + dx <= cols and 1 <= y + dy <= rows else None

    for move in data.get("moves", []):
        if move == RESIGN:
            resigned = mover
            break
        cell = target(mover)
        if cell is None:  # pragma: no cover - the engine never accepts a move to nowhere
            break
        chains[mover].append([cell[0], cell[1], move])
        occupied.add(tuple(cell))
        mover ^= 1
    targets = [target(seat) for seat in (0, 1)]
    return {
        "cols": cols, "rows": rows, "blocked": [list(c) for c in data.get("blocked", [])],
        "chains": chains, "targets": targets, "mover": mover, "resigned": resigned,
    }



class ArrowsFramer(Framer):
    """Arrows: the board and both chains."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The board."""
        return arrows_view(state.to_data())


FRAMER = ArrowsFramer
