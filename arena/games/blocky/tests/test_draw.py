"""Blocky's frames: the quad-tree's leaves and a path's block, in unit cells."""

from __future__ import annotations

from ..draw import block_rect, quad_leaves


def test_blocky_geometry() -> None:
    # RULES.md example: [[0, 1, 1, 3], 2, 1, 3] at max depth 2.
    leaves = quad_leaves([[0, 1, 1, 3], 2, 1, 3], 2)
    assert [3, 0, 1, 0] in leaves and [0, 0, 2, 2] in leaves and [2, 2, 2, 3] in leaves
    assert sum(size * size for _, _, size, _ in leaves) == 16
    assert block_rect([], 2) == [0, 0, 4] and block_rect([0, 1], 2) == [2, 0, 1] and block_rect([3], 2) == [2, 2, 2]

