"""Discovery of registered bots: each game folder's `bots` (its BOTS list), and entry points `arena.bots`.

A family's folder (registry.py) registers its bots under the folder's name; they play every game
of the family (`FOLDER:SPEC`).
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass, replace
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from arena.games import folder_of, game_folders, game_module
from protocol.bot import Bot
from protocol.options import options_of

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "arena.bots"


@dataclass(frozen=True)
class RegisteredBot:
    """A bot known by name for one game."""

    game: str
    name: str
    target: str  # module:Class, loadable by `python -m protocol.run`
    description: str
    source: str  # the entry point (or built-in package) that provided it
    options: tuple[str, ...] = ()  # "name=default" (or "name" when off by default)
    strength: int = 0  # the class's rank among its game's bots (higher: stronger)
    fixed_effort: str = ""  # options under which its moves depend on its seed alone


def _bots_of(obj: Any) -> list[type[Bot]]:
    """The Bot classes an entry point's object stands for: a class, a list, or a module's BOTS."""
    if inspect.isclass(obj) and issubclass(obj, Bot):
        return [obj]
    if isinstance(obj, ModuleType):
        obj = getattr(obj, "BOTS", [])
    if isinstance(obj, (list, tuple)):
        return [item for item in obj if inspect.isclass(item) and issubclass(item, Bot)]
    return []


def _first_line(text: str | None) -> str:
    lines = (text or "").strip().splitlines()
    return lines[0] if lines else ""


def _register(found: dict[tuple[str, str], RegisteredBot], obj: Any, source: str, game: str = "") -> None:
    """Add the bots obj stands for; game: the folder they came from (their game, whatever the class says)."""
    for cls in _bots_of(obj):
        plays = game or cls.game
        if not plays or not cls.name:
            log.warning("bot %s from %s lacks a game or name; skipped", cls.__qualname__, source)
            continue
        found.setdefault(
            (plays, cls.name),
            RegisteredBot(
                plays,
                cls.name,
                f"{cls.__module__}:{cls.__qualname__}",
                cls.description or _first_line(cls.__doc__),
                source,
                options_of(cls),
                int(getattr(cls, "strength", 0)),
                str(getattr(cls, "fixed_effort", "")),
            ),
        )


def _scan() -> dict[tuple[str, str], RegisteredBot]:
    found: dict[tuple[str, str], RegisteredBot] = {}
    for name, folder in sorted(game_folders().items()):
        try:
            module = game_module(name, "bots")
        except Exception as exc:  # a game's broken bots must not break the other games
            log.warning("cannot load the bots of game %s (%s): %s: %s", name, folder.path, type(exc).__name__, exc)
            continue
        if module is not None:
            _register(found, module, f"game folder {folder.path}", game=name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as exc:  # a broken third-party plug-in must not break the arena
            log.warning("cannot load bot entry point %s = %s: %s", ep.name, ep.value, exc)
            continue
        _register(found, obj, f"entry point {ep.name}")
    return found


_cache: dict[tuple[tuple[str, str], ...], dict[tuple[str, str], RegisteredBot]] = {}


def registered_bots() -> dict[tuple[str, str], RegisteredBot]:
    """Every registered bot, keyed by (game, name): the games' own, then the entry points'."""
    key = tuple(sorted((name, str(folder.path)) for name, folder in game_folders().items()))
    if key not in _cache:
        _cache.clear()
        _cache[key] = _scan()
    return _cache[key]


def bots_for(game: str) -> list[RegisteredBot]:
    """The registered bots of one game (a family's game: the family's bots), sorted by name."""
    home = folder_of(game)
    found = (b for (g, _), b in registered_bots().items() if g in (game, home))
    return sorted((replace(b, game=game) for b in found), key=lambda b: b.name)


def registered_bot(game: str, name: str) -> RegisteredBot | None:
    """The bot of that name registered for a game (a family's game: for its family), or None."""
    return next((bot for bot in bots_for(game) if bot.name == name), None)
