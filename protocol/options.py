"""Bot options given as text: `KEY=VALUE` items, and a Bot class built with them, each checked against its constructors.

The command line's reader of `-o`, `name:k=v,...`, `--set` and `--sprt`, and the runner's
check of a bot's options (what options a class takes is read from its constructors in bot.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from protocol.bot import Bot, option_defaults, option_names, options_of, unknown_options

__all__ = ["KeyValueError", "build_bot", "option_names", "options_of", "parse_key_values", "unknown_options"]


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
    """An instance of cls with options, each named by a constructor and of its default's type; TypeError otherwise."""
    unknown = [name for name in options if name not in option_names(cls)]
    if unknown:
        raise TypeError(unknown_options(cls, unknown))
    defaults = option_defaults(cls)
    for name, value in options.items():
        kind = _kind_of(defaults.get(name))
        if kind is None or (isinstance(value, kind[0]) and not (isinstance(value, bool) and bool not in kind[0])):
            continue
        raise TypeError(f"option {name} must be {kind[1]}, not {json.dumps(value)}")
    return cls(**options)
