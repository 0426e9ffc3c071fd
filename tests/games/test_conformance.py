"""The game conformance test: every registered game is checked just by being registered.

The checks themselves live in arena.games.conformance (also `arena check-game`); this file
runs them for every registered game and shows that a broken game is reported.
"""

from __future__ import annotations

from typing import Any

import pytest

from arena.games import IllegalMove, State, game_names, get_game
from arena.games.conformance import CHECKS, check_game, position
from tests.fixtures.broken_game import BrokenCountdown, Countdown, CountdownState

GAMES_PER_ENGINE = 60  # seeded playouts a game (check-game plays 20); the suite's time budget


@pytest.mark.parametrize("name", game_names())
def test_seeded_random_games_keep_the_contract(name: str) -> None:
    report = check_game(get_game(name), seeds=GAMES_PER_ENGINE)
    assert report.ok, "\n".join(report.lines())
    assert [r.check.key for r in report.results] == [c.key for c in CHECKS]


@pytest.mark.parametrize("name", game_names())
def test_game_metadata(name: str) -> None:
    game = get_game(name)
    assert game.name == name
    assert isinstance(game.version, int) and game.version >= 1
    assert 1 <= game.min_players <= game.max_players <= 4


def test_a_correct_plug_in_game_passes() -> None:
    report = check_game(Countdown())
    assert report.ok, "\n".join(report.lines())
    assert report.lines()[-1] == "countdown: all 13 checks pass (20 random games)"


def test_a_broken_game_is_reported_check_by_check() -> None:
    report = check_game(BrokenCountdown())
    assert not report.ok
    assert report.failed() == ["legal", "copy"]
    lines = report.lines()
    assert "FAIL  legal moves stay legal over 20 random games" in lines
    assert "FAIL  copies are independent of the original" in lines
    assert "ok    malformed moves raise IllegalMove and change nothing" in lines
    assert lines[-1] == "countdown: 2 of 13 checks FAIL (20 random games)"
    refused = next(p for p in report.problems if p.check == "legal")
    assert str(refused).startswith(f"seed {refused.seed}, ply {refused.ply}, 2 players: legal move 3 was refused")


def test_a_problem_names_the_seed_and_ply_that_reproduce_it() -> None:
    game = BrokenCountdown()
    for problem in (p for p in check_game(game).problems if p.check == "legal"):
        assert problem.seed is not None and problem.ply is not None
        state = position(game, problem.seed, problem.ply)
        assert 3 in state.legal_moves()
        with pytest.raises(IllegalMove):
            state.apply(3)


class _RenderRaises(CountdownState):
    def render(self) -> str:
        raise RuntimeError("no picture")


class _Unrenderable(Countdown):
    def start(self, setup: Any, players: int, seed: int) -> tuple[State, list[Any]]:
        setup = self.validate_setup(setup, players)
        return _RenderRaises(self, setup["count"], setup["to_move"]), []

    def state_from_data(self, data: Any) -> State:
        return _RenderRaises(self, int(data["count"]), int(data["to_move"]))


def test_a_game_method_that_raises_is_a_problem_not_a_crash() -> None:
    report = check_game(_Unrenderable(), seeds=3)
    assert report.failed() == ["render"]
    assert str(report.problems[0]) == "seed 0, ply 0, 2 players: render raised RuntimeError: no picture"


def test_a_game_that_does_not_end_is_reported() -> None:
    report = check_game(Countdown(), seeds=2, max_plies=1)
    assert report.failed() == ["end"]
    assert "did not end within 1 plies" in report.problems[0].message
