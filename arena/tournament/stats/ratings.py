"""Ratings with 95 % intervals: Bradley–Terry (Elo scale) for two players, Plackett–Luce for more.

Two-player games get a joint maximum-a-posteriori Bradley–Terry fit over every result
(draws count half a win each way), with a weak Gaussian prior so a bot that won every game
still gets a finite rating; the interval is the Laplace approximation (the inverse of the
Hessian at the optimum). Ratings are on the Elo scale around 1500 (the average bot).

N-player and solo games use openskill's Plackett–Luce model (a maintained library),
fed in schedule order so the ratings do not depend on which worker finished first;
the interval is mu ± 1.96 sigma on openskill's own scale (mu starts at 25).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

ELO_SCALE = 400.0 / math.log(10.0)  # a logit of strength in Elo points
ELO_CENTRE = 1500.0
PRIOR_VARIANCE = 4.0  # on the logit scale: a prior sd of about 350 Elo
Z95 = 1.959963984540054
MAX_NEWTON_STEPS = 100


class RatingError(RuntimeError):
    """A rating fit could not be computed."""


@dataclass(frozen=True)
class Rating:
    """A rating and its 95 % interval."""

    value: float
    low: float
    high: float
    method: str

    def to_data(self) -> dict[str, float | str]:
        """Plain data for standings.json."""
        return {"value": round(self.value, 2), "low": round(self.low, 2), "high": round(self.high, 2),
                "method": self.method}


def bradley_terry(n: int, games: Sequence[tuple[int, int, float]]) -> list[Rating]:
    """Fit strengths of n players from games (i, j, points of i: 1, 0.5 or 0)."""
    theta = [0.0] * n
    for _ in range(MAX_NEWTON_STEPS):
        grad, hess = _gradient_hessian(n, theta, games)
        step = _solve([[-h for h in row] for row in hess], grad)
        theta = [t + s for t, s in zip(theta, step, strict=True)]
        if max((abs(s) for s in step), default=0.0) < 1e-9:
            break
    _, hess = _gradient_hessian(n, theta, games)
    cov = _inverse([[-h for h in row] for row in hess])
    mean = sum(theta) / n if n else 0.0
    total = sum(sum(row) for row in cov) / (n * n) if n else 0.0
    ratings = []
    for i in range(n):
        # The variance of theta_i minus the mean of all thetas (ratings are relative).
        var = cov[i][i] - 2.0 * sum(cov[i]) / n + total
        value = ELO_CENTRE + ELO_SCALE * (theta[i] - mean)
        half = Z95 * ELO_SCALE * math.sqrt(max(var, 0.0))
        ratings.append(Rating(value, value - half, value + half, "bradley-terry (elo scale)"))
    return ratings


def _gradient_hessian(
    n: int, theta: list[float], games: Sequence[tuple[int, int, float]]
) -> tuple[list[float], list[list[float]]]:
    """Gradient and Hessian of the log posterior."""
    grad = [-t / PRIOR_VARIANCE for t in theta]
    hess = [[(-1.0 / PRIOR_VARIANCE if i == j else 0.0) for j in range(n)] for i in range(n)]
    for i, j, points in games:
        p = 1.0 / (1.0 + math.exp(theta[j] - theta[i]))
        grad[i] += points - p
        grad[j] -= points - p
        w = p * (1.0 - p)
        hess[i][i] -= w
        hess[j][j] -= w
        hess[i][j] += w
        hess[j][i] += w
    return grad, hess


def _solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Solve matrix · x = vector by Gaussian elimination with partial pivoting."""
    n = len(vector)
    a = [row[:] + [vector[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        if abs(a[pivot][col]) < 1e-300:
            raise RatingError("singular system in the rating fit")
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(col + 1, n):
            factor = a[r][col] / a[col][col]
            if factor:
                row, top = a[r], a[col]
                for c in range(col, n + 1):
                    row[c] -= factor * top[c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (a[r][n] - sum(a[r][c] * x[c] for c in range(r + 1, n))) / a[r][r]
    return x


def _inverse(matrix: list[list[float]]) -> list[list[float]]:
    """The inverse of a (positive definite) matrix, column by column."""
    n = len(matrix)
    columns = [_solve(matrix, [1.0 if r == c else 0.0 for r in range(n)]) for c in range(n)]
    return [[columns[c][r] for c in range(n)] for r in range(n)]


def plackett_luce(n: int, events: Sequence[Sequence[tuple[int, int]]]) -> list[Rating]:
    """Rate n players from ranked events (each a list of (player, rank), rank 1 best)."""
    try:
        from openskill.models import PlackettLuce
    except ImportError as exc:  # pragma: no cover - openskill is a runtime dependency
        raise RatingError(f"N-player ratings need the openskill package: {exc}") from None
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(n)]
    for event in events:
        if len(event) < 2:
            continue  # a ranking of one tells nothing
        teams = [[ratings[player]] for player, _ in event]
        rated = model.rate(teams, ranks=[float(rank) for _, rank in event])
        for (player, _), team in zip(event, rated, strict=True):
            ratings[player] = team[0]
    return [Rating(r.mu, r.mu - Z95 * r.sigma, r.mu + Z95 * r.sigma, "plackett-luce (openskill)")
            for r in ratings]
