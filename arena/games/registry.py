"""The game registry: every module of this package that defines a game registers it when imported.

Adding a game is adding a module `arena/games/<name>.py` whose last line is
`GAME = register(MyGame())`; nothing else lists the games. Modules are imported on first use,
so `import arena.games` stays light.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil

from arena.games.base import Game

_GAMES: dict[str, Game] = {}
_NOT_GAMES = frozenset({"base", "conformance", "registry"})  # the package's own machinery


class UnknownGame(KeyError):
    """No game of that name is registered."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name

    def __str__(self) -> str:
        return f"unknown game {self.name!r} (known: {', '.join(game_names())})"


def register(game: Game) -> Game:
    """Make a game known by its name; returns it (a game module ends with `GAME = register(...)`)."""
    _GAMES[game.name] = game
    return game


def _modules() -> list[str]:
    import arena.games

    return [m.name for m in pkgutil.iter_modules(arena.games.__path__) if m.name not in _NOT_GAMES]


def game_names() -> list[str]:
    """The names of every game of the package (and of any registered from elsewhere), sorted."""
    for module in _modules():
        importlib.import_module(f"arena.games.{module}")
    return sorted(_GAMES)


def get_game(name: str) -> Game:
    """The registered game called name; raises UnknownGame."""
    if name not in _GAMES and name.isidentifier() and name not in _NOT_GAMES:
        if importlib.util.find_spec(f"arena.games.{name}") is not None:
            importlib.import_module(f"arena.games.{name}")
    if name not in _GAMES:
        raise UnknownGame(name)
    return _GAMES[name]
