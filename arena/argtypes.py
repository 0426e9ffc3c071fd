"""The command line's shared parts: exit codes, one-line errors, number types, setups from options."""

from __future__ import annotations

import argparse
from typing import Any, NoReturn

from arena.games import Game, GameError, UnknownGame, get_game
from arena.setups import SetupFileError, complete_setup, load_setup_file, parse_set_values

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


class CliError(Exception):
    """Bad input on the command line: reported as one line, exit status 2."""


class DefaultsFormatter(argparse.HelpFormatter):
    """Help that states each option's default, where it has a meaningful one and does not say it already."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (action.option_strings and default not in (None, False, [], argparse.SUPPRESS)
                and "default" not in text and "%(default)" not in text):
            text += " (default: %(default)s)"
        return text


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2, and whose help shows defaults."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def find_game(name: str) -> Game:
    """The registered game of that name; CliError naming the known ones."""
    try:
        return get_game(name)
    except UnknownGame as exc:
        raise CliError(str(exc)) from None


def _number(text: str, kind: type[int] | type[float], least: float, above: bool, refusal: str) -> Any:
    """text as an int or float of at least least (above: more than it); ArgumentTypeError saying which."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
    if not (value > least if above else value >= least):
        raise argparse.ArgumentTypeError(f"{text!r} {refusal}")
    return value


def non_negative_int(text: str) -> int:
    """An integer of at least 0."""
    return int(_number(text, int, 0, False, "must not be negative"))


def positive_int(text: str) -> int:
    """An integer of at least 1."""
    return int(_number(text, int, 1, False, "must be positive"))


def positive_seconds(text: str) -> float:
    """A number of seconds above 0."""
    return float(_number(text, float, 0, True, "must be positive"))


def resolve_setup(game_name: str, setup_file: str | None, sets: list[str], players: int, seed: int) -> dict[str, Any]:
    """--setup FILE, overridden by --set values, completed from the seed, validated."""
    game = find_game(game_name)
    try:
        partial = load_setup_file(setup_file, game) if setup_file else {}
        partial.update(parse_set_values(sets))
        return complete_setup(game, partial, players, seed)
    except (SetupFileError, GameError) as exc:
        raise CliError(str(exc)) from None
