"""Judging each pair's results against the ratings: predictions without the pair, the pairs' spread, a second look.

Every pair is judged by the model fitted without its own games (one Newton step away from
the full fit, model.Fit.without) and by the spread of pair effects that best explains the
other pairs (stats.pair_spreads). A colluding pair bends both yardsticks a little even so:
its thrown games move the two players' ratings, so the other pairs of those players stray
from their predictions and the spread looks wider than it is. So the most suspicious pairs
are judged a second time, each with a fit that never saw its games (exact, not one step)
and the spread of the pairs of that fit.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from arena.integrity.model import Fit, Outcome
from arena.integrity.records import Game
from arena.integrity.stats import SPREADS, PairGame, log_likelihood, pair_spreads, score_test

REJUDGED = 5  # the most suspicious pairs judged a second time, with a fit that never saw their games

Pair = frozenset[str]


@dataclass(frozen=True)
class ResultTest:
    """One player's results against one opponent, judged: expected points and the p-value of scoring so few."""

    player: str
    opponent: str
    games: tuple[Game, ...]  # the distinct games of the two
    side: tuple[PairGame, ...]  # the same, from the player's side
    expected: float
    p: float
    spread: float  # the sd of pair effects (logit) it was judged with


@dataclass(frozen=True)
class _Prediction:
    """A pair's games and what a model fitted without them says of the first player's strength difference."""

    a: str
    b: str
    games: tuple[Game, ...]
    diff: float
    var: float
    h: float
    nu: float

    def side(self, player: str) -> tuple[PairGame, ...]:
        """The pair's games from one player's side."""
        return tuple(PairGame(g.seats[0] == player, g.points if g.seats[0] == player else 1.0 - g.points)
                     for g in self.games)

    def tests(self, spread: float) -> list[ResultTest]:
        """Both players' tests with a given spread of pair effects."""
        found = []
        for player, opponent, sign in ((self.a, self.b, 1.0), (self.b, self.a, -1.0)):
            side = self.side(player)
            expected, p = score_test(side, sign * self.diff, self.var + spread * spread, self.h, self.nu)
            found.append(ResultTest(player, opponent, self.games, side, expected, p, spread))
        return found


def fit_games(index: dict[str, int], games: list[Game]) -> Fit:
    """The model fitted to games (ModelError when it cannot be)."""
    return Fit(len(index), [Outcome(index[g.seats[0]], index[g.seats[1]], g.points) for g in games])


def _by_pair(games: list[Game]) -> dict[Pair, list[Game]]:
    by_pair: dict[Pair, list[Game]] = defaultdict(list)
    for game in games:
        if game.seats[0] != game.seats[1]:
            by_pair[frozenset(game.seats)].append(game)
    return by_pair


def _ordered(pair: Pair, index: dict[str, int]) -> tuple[str, str]:
    a, b = sorted(pair, key=index.__getitem__)
    return a, b


def _predictions(fit: Fit, index: dict[str, int], by_pair: dict[Pair, list[Game]]) -> list[_Prediction]:
    """Each pair with the prediction of the fit without its games (one Newton step away from fit)."""
    tail = [fit.h_index] + ([fit.delta_index] if fit.delta_index is not None else [])
    found = []
    for pair, games in sorted(by_pair.items(), key=lambda item: sorted(index[k] for k in item[0])):
        a, b = _ordered(pair, index)
        outcomes = [Outcome(index[g.seats[0]], index[g.seats[1]], g.points) for g in games]
        x, cov = fit.without(outcomes, [index[a], index[b], *tail])
        nu = math.exp(x[3]) if fit.delta_index is not None else 0.0
        found.append(_Prediction(a, b, tuple(games), x[0] - x[1], cov[0][0] + cov[1][1] - 2 * cov[0][1], x[2], nu))
    return found


def _likelihoods(predictions: list[_Prediction]) -> list[list[float]]:
    """Each pair's log-likelihood under each spread of SPREADS."""
    return [[log_likelihood(p.side(p.a), p.diff, p.var + tau * tau, p.h, p.nu) for tau in SPREADS]
            for p in predictions]


def _best_spread(likelihoods: list[list[float]]) -> float:
    """The spread that best explains all these pairs together (the least, on a tie)."""
    if not likelihoods:
        return 0.0
    return SPREADS[max(range(len(SPREADS)), key=lambda k: (sum(row[k] for row in likelihoods), -k))]


def judge_results(index: dict[str, int], distinct: list[Game], fit: Fit) -> tuple[list[ResultTest], float]:
    """Every ordered pair's results test, the most suspicious judged again; and the spread of all the pairs."""
    by_pair = _by_pair(distinct)
    predictions = _predictions(fit, index, by_pair)
    likelihoods = _likelihoods(predictions)
    tests: dict[tuple[str, str], ResultTest] = {}
    for prediction, k in zip(predictions, pair_spreads(likelihoods), strict=True):
        tests.update({(t.player, t.opponent): t for t in prediction.tests(SPREADS[k])})
    suspects: list[Pair] = []
    for test in sorted(tests.values(), key=lambda t: t.p):
        pair = frozenset((test.player, test.opponent))
        if pair not in suspects:
            suspects.append(pair)
    for pair in suspects[:REJUDGED]:
        tests.update({(t.player, t.opponent): t for t in _judged_apart(index, distinct, by_pair, pair)})
    return list(tests.values()), _best_spread(likelihoods)


def _judged_apart(index: dict[str, int], distinct: list[Game], by_pair: dict[Pair, list[Game]],
                  pair: Pair) -> list[ResultTest]:
    """A pair's tests with a fit that never saw its games, and the spread of that fit's pairs."""
    fit = fit_games(index, [g for g in distinct if frozenset(g.seats) != pair])
    others = {q: games for q, games in by_pair.items() if q != pair}
    spread = _best_spread(_likelihoods(_predictions(fit, index, others)))
    a, b = _ordered(pair, index)
    ia, ib = index[a], index[b]
    nu = fit.nu
    prediction = _Prediction(a, b, tuple(by_pair[pair]), fit.x[ia] - fit.x[ib],
                             fit.cov[ia][ia] + fit.cov[ib][ib] - 2 * fit.cov[ia][ib], fit.h, nu)
    return prediction.tests(spread)
