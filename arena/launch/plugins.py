"""Discovery of registered bots: entry points in the group `arena.bots`."""

from __future__ import annotations

import importlib
import inspect
import logging
from dataclasses import dataclass
from functools import lru_cache
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any

from protocol.bot import Bot
from protocol.options import options_of

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "arena.bots"
# The reference bots, found even when the project runs from a source tree without install.
BUILTIN_PACKAGES = ("bots.arrows", "bots.blocking", "bots.tiles", "bots.tenten", "bots.blocky")


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


def _register(found: dict[tuple[str, str], RegisteredBot], obj: Any, source: str) -> None:
    for cls in _bots_of(obj):
        if not cls.game or not cls.name:
            log.warning("bot %s from %s lacks a game or name; skipped", cls.__qualname__, source)
            continue
        key = (cls.game, cls.name)
        found.setdefault(
            key,
            RegisteredBot(
                cls.game,
                cls.name,
                f"{cls.__module__}:{cls.__qualname__}",
                cls.description or _first_line(cls.__doc__),
                source,
                options_of(cls),
                int(getattr(cls, "strength", 0)),
            ),
        )


@lru_cache(maxsize=1)
def registered_bots() -> dict[tuple[str, str], RegisteredBot]:
    """Every registered bot, keyed by (game, name)."""
    found: dict[tuple[str, str], RegisteredBot] = {}
    seen_modules = set()
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            obj = ep.load()
        except Exception as exc:  # a broken third-party plug-in must not break the arena
            log.warning("cannot load bot entry point %s = %s: %s", ep.name, ep.value, exc)
            continue
        seen_modules.add(ep.value)
        _register(found, obj, f"entry point {ep.name}")
    for package in BUILTIN_PACKAGES:
        if package in seen_modules:
            continue
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        _register(found, module, package)
    return found


def bots_for(game: str) -> list[RegisteredBot]:
    """The registered bots of one game, sorted by name."""
    return sorted((b for (g, _), b in registered_bots().items() if g == game), key=lambda b: b.name)
