"""Fuzz target: the tiles assignment's text setup format (arena/games/tiles.py setup_from_text).

Every input is the file, read as every setup file is (_setups.check) for two seats.
"""

from __future__ import annotations

import harness

with harness.instrument(__name__):
    import _setups

    from arena.games import get_game

TILES = get_game("tiles")


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Read one tiles text file; raise Finding (or any other exception) when the answer is wrong."""
    _setups.check(TILES, 2, data, "board.txt")


def seeds() -> list[bytes]:
    """The project's opening position."""
    return [data for game, data in _setups.example_setups(".txt") if game is TILES]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
