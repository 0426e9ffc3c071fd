"""The Python bot SDK: subclass Bot, implement its handlers, serve it with protocol.run."""

from __future__ import annotations

import inspect
import json
import random
from collections.abc import Iterable
from typing import Any, ClassVar


class Bot:
    """Base class of a Python bot; one instance serves any number of matches in a row.

    Options given on the command line (`name:key=value,...` or `--option key=value`) or
    in a tournament config arrive as keyword arguments; `seed` seeds `self.rng` afresh for
    every match, so a bot is deterministic for a given seed. An option is a parameter of a
    constructor: one that reaches Bot's own is refused (a misspelt option is an error, never
    a silent default).
    """

    name: ClassVar[str] = ""  # registered name, e.g. "random"
    # Rank among the reference bots of its game (higher: stronger); `arena play` picks the
    # strongest registered bot as the default opponent.
    strength: ClassVar[int] = 0
    game: ClassVar[str] = ""  # the game it plays, e.g. "blocking"
    # Options under which its moves depend on its seed alone (a searcher's fixed effort instead of
    # its clock), for runs that must repeat move for move: "nodes=3000".
    fixed_effort: ClassVar[str] = ""
    description: ClassVar[str] = ""
    # The players' names, one per seat, when the arena reveals them (init's `names`), else None:
    # set before every init_game.
    names: list[str] | None = None

    def __init__(self, seed: int = 0, **options: Any) -> None:
        if options:  # every constructor above took its own options by name: these are no one's
            raise TypeError(unknown_options(type(self), options))
        self.seed = seed
        self.rng = random.Random(seed)

    def reseed(self, match: str, seat: int) -> None:
        """Seed self.rng from the bot's seed and the match (called before init_game)."""
        self.rng = random.Random(f"{self.seed}:{match}:{seat}")

    def init_game(
        self,
        game: str,
        seat: int,
        players: int,
        setup: dict[str, Any],
        time_left_ms: int,
        match: str,
    ) -> None:
        """A match starts: remember whatever is needed (the clock is already running)."""

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        """Return a move; events holds [seat, move] and [-1, payload] since the last turn."""
        raise NotImplementedError

    def end_game(
        self, scores: list[float], ranks: list[int], reason: str, offender: int | None
    ) -> None:
        """The match is over (no answer is expected)."""


# --- a bot class's options: the parameters of its constructors --------------------------


def options_of(cls: type[Bot]) -> tuple[str, ...]:
    """The keyword options a bot class accepts, from its constructors: name=default (JSON)."""
    shown = []
    for name, default in option_defaults(cls).items():
        try:
            shown.append(name if default is None else f"{name}={json.dumps(default)}")
        except TypeError:  # not a value a spec could give: shown as Python writes it
            shown.append(f"{name}={default!r}")
    return tuple(shown)


def option_defaults(cls: type[Bot]) -> dict[str, Any]:
    """Each keyword option's default, from the most derived constructor that declares it."""
    found: dict[str, Any] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        for param in inspect.signature(init).parameters.values():
            if param.kind not in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY):
                continue
            if param.name != "self" and param.default is not param.empty:
                found.setdefault(param.name, param.default)
    return found


def option_names(cls: type[Bot]) -> set[str]:
    """The names the constructors of cls (its own and its bases') take as parameters: its options."""
    names: set[str] = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        names.update(param.name for param in inspect.signature(init).parameters.values()
                     if param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY) and param.name != "self")
    return names


def unknown_options(cls: type[Bot], unknown: Iterable[str]) -> str:
    """`unknown option 'dept' (options of TilesV2: depth=2, seed=0)`: the refusal of options cls does not take."""
    known = ", ".join(options_of(cls)) or "none"
    names = ", ".join(repr(name) for name in unknown)
    return f"unknown option {names} (options of {cls.name or cls.__name__}: {known})"
