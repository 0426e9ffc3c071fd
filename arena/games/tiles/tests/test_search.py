"""Tiles search: the compact rules, plain negamax, alpha-beta, Monte-Carlo and their bots."""

from __future__ import annotations

import random
import time

import pytest

from arena.games import get_game
from protocol.bot import Bot
from tests.helpers import duel, run

from ..bots import BOTS
from ..bots.montecarlo import MonteCarloBot
from ..bots.perfect import PerfectBot
from ..bots.search import AlphaBeta, PlainNegamax, Rules, engine_move, monte_carlo
from ..bots.simple import GreedyBot, RandomBot
from ..rules import TilesState, distinct_moves

GAME = get_game("tiles")


def position_for(seed: int, options: dict | None = None) -> TilesState:
    """A seeded random position (some rows already holding tiles, either seat to move)."""
    rng = random.Random(seed)
    partial = {"fill": 0.3, "min_pot": 6, "max_pot": 16, "to_move": seed % 2, **(options or {})}
    return GAME.new_state(GAME.random_setup(rng, 2, partial))


def engine_best(state: TilesState) -> tuple[int, int]:
    """besteScore written on the engine itself: (score for the mover, states visited)."""
    if state.is_over():
        mover = state.mover
        return int(state.scores()[mover]), 1
    best, states = None, 1
    for move in distinct_moves(state):
        child = state.copy()
        child.apply(move)
        score, count = engine_best(child)
        states += count
        best = -score if best is None else max(best, -score)
    assert best is not None
    return best, states


def test_perfect_and_montecarlo_are_registered() -> None:
    names = [bot.name for bot in BOTS]
    assert "perfect" in names and "montecarlo" in names


def test_compact_rules_follow_the_engine_through_random_games() -> None:
    for seed in range(40):
        state = position_for(seed, {"max_pot": 40})
        rules, position = Rules.from_state(state)
        rng = random.Random(seed)
        while True:
            assert rules.is_over(position) == state.is_over()
            mover = state.mover
            assert rules.score(position) == state.scores()[mover]
            if state.is_over():
                break
            moves = [engine_move(m) for m in rules.distinct_moves(position)]
            assert moves == distinct_moves(state)
            assert [engine_move(m) for m in rules.moves(position)] == state.legal_moves()
            move = rng.choice(list(rules.moves(position)))
            position = rules.play(position, move)
            state.apply(engine_move(move))


def test_plain_negamax_is_besteScore_with_its_state_count() -> None:
    for seed in range(12):
        state = position_for(seed, {"max_pot": 10})
        rules, position = Rules.from_state(state)
        plain = PlainNegamax(rules)
        score, _ = plain.best(position)
        assert (score, plain.states) == engine_best(state)


@pytest.mark.parametrize("seed", range(36))
def test_alpha_beta_agrees_with_plain_negamax(seed: int) -> None:
    state = position_for(seed)
    rules, position = Rules.from_state(state)
    plain = PlainNegamax(rules, max_states=2_000_000)
    expected, _ = plain.best(position)
    search = AlphaBeta(rules)
    score, move = search.solve(position)
    assert score == expected
    if move is None:
        assert rules.is_over(position)
    else:
        # The move it names really reaches that score.
        child = rules.play(position, move)
        assert -PlainNegamax(rules).best(child)[0] == expected
    if plain.states > 1000:
        assert search.states * 5 < plain.states


def test_alpha_beta_table_carries_over_between_moves() -> None:
    state = position_for(5, {"min_pot": 14, "max_pot": 14})
    rules, position = Rules.from_state(state)
    search = AlphaBeta(rules)
    score, move = search.solve(position)
    assert move is not None
    first = search.states
    child = rules.play(position, move)
    assert search.solve(child)[0] == -score
    assert search.states - first <= 2  # the reply's position was already solved


def test_monte_carlo_is_seeded_and_picks_a_distinct_move() -> None:
    state = position_for(3, {"max_pot": 30})
    rules, position = Rules.from_state(state)
    first = monte_carlo(rules, position, 50, random.Random(1))
    assert first == monte_carlo(rules, position, 50, random.Random(1))
    move, means = first
    assert move in rules.distinct_moves(position)
    assert len(means) == len(rules.distinct_moves(position))
    assert means[rules.distinct_moves(position).index(move)] == max(means)


def test_monte_carlo_stops_at_its_deadline_after_one_round() -> None:
    state = position_for(4, {"min_pot": 200, "max_pot": 200, "min_rows": 8, "max_rows": 8})
    rules, position = Rules.from_state(state)
    started = time.monotonic()
    move, _ = monte_carlo(rules, position, 10_000, random.Random(0), deadline=started)
    assert move is not None and time.monotonic() - started < 1.0


def play(setup: dict, bots: list[Bot], budget_ms: int = 10_000) -> tuple[TilesState, list[int]]:
    return duel("tiles", setup, bots, budget_ms)


def test_perfect_never_scores_below_the_value_of_its_seat() -> None:
    for seed in range(8):
        setup = GAME.random_setup(random.Random(seed), 2, {"max_pot": 24})
        rules, position = Rules.from_state(GAME.new_state(setup))
        value = AlphaBeta(rules).solve(position)[0]  # for seat 0, who moves first
        for seat in (0, 1):
            for opponent in (RandomBot(seed=seed), GreedyBot()):
                bots: list[Bot] = [opponent, opponent]
                bots[seat] = PerfectBot()
                state, _ = play(setup, bots)
                assert state.scores()[seat] >= (value if seat == 0 else -value)


def test_montecarlo_beats_random_most_of_the_time() -> None:
    points = games = 0.0
    for seed in range(10):
        setup = GAME.random_setup(random.Random(100 + seed), 2)
        for seat in (0, 1):
            bots: list[Bot] = [RandomBot(seed=seed), RandomBot(seed=seed)]
            bots[seat] = MonteCarloBot(simulations=30)
            state, _ = play(setup, bots)
            mine, theirs = state.scores()[seat], state.scores()[1 - seat]
            points += 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
            games += 1
    assert points / games >= 0.7


def test_perfect_falls_back_to_monte_carlo_when_short_of_time() -> None:
    setup = GAME.random_setup(random.Random(9), 2, {"min_pot": 300, "max_pot": 300, "min_rows": 10,
                                                     "max_rows": 10, "min_row_len": 6, "max_row_len": 6})
    bot = PerfectBot(simulations=5)
    bot.reseed("m", 0)
    bot.init_game("tiles", 0, 2, setup, 300, "m")
    started = time.monotonic()
    move = bot.turn([], 300)
    assert time.monotonic() - started < 1.5  # its 300 ms, with room for a loaded machine
    assert not bot.exact and move in GAME.new_state(setup).legal_moves()


def test_bad_simulations_option_is_refused() -> None:
    with pytest.raises(ValueError):
        MonteCarloBot(simulations=0)
    with pytest.raises(ValueError):
        PerfectBot(simulations="many")


def test_real_processes_play_whole_matches() -> None:
    setup = GAME.random_setup(random.Random(2), 2)
    for bots in (["perfect", "random"], ["random", "montecarlo:simulations=40"]):
        result, _ = run("tiles", bots, setup)
        assert result.offender is None and result.reason in ("normal", "blocked")
