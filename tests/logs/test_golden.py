"""Golden match logs per game: they still re-simulate exactly, with the same final scores."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
# Final scores of the stored logs (tests/golden/regenerate.py prints them when it rewrites them).
SCORES = {
    "arrows": [1.0, 0.0],
    "blocking": [0.0, 1.0],
    "tiles": [3.0, -3.0],
    "tenten": [206.0],
    "blocky": [26.0, -2.0, 6.0],
}


@pytest.mark.parametrize("game", sorted(SCORES))
def test_golden_log_verifies(game: str) -> None:
    log = read_log(GOLDEN / f"{game}.msgpack")
    verdict = verify(log)
    assert verdict.ok, verdict.message
    assert log.header["game"] == game
    assert log.result is not None and log.result["scores"] == SCORES[game]
