"""What the setup-file targets share: reading a file as `--setup` and a tournament's setups.files do.

A target imports this module inside its `harness.instrument` block, so the product's modules
it imports are instrumented with the target's own.
"""

from __future__ import annotations

import json

import harness

from arena.games import Game, GameError, game_folder, game_names, get_game
from arena.setups import SetupFileError, complete_setup, parse_setup_data
from protocol.codec import encode

GAMES = [get_game(name) for name in game_names()]

MEMORY_PER_BYTE = 256
MEMORY_BASE = 8 << 20  # a setup may ask for the largest board a game has


def pick(selector: int) -> tuple[Game, int]:
    """A game and a number of seats it allows, from one byte."""
    game = GAMES[selector % len(GAMES)]
    span = game.max_players - game.min_players + 1
    return game, game.min_players + (selector // len(GAMES)) % span


def check(game: Game, players: int, data: bytes, filename: str) -> None:
    """Read data as a setup file, complete and start a match from it; raise Finding when that goes wrong.

    The answer is a setup the game validates as it is, that starts a match and that the
    referee can send (msgpack and JSON), or a one-line SetupFileError or GameError.
    """
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            partial = parse_setup_data(data, filename, game)
            setup = complete_setup(game, partial, players, 1)
        except (SetupFileError, GameError) as exc:
            harness.one_line(exc)
            return
    if game.validate_setup(setup, players) != setup:
        raise harness.Finding(f"{game.name}: a completed setup is not valid as it is: {str(setup)[:200]}")
    game.start(setup, players, 1)
    encode({"setup": setup})
    json.dumps(setup, allow_nan=False)


def example_setups(suffix: str) -> list[tuple[Game, bytes]]:
    """Every game's own setup files (setups/*.SUFFIX in its folder) and their games."""
    return [(get_game(name), path.read_bytes()) for name in game_names()
            for path in sorted((game_folder(name).path / "setups").glob(f"*{suffix}"))]
