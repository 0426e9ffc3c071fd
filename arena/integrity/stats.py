"""The tests: a pair's score against what the model predicts, blunders against the rest, and Holm's correction.

- A player's points against one opponent: the exact distribution of the sum of the pair's
  games (win, draw or loss each, in half points) given the strength difference, averaged
  over that difference's uncertainty (normal, from the fit without the pair), so the
  p-value is a posterior predictive one: a pair of players whose strengths are barely known
  is not called surprising for results a well-known pair would be. The uncertainty also
  holds a pair effect (normal, sd tau): the ratings never explain every pair (styles suit
  or trouble each other, and deterministic bots repeat it), and tau is the spread that best
  explains the other pairs' results (the pair tested left out), so a pair is surprising only
  when it strays further than pairs do in these very results.
- Blunders: the player's moves from won positions, split into strata by how many of the
  legal moves there lose (a random mover blunders more where more moves lose); in each
  stratum, under the hypothesis that the player blunders alike against everyone, the
  blunders that fall on the games against this opponent are hypergeometric; the sum over
  strata has the convolution of those distributions (an exact stratified test, as Zelen's).
- Holm's step-down correction over every ordered pair tested: the chance that any honest
  pair of the results is flagged stays under the threshold, whatever the dependence between
  the pairs' tests.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.integrity.model import probabilities

NODES = 61  # quadrature points over the strength difference's normal, from -6 to +6 sd
SPAN = 6.0
# The sd of the pair effects tried (logit): how far two players' results against each other may
# stray from what their ratings say (one bot's style may suit or trouble another's, deterministic bots
# repeat it every game).
SPREADS = (0.0, 0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)


@dataclass(frozen=True)
class PairGame:
    """One of a pair's games from the tested player's side: whether it moved first, and its points."""

    first: bool
    points: float  # 1, 0.5 or 0


def _normal_nodes() -> list[tuple[float, float]]:
    """(z, weight) on an even grid, weights the normal density normalised to sum 1 (the trapezoid rule)."""
    zs = [-SPAN + 2 * SPAN * k / (NODES - 1) for k in range(NODES)]
    weights = [math.exp(-z * z / 2) for z in zs]
    total = sum(weights)
    return [(z, w / total) for z, w in zip(zs, weights, strict=True)]


_NODES = _normal_nodes()


def _sides(diff: float, h: float, nu: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """The player's (win, draw, loss) moving first and moving second, for a strength difference diff."""
    first = probabilities(diff + h, nu)
    seat0_win, draw, seat0_loss = probabilities(-diff + h, nu)
    return first, (seat0_loss, draw, seat0_win)


def _points_distribution(games: Sequence[PairGame], diff: float, h: float, nu: float) -> list[float]:
    """P(total = k half points), k = 0 .. 2 len(games), for a strength difference diff (player minus opponent)."""
    sides = _sides(diff, h, nu)
    dist = [1.0]
    for game in games:
        win, draw, loss = sides[0] if game.first else sides[1]
        nxt = [0.0] * (len(dist) + 2)
        for k, p in enumerate(dist):
            if p:
                nxt[k] += p * loss
                nxt[k + 1] += p * draw
                nxt[k + 2] += p * win
        dist = nxt
    return dist


def score_test(games: Sequence[PairGame], diff_mean: float, diff_var: float, h: float,
               nu: float) -> tuple[float, float]:
    """(expected points, P(points <= observed)) of the player over games, under the predictive model."""
    observed = round(2 * sum(g.points for g in games))
    sd = math.sqrt(max(diff_var, 0.0))
    expected = tail = 0.0
    for z, weight in _NODES:
        dist = _points_distribution(games, diff_mean + sd * z, h, nu)
        expected += weight * sum(k * p for k, p in enumerate(dist)) / 2
        tail += weight * sum(dist[:observed + 1])
    return expected, min(1.0, tail)


def log_likelihood(games: Sequence[PairGame], diff_mean: float, diff_var: float, h: float, nu: float) -> float:
    """The log-probability of the games' results under the predictive model (the difference integrated out)."""
    sd = math.sqrt(max(diff_var, 0.0))
    # Games alike (the same seat, the same result) multiply the same probability: count them once.
    kinds: dict[tuple[int, int], int] = {}
    for game in games:
        key = (0 if game.first else 1, 0 if game.points > 0.75 else 2 if game.points < 0.25 else 1)
        kinds[key] = kinds.get(key, 0) + 1
    total = 0.0
    for z, weight in _NODES:
        sides = _sides(diff_mean + sd * z, h, nu)
        chance = weight
        for (side, result), count in kinds.items():
            chance *= sides[side][result] ** count
        total += chance
    return math.log(max(total, 1e-300))


def pair_spreads(likelihoods: Sequence[Sequence[float]]) -> list[int]:
    """For each pair, the grid index of the pair-effect spread that best explains every *other* pair.

    likelihoods[p][k]: pair p's log-likelihood with the k-th spread of SPREADS. A pair never
    sets its own yardstick: a colluding pair's wild results would widen it in its own favour.
    """
    totals = [sum(row[k] for row in likelihoods) for k in range(len(SPREADS))]
    return [max(range(len(SPREADS)), key=lambda k: (totals[k] - row[k], -k)) for row in likelihoods]


@dataclass(frozen=True)
class Stratum:
    """One stratum of a player's moves from won positions: against the opponent tested, and in all."""

    blunders: int  # against the opponent
    moves: int
    all_blunders: int  # against everyone, the opponent included
    all_moves: int


def _hypergeometric(population: int, successes: int, draws: int) -> tuple[int, list[float]]:
    """(lowest count, its probability and those above it) of successes among draws without replacement."""
    low = max(0, draws - (population - successes))
    high = min(draws, successes)
    total = math.comb(population, draws)
    return low, [math.comb(successes, k) * math.comb(population - successes, draws - k) / total
                 for k in range(low, high + 1)]


def blunder_test(strata: Sequence[Stratum]) -> float | None:
    """P(blunders against the opponent >= observed) under equal blunder rates; None when it cannot vary."""
    offset, dist = 0, [1.0]
    observed = 0
    for s in strata:
        low, pmf = _hypergeometric(s.all_moves, s.all_blunders, s.moves)
        observed += s.blunders
        offset += low
        nxt = [0.0] * (len(dist) + len(pmf) - 1)
        for a, p in enumerate(dist):
            for b, q in enumerate(pmf):
                nxt[a + b] += p * q
        dist = nxt
    if len(dist) == 1:
        return None  # every stratum fixes its count: no test
    return min(1.0, sum(dist[max(0, observed - offset):]))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's adjusted p-values (in the order given): reject where adjusted <= alpha keeps the family-wise rate."""
    order = sorted(range(len(p_values)), key=lambda k: p_values[k])
    m = len(p_values)
    adjusted = [1.0] * m
    running = 0.0
    for rank, k in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[k]))
        adjusted[k] = running
    return adjusted
