"""Checking a config's values: typed getters whose errors name the file and the key."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.games import GameError, add_game_paths


class ConfigError(ValueError):
    """A config that cannot be run; the message names the file and the key."""


class Checker:
    """Typed getters that raise ConfigError naming the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, message: str) -> ConfigError:
        """The error for a bad value of key."""
        where = f"{self.source}: " if self.source else ""
        return ConfigError(f"{where}{key}: {message}" if key else f"{where}{message}")

    def keys(self, table: Mapping[str, Any], known: tuple[str, ...], prefix: str) -> None:
        """Reject the first key of table that is not known."""
        for key in table:
            if key not in known:
                name = f"{prefix}.{key}" if prefix else key
                where = f"{self.source}: " if self.source else ""
                raise ConfigError(f"{where}unknown key {name!r} (known: {', '.join(known)})")

    def table(self, value: Any, key: str) -> dict[str, Any]:
        """A TOML table."""
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table, got {kind_of(value)}")
        return value

    def integer(self, value: Any, key: str, lo: int = 0, hi: int | None = None) -> int:
        """An integer in [lo, hi]."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be an integer, got {kind_of(value)}")
        if value < lo or (hi is not None and value > hi):
            span = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise self.fail(key, f"must be {span}, got {value}")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        """true or false."""
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, got {kind_of(value)}")
        return value

    def string(self, value: Any, key: str) -> str:
        """A non-empty string."""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, f"must be a non-empty string, got {kind_of(value)}")
        return value.strip()

    def array(self, value: Any, key: str) -> list[Any]:
        """An array."""
        if not isinstance(value, list):
            raise self.fail(key, f"must be an array, got {kind_of(value)}")
        return value


def add_games(check: Checker, data: Mapping[str, Any], base: Path) -> list[str]:
    """A config's `games` (a folder, or an array of them, relative to the config): found in this process too."""
    if "games" not in data:
        return []
    value = data["games"]
    paths = [value] if isinstance(value, str) else check.array(value, "games")
    folders = [str(base / check.string(path, "games")) for path in paths]
    try:
        add_game_paths(folders, origin=check.source or "games")
    except GameError as exc:
        raise check.fail("games", str(exc)) from None
    return folders


_KINDS = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
          dict: "a table"}


def kind_of(value: Any) -> str:
    """How a bad value is described: its TOML kind, and the value itself when short."""
    kind = _KINDS.get(type(value), type(value).__name__)
    return kind if isinstance(value, (dict, list)) else f"{kind} ({value!r:.40})"
