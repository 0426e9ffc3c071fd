"""Goofspiel's bots keep their seat's own view; montecarlo beats random through the real referee."""

from __future__ import annotations

from arena.clock import ClockSettings
from tests.helpers import run


def test_montecarlo_beats_random_from_either_seat() -> None:
    wins = 0
    for seed in range(1, 7):
        bots = ["montecarlo:samples=60", "random"] if seed % 2 else ["random", "montecarlo:samples=60"]
        result, _ = run("goofspiel", bots, {"cards": 8}, seed=seed, clock=ClockSettings(budget_ms=20_000))
        assert result.offender is None, result.detail
        wins += result.ranks[seed % 2 == 0] == 1  # montecarlo's seat: 0 on odd seeds, 1 on even
    assert wins >= 5
