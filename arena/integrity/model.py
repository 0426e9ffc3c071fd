"""The rating model the results are judged by: Bradley-Terry with a first-move advantage and draws.

Every player has a strength theta (a logit); a game between the seat-0 player a and the
seat-1 player b has mu = theta_a - theta_b + h, h the advantage of moving first, and
Davidson's draws: P(a wins) = e^(mu/2) / Z, P(b wins) = e^(-mu/2) / Z, P(draw) = nu / Z with
Z = e^(mu/2) + e^(-mu/2) + nu (nu = e^delta; without any draw in the results nu = 0 and this
is the logistic model). The fit is the maximum a posteriori one (Newton's method on a
concave log-posterior) under weak Gaussian priors, so that a player who won every game still
gets a finite strength; the covariance is the Laplace approximation (the inverse of the
negated Hessian).

A pair is judged by the model fitted without its own games. Refitting for every pair would
cost a whole fit each; instead the pair's games are taken out of the fit around the full
optimum: one Newton step of the log-posterior without them, which touches only the
coordinates the pair's games involve (the two strengths, h, delta), and whose covariance on
those coordinates is exact for the quadratic approximation (a Schur complement):
(S^-1 - B)^-1, S the full covariance on them and B the pair's own curvature there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

PRIOR_VARIANCE = 4.0  # strengths and the first-move advantage, on the logit scale (sd ~350 Elo)
DRAW_PRIOR_MEAN, DRAW_PRIOR_VARIANCE = 0.0, 4.0  # delta = log nu; 0 is a third of even games drawn
MAX_NEWTON_STEPS = 100
TOLERANCE = 1e-10
ELO_PER_LOGIT = 400.0 / math.log(10.0)


class ModelError(ArithmeticError):
    """The fit did not converge (a matrix that should be positive definite is not)."""


@dataclass(frozen=True)
class Outcome:
    """One game as the model sees it: the players' indices by seat and seat 0's points (1, 0.5 or 0)."""

    first: int
    second: int
    points: float


def probabilities(mu: float, nu: float) -> tuple[float, float, float]:
    """(P(seat 0 wins), P(draw), P(seat 1 wins)) for a strength difference mu (h included)."""
    # Written around the larger exponent, so that no term overflows.
    half = abs(mu) / 2
    big, small = 1.0, math.exp(-2 * half)
    draw = nu * math.exp(-half)
    total = big + small + draw
    win, lose = (big / total, small / total) if mu >= 0 else (small / total, big / total)
    return win, draw / total, lose


def _derivatives(mu: float, delta: float | None, points: float) -> tuple[float, float, float, float, float]:
    """The log-likelihood's (d/dmu, d/ddelta, d2/dmu2, d2/dmu ddelta, d2/ddelta2) for one game."""
    nu = 0.0 if delta is None else math.exp(delta)
    win, draw, lose = probabilities(mu, nu)
    observed = 0.5 if points > 0.75 else -0.5 if points < 0.25 else 0.0
    gm = observed - (win - lose) / 2
    gd = (1.0 if observed == 0.0 else 0.0) - draw
    hmm = -((win + lose) / 4 - ((win - lose) / 2) ** 2)
    hmd = draw * (win - lose) / 2
    hdd = -(draw - draw * draw)
    return gm, gd, hmm, hmd, hdd


def log_likelihood(mu: float, nu: float, points: float) -> float:
    """The log-probability of one game's result."""
    win, draw, lose = probabilities(mu, nu)
    chance = win if points > 0.75 else lose if points < 0.25 else draw
    return math.log(max(chance, 1e-300))


