"""Fuzz target: a TOML setup file (arena/setups.py parse_setup_data, then the game's validate_setup).

The first byte picks the game and its number of seats; the rest is the file, read as the JSON
target reads its own (_setups.check).
"""

from __future__ import annotations

import harness

with harness.instrument(__name__):
    import _setups


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Read one TOML setup file; raise Finding (or any other exception) when the answer is wrong."""
    if data:
        game, players = _setups.pick(data[0])
        _setups.check(game, players, data[1:], "setup.toml")


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return repr(value) if isinstance(value, str) else str(value)


def seeds() -> list[bytes]:
    """A complete setup of every game written as TOML, and generator options."""
    found = []
    for index, game in enumerate(_setups.GAMES):
        players = _setups.pick(index)[1]
        complete = _setups.complete_setup(game, {}, players, 3)
        text = "# a setup\n" + "".join(f"{key} = {_toml(value)}\n" for key, value in complete.items())
        found.append(bytes([index]) + text.encode())
        found.append(bytes([index]) + b"min_size = 4\nmax_size = 6\ndensity = 0.25\n")
    return found


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
