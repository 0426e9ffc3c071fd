"""Series statistics: Elo, error and LOS as fastchess/cutechess, the GSPRT as fishtest/fastchess.

Reference values marked "fastchess" are the test vectors of github:Disservin/fastchess,
app/tests/sprt_test.cpp and app/tests/elo_test.cpp (checked there to 1 % relative). fastchess's
`Stats(w, l, d)` and `Stats(ll, ld, wl, dd, wd, ww)` are rebuilt by `tri` and `penta` below.
fishtest (github:official-stockfish/fishtest, server/fishtest/stats/) has no test vectors.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence

import pytest

from arena.tournament.stats import sprt as sprt_module
from arena.tournament.stats.sprt import (
    Pentanomial,
    Trinomial,
    elo_from_score,
    elo_interval,
    estimate_elo,
    format_summary,
    llr_logistic,
    llr_normalized,
    score_from_elo,
    sprt,
    sprt_bounds,
    to_json,
)


def tri(w: int, lost: int, d: int) -> Trinomial:
    return Trinomial(wins=w, draws=d, losses=lost)


def penta(ll: int, ld: int, wl: int, dd: int, wd: int, ww: int) -> Pentanomial:
    return Pentanomial(ll=ll, ld=ld, dd=wl + dd, wd=wd, ww=ww)


def regularized(counts: Sequence[int]) -> list[float]:
    # fishtest LLRcalc.regularize / fastchess regularize: a zero count becomes 1e-3
    return [c if c else 1e-3 for c in counts]


# --- an independent LLR: maximise the constrained likelihood itself, in the primal -------------


def golden_max(f: Callable[[float], float], lo: float, hi: float, tol: float = 1e-10) -> float:
    """The maximum value of a concave f on (lo, hi) by golden-section search."""
    g = (math.sqrt(5.0) - 1.0) / 2.0
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc >= fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return max(fc, fd)


def max_loglik_trinomial(phat: Sequence[float], s: float) -> float:
    """max sum phat_i log p_i over (p_L, p_D, p_W) with mean s: one free coordinate, p_W."""

    def ll(pw: float) -> float:
        pd = 2.0 * (s - pw)
        pl = 1.0 - pd - pw
        return phat[0] * math.log(pl) + phat[1] * math.log(pd) + phat[2] * math.log(pw)

    # p_D > 0 needs p_W < s, p_L > 0 needs p_W > 2s - 1
    return golden_max(ll, max(0.0, 2.0 * s - 1.0), s)


def max_loglik_pentanomial(phat: Sequence[float], s: float) -> float:
    """The same over 5 outcomes 0, 1/4, .., 1 with mean s: nested searches over p1, p2, p3."""

    def ll(p1: float, p2: float, p3: float) -> float:
        p4 = s - 0.25 * p1 - 0.5 * p2 - 0.75 * p3
        p0 = 1.0 - p1 - p2 - p3 - p4
        return sum(w * math.log(p) for w, p in zip(phat, (p0, p1, p2, p3, p4)))

    # p4 > 0 and p0 > 0 bound each coordinate given the earlier ones
    def over_p3(p1: float, p2: float) -> float:
        top = min((s - 0.25 * p1 - 0.5 * p2) / 0.75, (1.0 - s - 0.75 * p1 - 0.5 * p2) / 0.25)
        return golden_max(lambda p3: ll(p1, p2, p3), 0.0, top, 1e-9)

    def over_p2(p1: float) -> float:
        top = min((s - 0.25 * p1) / 0.5, (1.0 - s - 0.75 * p1) / 0.5)
        return golden_max(lambda p2: over_p3(p1, p2), 0.0, top, 1e-9)

    return golden_max(over_p2, 0.0, min(4.0 * s, (1.0 - s) / 0.75), 1e-9)


def primal_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    r = regularized(counts)
    n = sum(r)
    phat = [c / n for c in r]
    best = max_loglik_trinomial if len(r) == 3 else max_loglik_pentanomial
    return n * (best(phat, score_from_elo(elo1)) - best(phat, score_from_elo(elo0)))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [
        (Pentanomial(3, 20, 50, 30, 17), 0.0, 50.0),
        (Pentanomial(120, 260, 410, 250, 90), -10.0, 20.0),
        (Pentanomial(0, 7, 25, 11, 2), 0.0, 10.0),  # a zero count: regularized
        (Trinomial(wins=120, draws=40, losses=80), 0.0, 50.0),
        (Trinomial(wins=3000, draws=5000, losses=3100), 0.0, 5.0),
    ],
)
def test_llr_logistic_matches_primal_maximisation(counts, elo0: float, elo1: float) -> None:
    expected = primal_llr(counts.as_list(), elo0, elo1)
    assert llr_logistic(counts, elo0, elo1) == pytest.approx(expected, rel=1e-6, abs=1e-9)


def test_mle_beats_every_nearby_distribution_with_the_same_mean() -> None:
    counts = [120, 260, 410, 250, 90]
    phat = [c / sum(counts) for c in counts]
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    s = score_from_elo(20.0)
    p = [ph * math.exp(-r) for ph, r in zip(phat, sprt_module._mle_expected(phat, values, s))]
    assert sum(p) == pytest.approx(1.0, abs=1e-12)
    assert sum(a * q for a, q in zip(values, p)) == pytest.approx(s, abs=1e-12)
    best = sum(ph * math.log(q) for ph, q in zip(phat, p))
    # directions that keep the total and the mean: second differences and their combinations
    for direction in ([1, -2, 1, 0, 0], [0, 1, -2, 1, 0], [0, 0, 1, -2, 1], [1, -1, -1, 1, 0]):
        for eps in (1e-3, -1e-3, 1e-5, -1e-5):
            q = [x + eps * d for x, d in zip(p, direction)]
            assert sum(ph * math.log(x) for ph, x in zip(phat, q)) < best


# --- hand cases: fishtest's recipe worked out in closed form, and fastchess's test vectors -----


def closed_form_trinomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """fishtest's LLR_logistic for 3 outcomes: the secular equation is a quadratic in x."""
    r = regularized(counts)
    n = sum(r)
    p = [c / n for c in r]

    def log_ratios(s: float) -> list[float]:
        d = [0.0 - s, 0.5 - s, 1.0 - s]
        # sum p_i d_i prod_{j != i} (1 + x d_j) = 0, expanded: qa x^2 + qb x + qc = 0
        others = [[d[j] for j in range(3) if j != i] for i in range(3)]
        qc = sum(p[i] * d[i] for i in range(3))
        qb = sum(p[i] * d[i] * (o[0] + o[1]) for i, o in enumerate(others))
        qa = sum(p[i] * d[i] * o[0] * o[1] for i, o in enumerate(others))
        lo, hi = -1.0 / d[2], -1.0 / d[0]
        if abs(qa) < 1e-15:  # s = 1/2: the draw term vanishes and the equation is linear
            roots = [-qc / qb]
        else:
            disc = math.sqrt(qb * qb - 4.0 * qa * qc)
            roots = [(-qb + disc) / (2.0 * qa), (-qb - disc) / (2.0 * qa)]
        (x,) = [x for x in roots if lo < x < hi]
        return [math.log(1.0 + x * di) for di in d]  # log(phat_i / p_i)

    r0, r1 = log_ratios(score_from_elo(elo0)), log_ratios(score_from_elo(elo1))
    return n * sum(pi * (a - b) for pi, a, b in zip(p, r0, r1))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1"),
    [([80, 40, 120], 0.0, 50.0), ([21184, 40708, 21404], 0.5, 2.5), ([0, 5, 40], -5.0, 5.0)],
)
def test_llr_logistic_trinomial_closed_form(counts: list[int], elo0: float, elo1: float) -> None:
    t = Trinomial(wins=counts[2], draws=counts[1], losses=counts[0])
    expected = closed_form_trinomial_llr(counts, elo0, elo1)
    assert llr_logistic(t, elo0, elo1) == pytest.approx(expected, rel=1e-9)