class Fit:
    """The fitted strengths, first-move advantage and draw parameter, with their covariance."""

    def __init__(self, players: int, games: Sequence[Outcome]) -> None:
        self.players = players
        self.games = list(games)
        self.draws = any(0.25 <= g.points <= 0.75 for g in self.games)
        self.h_index = players
        self.delta_index = players + 1 if self.draws else None
        self.size = players + (2 if self.draws else 1)
        self.x = [0.0] * self.size
        if self.draws:
            self.x[players + 1] = DRAW_PRIOR_MEAN
        self._newton()
        _, hess = self.gradient_hessian(self.x, self.games)
        self.cov = inverse([[-v for v in row] for row in hess])

    @property
    def h(self) -> float:
        """The advantage of seat 0, on the logit scale."""
        return self.x[self.h_index]

    @property
    def nu(self) -> float:
        """Davidson's draw parameter (0 when no game was drawn)."""
        return 0.0 if self.delta_index is None else math.exp(self.x[self.delta_index])

    def mu(self, x: Sequence[float], game: Outcome) -> float:
        """The strength difference of a game, seat 0's advantage included."""
        return x[game.first] - x[game.second] + x[self.h_index]

    def log_posterior(self, x: Sequence[float], games: Sequence[Outcome]) -> float:
        """The log-posterior (up to a constant) at x, over games."""
        nu = 0.0 if self.delta_index is None else math.exp(x[self.delta_index])
        total = sum(log_likelihood(self.mu(x, g), nu, g.points) for g in games)
        total -= sum(v * v for v in x[:self.players + 1]) / (2 * PRIOR_VARIANCE)
        if self.delta_index is not None:
            total -= (x[self.delta_index] - DRAW_PRIOR_MEAN) ** 2 / (2 * DRAW_PRIOR_VARIANCE)
        return total

    def gradient_hessian(self, x: Sequence[float], games: Sequence[Outcome], prior: bool = True,
                         coords: Sequence[int] | None = None) -> tuple[list[float], list[list[float]]]:
        """The gradient and Hessian of the log-posterior (prior=False: of the games' likelihood alone).

        With coords, only those coordinates, in that order (the games must involve no other).
        """
        where = {p: k for k, p in enumerate(coords)} if coords is not None else None
        n = self.size if where is None else len(where)

        def at(p: int) -> int:
            return p if where is None else where[p]

        hi, di = at(self.h_index), None if self.delta_index is None else at(self.delta_index)
        grad = [0.0] * n
        hess = [[0.0] * n for _ in range(n)]
        delta = None if self.delta_index is None else x[self.delta_index]
        for g in games:
            gm, gd, hmm, hmd, hdd = _derivatives(self.mu(x, g), delta, g.points)
            terms = ((at(g.first), 1.0), (at(g.second), -1.0), (hi, 1.0))
            for p, sp in terms:
                grad[p] += sp * gm
                for q, sq in terms:
                    hess[p][q] += sp * sq * hmm
                if di is not None:
                    hess[p][di] += sp * hmd
                    hess[di][p] += sp * hmd
            if di is not None:
                grad[di] += gd
                hess[di][di] += hdd
        if prior and where is None:
            for p in range(self.players + 1):
                grad[p] -= x[p] / PRIOR_VARIANCE
                hess[p][p] -= 1.0 / PRIOR_VARIANCE
            if di is not None:
                grad[di] -= (x[di] - DRAW_PRIOR_MEAN) / DRAW_PRIOR_VARIANCE
                hess[di][di] -= 1.0 / DRAW_PRIOR_VARIANCE
        return grad, hess

    def _newton(self) -> None:
        """Maximise the log-posterior from x (Newton steps, halved while they do not climb)."""
        x = self.x
        current = self.log_posterior(x, self.games)
        for _ in range(MAX_NEWTON_STEPS):
            grad, hess = self.gradient_hessian(x, self.games)
            step = solve([[-v for v in row] for row in hess], grad)
            scale = 1.0
            while True:
                trial = [a + scale * b for a, b in zip(x, step, strict=True)]
                value = self.log_posterior(trial, self.games)
                if value >= current - 1e-12 or scale < 1e-6:
                    break
                scale /= 2
            x, current = trial, value
            if max((abs(s) * scale for s in step), default=0.0) < TOLERANCE:
                break
        self.x = x

    def without(self, games: Sequence[Outcome], coords: Sequence[int]) -> tuple[list[float], list[list[float]]]:
        """The estimate and covariance on coords with these games (all on coords) left out of the fit."""
        g, hess = self.gradient_hessian(self.x, games, prior=False, coords=coords)
        k = len(coords)
        s_inv = inverse([[self.cov[p][q] for q in coords] for p in coords])
        # hess is the pair's own curvature, negated: B = -hess, positive semidefinite.
        cov = inverse([[s_inv[a][b] + hess[a][b] for b in range(k)] for a in range(k)])
        step = [-sum(cov[a][b] * g[b] for b in range(k)) for a in range(k)]
        return [self.x[p] + d for p, d in zip(coords, step, strict=True)], cov


def cholesky(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The lower-triangular L with L L^T = matrix (symmetric positive definite), or ModelError."""
    n = len(matrix)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row_i = low[i]
        for j in range(i + 1):
            row_j = low[j]
            total = matrix[i][j] - sum(row_i[k] * row_j[k] for k in range(j))
            if i == j:
                if total <= 0:
                    raise ModelError("the rating fit's curvature is not positive definite")
                row_i[i] = math.sqrt(total)
            else:
                row_i[j] = total / row_j[j]
    return low


def _cholesky_solve(low: list[list[float]], vector: Sequence[float]) -> list[float]:
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        y[i] = (vector[i] - sum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        x[i] = (y[i] - sum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def solve(matrix: Sequence[Sequence[float]], vector: Sequence[float]) -> list[float]:
    """x with matrix x = vector, for a symmetric positive definite matrix."""
    return _cholesky_solve(cholesky(matrix), vector)


def inverse(matrix: Sequence[Sequence[float]]) -> list[list[float]]:
    """The inverse of a symmetric positive definite matrix."""
    low = cholesky(matrix)
    n = len(low)
    columns = [_cholesky_solve(low, [1.0 if i == j else 0.0 for i in range(n)]) for j in range(n)]
    return [[(columns[j][i] + columns[i][j]) / 2 for j in range(n)] for i in range(n)]
