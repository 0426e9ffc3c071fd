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


class Readme(Bot):
    """The README's pattern: its own option by name, the rest passed on to Bot."""

    def __init__(self, depth: int = 2, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.depth = depth


class Swallows(Bot):
    """A constructor that takes any keyword and passes none of them on."""

    def __init__(self, depth: int = 2, **options: object) -> None:
        super().__init__()
        self.depth = depth


@pytest.mark.parametrize("cls", [Readme, Swallows])
def test_an_option_no_constructor_names_is_refused_in_one_line(cls: type[Bot]) -> None:
    with pytest.raises(TypeError) as caught:
        build_bot(cls, {"dept": 5})
    assert str(caught.value) == f"unknown option 'dept' (options of {cls.__name__}: depth=2, seed=0)"
    assert build_bot(cls, {"depth": 5, "seed": 3}).depth == 5  # type: ignore[attr-defined]


def test_a_plain_bot_built_by_hand_refuses_an_unknown_option_too() -> None:
    with pytest.raises(TypeError, match=r"^unknown option 'dept', 'widht' \(options of Readme: depth=2, seed=0\)$"):
        Readme(dept=5, widht=3)
    assert Readme(depth=4, seed=1).depth == 4
