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
    every match, so a bot is deterministic for a given seed.
    """

    name: ClassVar[str] = ""  # registered name, e.g. "random"
    # Rank among the reference bots of its game (higher: stronger); `arena play` picks the
    # strongest registered bot as the default opponent.
    strength: ClassVar[int] = 0
    game: ClassVar[str] = ""  # the game it plays, e.g. "blocking"
    description: ClassVar[str] = ""
    # The players' names, one per seat, when the arena reveals them (init's `names`), else None:
    # set before every init_game.
    names: list[str] | None = None

    def __init__(self, seed: int = 0, **options: Any) -> None:
        self.seed = seed
        self.options = options
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


class KeyValueError(ValueError):
    """A `KEY=VALUE` item without its `=` or its key."""

    def __init__(self, pair: str) -> None:
        super().__init__(f"{pair!r} is not KEY=VALUE")
        self.pair = pair


def parse_key_values(pairs: Iterable[str]) -> dict[str, Any]:
    """`KEY=VALUE` items as a map: values are JSON when they parse, else strings; keys are stripped.

    The one reader of bot options (`-o`, `name:k=v,...`), `--set` setup values and `--sprt`.
    """
    values: dict[str, Any] = {}
    for pair in pairs:
        key, sep, raw = pair.partition("=")
        if not sep or not key.strip():
            raise KeyValueError(pair)
        try:
            values[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            values[key.strip()] = raw
    return values


def options_of(cls: type[Bot]) -> tuple[str, ...]:
    """The keyword options a bot class accepts, from its constructors: name=default (JSON)."""
    shown = []
    for name, default in _defaults(cls).items():
        try:
            shown.append(name if default is None else f"{name}={json.dumps(default)}")
        except TypeError:  # not a value a spec could give: shown as Python writes it
            shown.append(f"{name}={default!r}")
    return tuple(shown)


def _defaults(cls: type[Bot]) -> dict[str, Any]:
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


def _kind_of(default: Any) -> tuple[tuple[type, ...], str] | None:
    """The values an option with this default takes, and their name; None: anything."""
    if isinstance(default, bool):
        return (bool,), "true or false"
    if isinstance(default, int):
        return (int,), "an integer"
    if isinstance(default, float):
        return (int, float), "a number"
    if isinstance(default, str):
        return (str,), "a string"
    return None


def build_bot(cls: type[Bot], options: dict[str, Any]) -> Bot:
    """An instance of cls with options, each of the type of its default; TypeError names a wrong one."""
    defaults = _defaults(cls)
    for name, value in options.items():
        kind = _kind_of(defaults.get(name))
        if kind is None or (isinstance(value, kind[0]) and not (isinstance(value, bool) and bool not in kind[0])):
            continue
        raise TypeError(f"option {name} must be {kind[1]}, not {json.dumps(value)}")
    return cls(**options)
