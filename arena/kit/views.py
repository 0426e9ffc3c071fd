"""The terminal view of a game: its folder's VIEW, else the kit's generic one (arena/kit/terminal.py)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games import game_module, get_game
from arena.kit.terminal import Terminal, View


def view_class(game: str) -> type[View]:
    """The view class of a game: its view.py's VIEW, or the generic View."""
    module = game_module(game, "view")
    cls = getattr(module, "VIEW", None) if module is not None else None
    if module is not None and not (isinstance(cls, type) and issubclass(cls, View)):
        raise TypeError(f"{module.__name__}: VIEW must be a subclass of arena.kit.terminal.View, got {cls!r}")
    return cls or View


def view_for(game: str, term: Terminal, names: Sequence[str], humans: Sequence[int]) -> View:
    """The view of a game for these seats' names, the humans among them playing at this terminal."""
    return view_class(game)(get_game(game), term, names, humans)