FASTCHESS_LLR = [
    # (model, counts, elo0, elo1, LLR) from fastchess app/tests/sprt_test.cpp
    ("normalized", tri(36433, 36027, 68692), 0.0, 2.0, 0.92),
    ("normalized", tri(10871, 10650, 20431), -1.75, 0.25, 2.30),
    ("normalized", tri(4250, 0, 0), 0.0, 10.0, 120.56),
    ("logistic", tri(21404, 21184, 40708), 0.5, 2.5, -1.57),
    ("logistic", tri(57433, 57030, 106593), 0.0, 2.0, -2.59),
    ("normalized", penta(365, 16618, 36029, 200, 16974, 390), 0.0, 2.0, 2.25),
    ("normalized", penta(127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, 3.01),
    ("normalized", penta(0, 0, 0, 0, 0, 5550), 0.0, 5.0, 111.82),
    ("logistic", penta(223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, -3.07),
    ("logistic", penta(871, 26175, 55003, 980, 26678, 821), 0.0, 2.0, -4.98),
]


@pytest.mark.parametrize(("model", "counts", "elo0", "elo1", "expected"), FASTCHESS_LLR)
def test_llr_matches_fastchess_vectors(model, counts, elo0, elo1, expected) -> None:
    state = sprt(counts, elo0, elo1, model=model)
    assert state.llr == pytest.approx(expected, rel=0.01)


def test_llr_matches_fishtest_approximations_for_small_elo() -> None:
    # fishtest LLRcalc.LLR_alt2: N (s1 - s0)(2s - s0 - s1) / (2 var), and LLR_normalized_alt
    counts = Pentanomial(871, 26175, 55983, 26678, 821)
    n = counts.pairs
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    p = [c / n for c in counts.as_list()]
    mu = sum(a * q for a, q in zip(values, p))
    var = sum(q * (a - mu) ** 2 for a, q in zip(values, p))
    s0, s1 = score_from_elo(0.0), score_from_elo(2.0)
    alt2 = n * (s1 - s0) * (2 * mu - s0 - s1) / var / 2.0
    assert llr_logistic(counts, 0.0, 2.0) == pytest.approx(alt2, rel=0.01)
    nt0, nt1 = [nelo / (800.0 / math.log(10.0)) for nelo in (0.0, 2.0)]
    nt = (mu - 0.5) / math.sqrt(2 * var)
    alt = n * math.log((1 + (nt - nt0) ** 2) / (1 + (nt - nt1) ** 2))  # games / 2 = pairs
    assert llr_normalized(counts, 0.0, 2.0) == pytest.approx(alt, rel=0.01)


# --- decisions and bounds ----------------------------------------------------------------------


def test_bounds_are_walds() -> None:
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(math.log(0.05 / 0.95))
    assert upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944438979)
    assert sprt_bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))


