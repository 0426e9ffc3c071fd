"""A bot written from SPEC.md alone (no SDK, no arena code), started as exec:, plays full matches."""

from __future__ import annotations

import sys

from tests.helpers import ROOT, run

RAW = f"exec:{sys.executable} {ROOT / 'bots' / 'examples' / 'raw_blocking.py'}"


def test_raw_bot_plays_full_matches_against_reference_bots() -> None:
    outcomes = []
    for seed, opponent in enumerate(["sequential", "random", "maxblock"] * 2):
        bots = [RAW, opponent] if seed % 2 == 0 else [opponent, RAW]
        result, _ = run("blocking", bots, {"rows": 5, "cols": 7}, seed=seed)
        assert result.reason == "blocked", result.detail
        assert result.offender is None and result.plies >= 2
        outcomes.append(result.ranks)
    assert len(outcomes) == 6
