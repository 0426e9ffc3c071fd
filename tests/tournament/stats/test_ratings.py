"""Ratings: the Bradley–Terry fit on the Elo scale and openskill's Plackett–Luce."""

from __future__ import annotations

import math

from arena.tournament.stats.ratings import ELO_CENTRE, bradley_terry, plackett_luce


def test_bradley_terry_recovers_a_known_elo_difference() -> None:
    # 300 wins to 100: p = 0.75, an Elo difference of 400 * log10(3) = 190.8 (a weak prior shrinks it a little).
    games = [(0, 1, 1.0)] * 300 + [(0, 1, 0.0)] * 100
    a, b = bradley_terry(2, games)
    assert math.isclose(a.value - b.value, 400 * math.log10(3), abs_tol=3.0)
    assert math.isclose((a.value + b.value) / 2, ELO_CENTRE)
    assert a.low < a.value < a.high and b.low < b.value < b.high
    # Four times the games: the interval halves.
    c, _ = bradley_terry(2, games * 4)
    assert math.isclose(c.high - c.low, (a.high - a.low) / 2, rel_tol=0.05)


def test_bradley_terry_orders_and_survives_a_perfect_record() -> None:
    games = [(0, 1, 1.0)] * 10 + [(1, 2, 1.0)] * 10 + [(0, 2, 1.0)] * 10 + [(1, 2, 0.5)] * 4
    ratings = bradley_terry(3, games)
    assert ratings[0].value > ratings[1].value > ratings[2].value
    assert all(math.isfinite(r.low) and math.isfinite(r.high) for r in ratings)
    draws = bradley_terry(2, [(0, 1, 0.5)] * 10)
    assert math.isclose(draws[0].value, draws[1].value)


def test_plackett_luce_orders_by_rankings() -> None:
    events = [[(0, 1), (1, 2), (2, 3)], [(1, 1), (2, 2), (0, 3)]] + [[(0, 1), (1, 2), (2, 3)]] * 10
    ratings = plackett_luce(3, events)
    assert ratings[0].value > ratings[1].value > ratings[2].value
    assert all(r.low < r.value < r.high for r in ratings)
    assert ratings[0].method.startswith("plackett-luce")
