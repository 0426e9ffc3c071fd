"""Blocking's frames follow the engine: each frame's grid is the position the rules reach."""

from __future__ import annotations

from pathlib import Path

from arena.logs.matchlog import read_log
from arena.viewer.frames import match_data
from tests.viewer.matches import play, snapshots


def test_frames_follow_the_engine(tmp_path: Path) -> None:
    log = read_log(play("blocking", tmp_path))
    data = match_data(log)
    for frame, state in zip(data["frames"], snapshots(log), strict=True):
        grid = "".join(state.render().split())
        assert "".join("-" if ch == "-" else "X" for ch in frame["board"]["grid"]) == grid