@pytest.mark.parametrize("model", ["logistic", "normalized"])
def test_decisions(model) -> None:
    strong = sprt(Pentanomial(3, 20, 50, 30, 17), 0.0, 50.0, model=model)
    assert strong.llr > strong.upper and strong.decision == "H1"
    weak = sprt(Pentanomial(17, 30, 50, 20, 3), 0.0, 50.0, model=model)
    assert weak.llr < weak.lower and weak.decision == "H0"
    mixed = sprt(Pentanomial(10, 20, 40, 20, 10), -20.0, 20.0, model=model)
    assert mixed.lower < mixed.llr < mixed.upper and mixed.decision is None
    assert abs(mixed.llr) < 1e-6  # an even series between symmetric hypotheses
    tri_strong = sprt(Trinomial(wins=150, draws=50, losses=60), 0.0, 50.0, model=model)
    assert tri_strong.decision == "H1"


def test_no_games_gives_no_decision_and_bad_parameters_raise() -> None:
    state = sprt(Pentanomial(), 0.0, 5.0)
    assert state.llr == 0.0 and state.decision is None
    assert sprt(Trinomial(), 0.0, 5.0, model="normalized").decision is None
    bad = ({"elo0": 5.0, "elo1": 0.0}, {"alpha": 0.0}, {"beta": 1.0}, {"alpha": 0.6, "beta": 0.5})
    for kwargs in bad:
        args = {"elo0": 0.0, "elo1": 5.0, **kwargs}
        with pytest.raises(ValueError):
            sprt(Trinomial(1, 1, 1), **args)
    with pytest.raises(ValueError):
        sprt(Trinomial(1, 1, 1), 0.0, 5.0, model="bayesian")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("counts", "model"),
    [(Pentanomial(5, 0, 0, 0, 0), "logistic"), (Trinomial(wins=9), "logistic"),
     (Pentanomial(ww=500), "normalized"), (Trinomial(losses=900), "normalized")],
)
def test_one_sided_counts_do_not_raise(counts, model) -> None:
    state = sprt(counts, 0.0, 5.0, model=model)
    assert not math.isnan(state.llr)


