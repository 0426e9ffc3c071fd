"""Setup files: JSON or TOML holding the setup map, or a game's own format (pairs, text)."""

from __future__ import annotations

import json
import os
import random
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.games import Game, SetupError
from protocol.options import KeyValueError, parse_key_values


class SetupFileError(ValueError):
    """A setup file cannot be read or parsed."""


def load_setup_file(path: str | os.PathLike[str], game: Game) -> dict[str, Any]:
    """Read a setup file for game; raises SetupFileError or SetupError naming what is wrong."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SetupFileError(f"cannot read setup file {path}: {exc.strerror}") from None
    return parse_setup_data(data, path, game)


def parse_setup_data(data: bytes, path: str | os.PathLike[str], game: Game) -> dict[str, Any]:
    """Parse a setup file's bytes, its format told by path's suffix; SetupFileError names what is wrong."""
    path = Path(path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".json":
            setup = json.loads(data)
        elif suffix == ".toml":
            setup = tomllib.loads(data.decode("utf-8"))
        else:
            setup = game.parse_setup_file(data, path.name)
            if setup is None:
                raise SetupFileError(
                    f"{path}: unknown setup format {suffix or '(no suffix)'} for {game.name} "
                    "(use .json, .toml or one of the game's own formats)"
                )
    except (json.JSONDecodeError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SetupFileError(f"{path}: {exc}") from None
    except SetupError as exc:
        raise SetupFileError(f"{path}: {exc}") from None
    if not isinstance(setup, dict):
        raise SetupFileError(f"{path}: a setup file must hold a map, not {type(setup).__name__}")
    return setup


def parse_set_values(pairs: list[str]) -> dict[str, Any]:
    """Parse `--set KEY=VALUE` pairs: values are JSON, or strings when they are not JSON."""
    try:
        return parse_key_values(pairs)
    except KeyValueError as exc:
        raise SetupFileError(f"--set {exc.pair!r}: expected KEY=VALUE") from None


def complete_setup(game: Game, partial: Mapping[str, Any], players: int, seed: int) -> dict[str, Any]:
    """Fill what the partial setup leaves open from the seed (the same board for the same seed)."""
    return game.random_setup(random.Random(f"setup:{seed}"), players, dict(partial))
