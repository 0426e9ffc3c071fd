"""The drawing of Blocky: the quad-tree as coloured squares, goals, scores and penalties (draw.js draws it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.games import State
from arena.kit.drawing import Frame, Framer


def quad_leaves(tree: Any, depth: int) -> list[list[int]]:
    """The leaves of a Blocky tree as [x, y, size, colour] in unit cells, y from the top."""
    leaves: list[list[int]] = []

    def walk(block: Any, x: int, y: int, size: int) -> None:
        if isinstance(block, list):
            half = size // 2
            corners = ((x + half, y), (x, y), (x, y + half), (x + half, y + half))
            for child, (cx, cy) in zip(block, corners, strict=True):
                walk(child, cx, cy, half)
        else:
            leaves.append([x, y, size, block])

    walk(tree, 0, 0, 1 << depth)
    return leaves


def block_rect(path: list[int], depth: int) -> list[int]:
    """The [x, y, size] of the block at a path, in unit cells."""
    x, y, size = 0, 0, 1 << depth
    for i in path:
        size //= 2
        x += size if i in (0, 3) else 0
        y += size if i in (2, 3) else 0
    return [x, y, size]


def blocky_view(state: State, data: Mapping[str, Any], move: Any) -> Frame:
    """Blocky: the quad-tree as coloured squares, goals, goal scores and penalties."""
    depth = data["max_depth"]
    last = None
    if isinstance(move, list) and len(move) >= 2 and isinstance(move[1], list):
        last = block_rect(move[1], depth)
    goal_scores = [int(state.goal_score(s)) for s in range(data["players"])]  # type: ignore[attr-defined]
    return {
        "depth": depth, "colours": data["colours"], "leaves": quad_leaves(data["board"], depth),
        "goals": data["goals"], "penalties": data["penalties"], "goal_scores": goal_scores,
        "last": last, "turns": data["turns"],
    }



class BlockyFramer(Framer):
    """Blocky: the quad-tree, goals, scores and penalties."""

    def view(self, state: State, record: dict[str, Any] | None) -> Frame:
        """The board after record's action."""
        return blocky_view(state, state.to_data(), None if record is None else record["move"])


FRAMER = BlockyFramer