# --- Elo, error and LOS ------------------------------------------------------------------------


def test_elo_of_60_20_20() -> None:
    est = estimate_elo(Trinomial(wins=60, draws=20, losses=20))
    assert est.score == pytest.approx(0.7)
    assert est.elo == pytest.approx(400.0 * math.log10(7.0 / 3.0))  # 147.1907...
    assert est.elo == pytest.approx(147.19, abs=0.005)
    # variance per game .6 * .3^2 + .2 * .2^2 + .2 * .7^2 = .16, standard error .04
    z = 1.959963984540054
    half = (elo_from_score(0.7 + z * 0.04) - elo_from_score(0.7 - z * 0.04)) / 2.0
    assert est.elo_error == pytest.approx(half)
    assert est.los == pytest.approx(0.5 * (1.0 + math.erf(40.0 / math.sqrt(2.0 * 80.0))))
    assert est.games == 100


@pytest.mark.parametrize(
    ("counts", "elo", "error", "los"),
    [
        # fastchess app/tests/elo_test.cpp (its trinomial LOS formula differs from cutechess's)
        (tri(136, 96, 111), 40.70, 30.43, None),
        (penta(34, 54, 31, 32, 64, 75), 55.58, 27.65, 1.0000),
        (penta(332, 433, 457, 41, 333, 334), -8.64, 10.33, 0.0505),
        (penta(7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, 0.0),
    ],
)
def test_elo_matches_fastchess_vectors(counts, elo, error, los) -> None:
    est = estimate_elo(counts)
    assert est.elo == pytest.approx(elo, rel=0.01)
    assert est.elo_error == pytest.approx(error, rel=0.01)
    if los is not None:
        assert est.los == pytest.approx(los, abs=5e-5)  # fastchess prints it to 0.01 %


@pytest.mark.parametrize(
    "counts", [Trinomial(wins=120, draws=40, losses=80), Pentanomial(3, 20, 50, 30, 17)]
)
def test_swapping_players_negates_elo(counts) -> None:
    a, b = estimate_elo(counts), estimate_elo(counts.swapped())
    assert b.elo == pytest.approx(-a.elo)
    assert b.elo_error == pytest.approx(a.elo_error)
    assert b.los == pytest.approx(1.0 - a.los)
    for model in ("logistic", "normalized"):
        f = llr_logistic if model == "logistic" else llr_normalized
        assert f(counts.swapped(), -10.0, 5.0) == pytest.approx(-f(counts, -5.0, 10.0))


def test_degenerate_elo_does_not_raise() -> None:
    empty = estimate_elo(Trinomial())
    assert math.isnan(empty.elo) and math.isnan(empty.elo_error) and math.isnan(empty.los)
    assert math.isnan(estimate_elo(Pentanomial()).elo)
    wins = estimate_elo(Trinomial(wins=10))
    assert wins.elo == math.inf and math.isnan(wins.elo_error) and wins.los > 0.99
    losses = estimate_elo(Pentanomial(ll=10))
    assert losses.elo == -math.inf and losses.los == 0.0
    draws = estimate_elo(Trinomial(draws=10))
    assert (draws.elo, draws.elo_error, draws.los) == (0.0, 0.0, 0.5)
    near = estimate_elo(Trinomial(wins=9, draws=1))  # the interval reaches a score of 1
    assert math.isfinite(near.elo) and near.elo_error == math.inf
    assert elo_from_score(math.nan) != elo_from_score(math.nan)


# --- the normalized model ------------------------------------------------------------------------


def test_normalized_mle_meets_the_t_value() -> None:
    counts = [120, 260, 410, 250, 90]
    phat = [c / sum(counts) for c in counts]
    values = [0.0, 0.25, 0.5, 0.75, 1.0]
    for t in (-0.1, 0.0, 0.05, 0.3):
        logs = sprt_module._mle_t_value(phat, values, 0.5, t)
        p = [ph * math.exp(-r) for ph, r in zip(phat, logs)]
        mu = sum(a * q for a, q in zip(values, p))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(values, p)))
        assert sum(p) == pytest.approx(1.0, abs=1e-12)
        assert (mu - 0.5) / sigma == pytest.approx(t, abs=1e-9)


