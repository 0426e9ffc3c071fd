"""The integrity check's statistics: the rating model, the tests, Holm's correction, and their calibration.

Results drawn from the model itself (seeded) must flag no honest pair, and a player that
loses every game to an equal partner must be flagged once they have played enough.
"""

from __future__ import annotations

import math
import random

import pytest

from arena.integrity.model import Fit, Outcome, probabilities
from arena.integrity.records import Game, Player, Results
from arena.integrity.report import analyse
from arena.integrity.stats import PairGame, Stratum, blunder_test, holm, score_test


def test_holm_adjusts_each_p_value_by_its_rank_and_keeps_the_order() -> None:
    assert holm([0.01, 0.04, 0.03, 0.5]) == pytest.approx([0.04, 0.09, 0.09, 0.5])
    assert holm([0.2, 0.3]) == pytest.approx([0.4, 0.4])
    assert holm([]) == []


def test_the_score_test_is_the_binomial_tail_when_the_strengths_are_known() -> None:
    games = [PairGame(True, 0.0)] * 4  # four games moving first, all lost
    expected, p = score_test(games, 0.0, 0.0, 0.0, 0.0)
    assert expected == pytest.approx(2.0) and p == pytest.approx(1 / 16)
    half = [PairGame(True, 0.5), PairGame(False, 0.0)]  # a draw and a loss: half a point
    win, draw, _ = probabilities(0.0, 1.0)
    _, p = score_test(half, 0.0, 0.0, 0.0, 1.0)
    assert p == pytest.approx((1 - win) * (1 - win) - draw * draw)  # 0 or 0.5 points: not (win or draw twice)
    # An uncertain strength difference makes the same results less surprising.
    assert score_test(games, 0.0, 1.0, 0.0, 0.0)[1] > 1 / 16


def test_the_blunder_test_is_hypergeometric_within_strata() -> None:
    # Two blunders in ten moves, both against the opponent's two moves: 1 / C(10, 2).
    assert blunder_test([Stratum(2, 2, 2, 10)]) == pytest.approx(1 / 45)
    assert blunder_test([Stratum(0, 2, 0, 10)]) is None  # no blunder at all: nothing can vary
    # Against the opponent every move was in positions where most moves lose, as they were for all blunders:
    # pooled, 3 of 3 against 1 of 9 looks damning; stratified, it is what the player does there.
    pooled = blunder_test([Stratum(3, 3, 4, 12)])
    stratified = blunder_test([Stratum(3, 3, 4, 4), Stratum(0, 0, 0, 8)])
    assert pooled is not None and pooled < 0.02
    assert stratified is None


def game(a: int, b: int, points: float, k: int) -> Game:
    return Game(f"g{k}", (f"p{a}", f"p{b}"), points, "0", None)


def draw(rng: random.Random, mu: float, nu: float = 0.0) -> float:
    win, tie, _ = probabilities(mu, nu)
    u = rng.random()
    return 1.0 if u < win else 0.5 if u < win + tie else 0.0


def round_robin(rng: random.Random, players: int, per_pair: int, theta: list[float],
                throw: bool = False) -> Results:
    """A round robin drawn from the model (first-move advantage 0.3); with throw, p0 loses every game to p1."""
    games = []
    for i in range(players):
        for j in range(i + 1, players):
            for k in range(per_pair):
                a, b = (i, j) if k % 2 == 0 else (j, i)
                points = draw(rng, theta[a] - theta[b] + 0.3)
                if throw and (a, b) in ((0, 1), (1, 0)):
                    points = 0.0 if a == 0 else 1.0
                games.append(game(a, b, points, len(games)))
    return Results("simulated", "none", {f"p{k}": Player(f"p{k}", f"p{k}") for k in range(players)}, games)


def test_the_fit_recovers_strengths_and_a_pair_left_out_is_one_newton_step_from_a_refit() -> None:
    rng = random.Random(4)
    theta = [-1.0, -0.3, 0.0, 0.4, 1.2]
    outcomes = [Outcome(int(g.seats[0][1]), int(g.seats[1][1]), g.points)
                for g in round_robin(rng, 5, 80, theta).games]
    fit = Fit(5, outcomes)
    centre = sum(fit.x[:5]) / 5
    assert [round(x - centre, 1) for x in fit.x[:5]] == pytest.approx(theta, abs=0.2)
    assert fit.h == pytest.approx(0.3, abs=0.1) and fit.nu == 0
    pair = [o for o in outcomes if {o.first, o.second} == {0, 4}]
    x, cov = fit.without(pair, [0, 4, fit.h_index])
    exact = Fit(5, [o for o in outcomes if {o.first, o.second} != {0, 4}])
    assert x == pytest.approx([exact.x[0], exact.x[4], exact.h], abs=0.02)
    assert cov[0][0] == pytest.approx(exact.cov[0][0], rel=0.05)


def test_honest_results_drawn_from_the_model_flag_nobody() -> None:
    rng = random.Random(11)
    pairs = 0
    for _ in range(6):
        theta = [rng.gauss(0, 1) for _ in range(6)]
        report = analyse(round_robin(rng, 6, 8, theta))
        assert report.flagged == [], [f.line(report.labels) for f in report.flagged]
        pairs += len(report.findings)
        assert all(0 <= f.p <= 1 and f.p <= f.adjusted <= 1 for f in report.findings)
    assert pairs == 6 * 30


def test_a_player_losing_every_game_to_an_equal_partner_is_flagged_first() -> None:
    rng = random.Random(12)
    theta = [0.5, 0.5, -0.5, 0.0, 1.0, -1.0]
    report = analyse(round_robin(rng, 6, 24, theta, throw=True))
    assert [(f.player, f.opponent) for f in report.flagged] == [("p0", "p1")]
    first = report.flagged[0]
    assert first.points == 0 and first.expected > 8 and first.games == 24
    assert math.isclose(first.p, first.p_results)  # results only: no solver, no second test to pay for
