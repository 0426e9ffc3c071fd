"""Regenerate the golden match logs (run after a game's version changes): python tests/golden/regenerate.py"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from arena.games import get_game  # noqa: E402
from arena.launch.botspec import parse_bot_spec  # noqa: E402
from arena.match.onematch import MatchPlan, play_match  # noqa: E402
from arena.setups import complete_setup

# game -> (bots, partial setup, seed): small, seeded, every shape of game.
GOLDEN = {
    "arrows": (["greedy", "random"], {"cols": 8, "rows": 8, "density": 0.1}, 5),
    "blocking": (["maxblock", "random"], {"rows": 5, "cols": 6}, 5),
    "tiles": (["greedy", "random"], {"plates": 3, "plate_size": 3, "rows": 4, "row_len": 3, "min_pot": 40, "max_pot": 40}, 5),
    "tenten": (["greedy"], {"max_rounds": 6}, 5),
    "blocky": (["smart", "random", "random"], {"turns": 3, "max_depth": 3}, 5),
}


def main() -> None:
    """Play each golden match and write its log next to this script."""
    for name, (bots, partial, seed) in GOLDEN.items():
        game = get_game(name)
        specs = [parse_bot_spec(bot, name) for bot in bots]
        setup = complete_setup(game, partial, len(specs), seed)
        path = HERE / f"{name}.msgpack"
        result = play_match(MatchPlan(game, specs, setup, seed, match_id=f"golden-{name}", log_path=path))
        print(f"{name}: {result.reason} scores {result.scores} in {result.plies} plies -> {path.name}")


if __name__ == "__main__":
    main()