def test_normalized_llr_properties() -> None:
    even = Pentanomial(10, 200, 400, 200, 10)
    assert llr_normalized(even, -2.0, 2.0) == pytest.approx(0.0, abs=1e-9)
    better = Pentanomial(10, 180, 400, 220, 10)
    assert llr_normalized(better, 0.0, 5.0) > 0.0 > llr_normalized(better.swapped(), 0.0, 5.0)
    assert llr_normalized(better, 0.0, 5.0) == pytest.approx(-llr_normalized(better, 5.0, 0.0))
    # doubling every count doubles the LLR (up to the 1e-3 regularization, absent here)
    doubled = Pentanomial(*(2 * c for c in better.as_list()))
    assert llr_normalized(doubled, 0.0, 5.0) == pytest.approx(2 * llr_normalized(better, 0.0, 5.0))
    assert math.isnan(llr_normalized(Pentanomial(1, 1, 1, 1, 1), 0.0, 2000.0))  # unreachable t


# --- counting, report lines and JSON -------------------------------------------------------------


def test_adding_games_and_pairs() -> None:
    t = Trinomial()
    for score in (1, 0.5, 0, 1):
        t.add_game(score)
    assert (t.wins, t.draws, t.losses, t.games) == (2, 1, 1, 4)
    p = Pentanomial()
    for pair in ((0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (0.5, 1), (1, 1), (1, 1)):
        p.add_pair(*pair)
    assert p.as_list() == [1, 1, 2, 1, 2] and p.pairs == 7
    assert p.score == pytest.approx((0 + 0.25 + 1.0 + 0.75 + 2.0) / 7)
    with pytest.raises(ValueError):
        p.add_pair(0.25, 1)
    with pytest.raises(ValueError):
        t.add_game(2)


def elo_line(est) -> str:
    return f"Elo difference: {est.elo:.1f} +/- {est.elo_error:.1f}, LOS: {100 * est.los:.1f} %"


def test_format_summary_lines() -> None:
    t = Trinomial(wins=120, draws=40, losses=80)
    p = Pentanomial(3, 20, 50, 30, 17)
    state = sprt(p, 0.0, 50.0)
    lines = format_summary("A", "B", t, p, state)
    assert lines[0] == "Score of A vs B: 120 - 80 - 40  [0.583] 240"
    assert lines[1] == elo_line(estimate_elo(p))
    assert lines[2] == "Ptnml(0-2): [3, 20, 50, 30, 17]"
    assert lines[3] == f"LLR: {state.llr:.2f} (-2.94, 2.94) [0.00, 50.00]"
    assert lines[4] == f"SPRT: H1 was accepted (LLR {state.llr:.2f} >= 2.94) after 240 games"
    only_games = format_summary("A", "B", t, None, None)
    assert only_games[1] == elo_line(estimate_elo(t))
    assert len(only_games) == 2
    empty = format_summary("A", "B", Trinomial(), None, sprt(Trinomial(), 0.0, 5.0))
    assert empty[-2].startswith("LLR: 0.00")
    assert empty[-1] == "SPRT: no decision (LLR 0.00 in [-2.94, 2.94]) after 0 games"
    assert empty[1] == "Elo difference: none yet (no games), LOS: -"


@pytest.mark.parametrize(("counts", "elo"), [
    (Trinomial(losses=20), "Elo difference: < -277.4 (95 %), LOS: 0.0 %"),
    (Trinomial(wins=20), "Elo difference: > +277.4 (95 %), LOS: 100.0 %"),
    (Pentanomial(ww=10), "Elo difference: > +140.2 (95 %), LOS: 100.0 %"),
    (Trinomial(wins=19, draws=1), "Elo difference: 636.4, 95 % interval > +442.1, LOS: 100.0 %"),
])
def test_a_one_sided_score_prints_a_bound_never_inf_or_nan(counts, elo: str) -> None:
    t = counts if isinstance(counts, Trinomial) else Trinomial(wins=2 * counts.ww)
    p = counts if isinstance(counts, Pentanomial) else None
    lines = format_summary("A", "B", t, p, sprt(counts, 0.0, 10.0))
    assert lines[1] == elo
    assert not any(word in line for line in lines for word in ("inf", "nan")), lines
    low, high = elo_interval(counts)
    if math.isinf(estimate_elo(counts).elo):  # the mean that n samples, every one the best, exclude at 2.5 %
        n = sum(counts.as_list())
        bound = low if math.isfinite(low) else high
        assert abs(bound) == pytest.approx(400 * math.log10(0.025 ** (1 / n) / (1 - 0.025 ** (1 / n))))
    data = to_json(t, p, sprt(counts, 0.0, 10.0))
    assert "Infinity" not in json.dumps(data) and "NaN" not in json.dumps(data)


def test_to_json() -> None:
    t = Trinomial(wins=120, draws=40, losses=80)
    p = Pentanomial(3, 20, 50, 30, 17)
    state = sprt(p, 0.0, 50.0)
    data = to_json(t, p, state)
    assert data["games"] == 240 and (data["wins"], data["draws"], data["losses"]) == (120, 40, 80)
    assert data["pentanomial"] == [3, 20, 50, 30, 17]
    assert data["elo"] == pytest.approx(estimate_elo(p).elo)
    assert data["sprt"] == "H1" and data["llr"] == pytest.approx(state.llr)
    assert (data["elo0"], data["elo1"], data["alpha"], data["beta"]) == (0.0, 50.0, 0.05, 0.05)
    assert data["llr_lower"] == pytest.approx(-2.944438979) and data["llr_upper"] > 0
    plain = to_json(t)
    assert plain["pentanomial"] is None and "llr" not in plain
    assert plain["elo"] == pytest.approx(estimate_elo(t).elo)
    for counts in (Trinomial(), Trinomial(wins=10), Trinomial(wins=9, draws=1)):
        data = to_json(counts, Pentanomial(), sprt(counts, 0.0, 5.0))
        json.dumps(data, allow_nan=False)  # raises on NaN or inf
    assert to_json(Trinomial(wins=10))["elo"] is None
