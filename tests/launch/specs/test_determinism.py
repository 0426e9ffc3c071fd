"""Every registered bot plays the same moves again for the same seed, in real matches.

The searchers that deepen while their clock allows are given a fixed effort (the option a
tournament organiser would use for reproducible runs), so only the seed decides. A family's
bots play the family's example game (the `game` of its folder's tests/golden.json).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.games import UnknownGame, family_names, game_file, get_game
from arena.launch.specs.plugins import registered_bots
from arena.logs.matchlog import read_log
from tests.helpers import run


def recipe(game: str) -> dict:
    """The small setup of the game's seeded match (its folder's tests/golden.json), else its default."""
    path = game_file(game, "tests/golden.json")
    return json.loads(path.read_text())["setup"] if path is not None else {}


def played(game: str, spec: str, log: Path) -> list[tuple[int, object]]:
    """The (seat, move) list of one real match of spec against itself (alone in solo games)."""
    seats = 1 if get_game(game).max_players == 1 else max(2, get_game(game).min_players)
    result, _ = run(game, [spec] * seats, recipe(game), seed=7, clock=ClockSettings(budget_ms=60_000), log=log)
    assert result.offender is None, f"{spec}: {result.reason} {result.detail}"
    return [(record["seat"], record["move"]) for record in read_log(log).moves]


def example(game: str) -> str:
    """The game a bot registered for game plays here: the game itself, or a family's example game."""
    if game not in family_names():
        return game
    path = game_file(game, "tests/golden.json")
    assert path is not None, f"the family {game} has no tests/golden.json naming its example game"
    member = json.loads(path.read_text())["game"]
    try:
        get_game(member)
    except UnknownGame as exc:  # a family of an optional package: required under CI only
        if os.environ.get("CI"):
            pytest.fail(f"{member} does not load under CI: {exc}")
        pytest.skip(str(exc))
    return member


@pytest.mark.parametrize("folder,name", sorted(registered_bots()))
def test_a_bot_repeats_itself_for_a_seed(folder: str, name: str, tmp_path: Path) -> None:
    options = registered_bots()[(folder, name)].fixed_effort
    game = example(folder)
    spec = f"{name}:{options}" if options else name
    first = played(game, spec, tmp_path / "first.msgpack")
    again = played(game, spec, tmp_path / "again.msgpack")
    assert len(first) >= 2
    assert first == again
