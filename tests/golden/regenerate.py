"""Rewrite every game's golden match log (after a rules change): python tests/golden/regenerate.py [GAME...]

A game keeps its golden log in its folder's tests/golden.msgpack, played from tests/golden.json
(its bots, partial setup and seed); tests/logs/test_golden.py checks that every one still verifies.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from arena.games import game_file, game_names, get_game  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.match.onematch import MatchPlan, play_match  # noqa: E402
from arena.setups import complete_setup  # noqa: E402


def main(names: list[str]) -> None:
    """Play each game's golden match and write its log into the game's folder."""
    for name in names or game_names():
        recipe_path = game_file(name, "tests/golden.json")
        if recipe_path is None:
            continue
        recipe = json.loads(recipe_path.read_text())
        game = get_game(name)
        specs = [parse_bot_spec(bot, name) for bot in recipe["bots"]]
        setup = complete_setup(game, recipe["setup"], len(specs), recipe["seed"])
        path = recipe_path.with_suffix(".msgpack")
        result = play_match(MatchPlan(game, specs, setup, recipe["seed"], match_id=f"golden-{name}", log_path=path))
        print(f"{name}: {result.reason} scores {result.scores} in {result.plies} plies -> {path}")


if __name__ == "__main__":
    main(sys.argv[1:])
