"""Pure rule engines and the registry that maps game names to them."""

from __future__ import annotations

import importlib
import importlib.util

from arena.games.base import (
    REFEREE,
    Event,
    Game,
    GameError,
    IllegalMove,
    Move,
    SetupError,
    State,
    ranks_from_scores,
    ranks_with_last,
)

__all__ = [
    "REFEREE",
    "Event",
    "Game",
    "GameError",
    "IllegalMove",
    "Move",
    "SetupError",
    "State",
    "UnknownGame",
    "game_names",
    "get_game",
    "ranks_from_scores",
    "ranks_with_last",
]

# name -> module holding a module-level GAME instance; imported on first use.
_MODULES = {
    "arrows": "arena.games.arrows",
    "blocking": "arena.games.blocking",
    "tiles": "arena.games.tiles",
    "tenten": "arena.games.tenten",
    "blocky": "arena.games.blocky",
}
_LOADED: dict[str, Game] = {}


class UnknownGame(KeyError):
    """No game of that name is registered."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown game {self.name!r} (known: {', '.join(game_names())})"


def game_names() -> list[str]:
    """The names of every registered game whose module is present, sorted."""
    names = set(_LOADED)
    for name, module in _MODULES.items():
        if importlib.util.find_spec(module) is not None:
            names.add(name)
    return sorted(names)


def get_game(name: str) -> Game:
    """The registered game called name; raises UnknownGame."""
    if name not in _LOADED:
        module = _MODULES.get(name)
        if module is None or importlib.util.find_spec(module) is None:
            raise UnknownGame(name)
        _LOADED[name] = importlib.import_module(module).GAME
    return _LOADED[name]
