"""Bot options given as text: `KEY=VALUE` items, and a Bot class built with them, each checked against its constructors.

The command line's reader of `-o`, `name:k=v,...`, `--set` and `--sprt`, and the runner's
check of a bot's options; the SDK itself (bot.py) needs neither.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Iterable
from typing import Any

from protocol.bot import Bot


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
    return f"unknown option {', '.join(repr(name) for name in unknown)} (options of {cls.name or cls.__name__}: {known})"


def build_bot(cls: type[Bot], options: dict[str, Any]) -> Bot:
    """An instance of cls with options, each named by a constructor and of its default's type; TypeError otherwise."""
    unknown = [name for name in options if name not in option_names(cls)]
    if unknown:
        raise TypeError(unknown_options(cls, unknown))
    defaults = _defaults(cls)
    for name, value in options.items():
        kind = _kind_of(defaults.get(name))
        if kind is None or (isinstance(value, kind[0]) and not (isinstance(value, bool) and bool not in kind[0])):
            continue
        raise TypeError(f"option {name} must be {kind[1]}, not {json.dumps(value)}")
    return cls(**options)
