"""Every registered bot plays the same moves again for the same seed, in real matches.

The searchers that deepen while their clock allows are given a fixed effort (the option a
tournament organiser would use for reproducible runs), so only the seed decides.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.plugins import registered_bots
from arena.logs.matchlog import read_log
from tests.helpers import run

FIXED_EFFORT = {
    ("arrows", "alphabeta"): "nodes=3000",
    ("tenten", "lookahead"): "max_width=4,samples=2",
    ("tenten", "optimal"): "max_width=4,samples=2",
}
SETUPS = {
    "blocking": {"rows": 5, "cols": 6, "blocked": []},
    "arrows": {"cols": 8, "rows": 8},
    "tiles": {},
    "tenten": {"size": 7, "max_rounds": 12},
    "blocky": {},
}
SOLO = {"tenten"}


def played(game: str, spec: str, log: Path) -> list[tuple[int, object]]:
    """The (seat, move) list of one real match of spec against itself (alone in solo games)."""
    bots = [spec] if game in SOLO else [spec, spec]
    result, _ = run(game, bots, SETUPS[game], seed=7, clock=ClockSettings(budget_ms=60_000),
                    log=log)
    assert result.offender is None, f"{spec}: {result.reason} {result.detail}"
    return [(record["seat"], record["move"]) for record in read_log(log).moves]


@pytest.mark.parametrize("game,name", sorted(registered_bots()))
def test_a_bot_repeats_itself_for_a_seed(game: str, name: str, tmp_path: Path) -> None:
    options = FIXED_EFFORT.get((game, name))
    spec = f"{name}:{options}" if options else name
    first = played(game, spec, tmp_path / "first.msgpack")
    again = played(game, spec, tmp_path / "again.msgpack")
    assert len(first) >= 2
    assert first == again
