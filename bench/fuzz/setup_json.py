"""Fuzz target: a JSON setup file (arena/setups.py parse_setup_data, then the game's validate_setup).

The first byte picks the game and its number of seats; the rest is the file. It is read as
`--setup FILE` and a tournament's `setups.files` read it: parsed, completed from a seed with
the game's generator options, validated, and a match started from it (_setups.check).
"""

from __future__ import annotations

import json

import harness

with harness.instrument(__name__):
    import _setups


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Read one JSON setup file; raise Finding (or any other exception) when the answer is wrong."""
    if data:
        game, players = _setups.pick(data[0])
        _setups.check(game, players, data[1:], "setup.json")


def seeds() -> list[bytes]:
    """The project's JSON setups, a complete setup of every game, and generator options."""
    found = [bytes([_setups.GAMES.index(game)]) + data for game, data in _setups.example_setups(".json")]
    for index, game in enumerate(_setups.GAMES):
        players = _setups.pick(index)[1]
        complete = _setups.complete_setup(game, {}, players, 3)
        found.append(bytes([index]) + json.dumps(complete).encode())
        found.append(bytes([index]) + b'{"min_size": 4, "max_size": 6, "density": 0.25}')
    return found


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
