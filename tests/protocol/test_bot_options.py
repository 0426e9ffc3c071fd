"""Options of a bot class are checked against their defaults' types before the bot is built."""

from __future__ import annotations

import pytest

from protocol.bot import Bot
from protocol.options import build_bot


class Tuned(Bot):
    """A bot with one option of each kind."""

    def __init__(self, depth: int = 3, weight: float = 0.5, greedy: bool = False, name: str = "t",
                 extra: object = None) -> None:
        self.depth, self.weight, self.greedy, self.name, self.extra = depth, weight, greedy, name, extra


def test_options_of_the_right_types_build_the_bot() -> None:
    bot = build_bot(Tuned, {"depth": 5, "weight": 1, "greedy": True, "name": "x", "extra": [1, 2]})
    assert isinstance(bot, Tuned) and (bot.depth, bot.weight, bot.greedy, bot.extra) == (5, 1, True, [1, 2])


@pytest.mark.parametrize(("options", "message"), [
    ({"depth": "x"}, 'option depth must be an integer, not "x"'),
    ({"depth": 1.5}, "option depth must be an integer, not 1.5"),
    ({"depth": True}, "option depth must be an integer, not true"),
    ({"weight": "heavy"}, 'option weight must be a number, not "heavy"'),
    ({"greedy": 1}, "option greedy must be true or false, not 1"),
    ({"name": 3}, "option name must be a string, not 3"),
])
def test_an_option_of_the_wrong_type_is_named(options: dict, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        build_bot(Tuned, options)


def test_an_unknown_option_is_still_refused_by_the_constructor() -> None:
    with pytest.raises(TypeError, match="colour"):
        build_bot(Tuned, {"colour": "red"})
