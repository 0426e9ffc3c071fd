"""Statistics of a head-to-head series: Elo with a 95 % interval, LOS and the generalized SPRT.

Pure functions (stdlib `math` only). The formulas follow, in our own words:

* Elo, its error and LOS: fastchess `app/src/matchmaking/elo/elo_wdl.cpp` and `elo_pentanomial.cpp`
  (github:Disservin/fastchess), which compute them as cutechess-cli does; the trinomial LOS is
  cutechess's `0.5 * (1 + erf((wins - losses) / sqrt(2 * (wins + losses))))`.
* The SPRT: fishtest `server/fishtest/stats/LLRcalc.py` (`LLR_logistic`, `LLR_normalized`,
  `MLE_expected`, `MLE_t_value`, `regularize`) and `stat_util.py` (bounds), by Michel Van den Bergh
  (github:official-stockfish/fishtest), as ported to fastchess `app/src/matchmaking/sprt/sprt.cpp`.

Degenerate inputs never raise: Elo is +inf / -inf for a perfect / null score and nan with no games.
What is printed never shows them: a one-sided score reads as a bound (`> +277.1`), from the exact
one-sided 95 % bound of a mean whose every sample was the best (or the worst) possible.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

Z95 = 1.959963984540054  # the two-sided 95 % quantile of the standard normal, as fastchess
TAIL = 0.025  # each tail of the 95 % interval
NELO_DIVIDED_BY_NT = 800.0 / math.log(10.0)  # normalized Elo per unit of t-value (fishtest)
REGULARIZER = 1e-3  # fishtest and fastchess replace a zero count by this
GAME_SCORES = (0.0, 0.5, 1.0)

Decision = Literal["H0", "H1"]
Model = Literal["logistic", "normalized"]


@dataclass
class Trinomial:
    """Single-game results from A's view: wins, draws and losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        """The number of games."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """A's mean score per game (nan without games)."""
        return (self.wins + 0.5 * self.draws) / self.games if self.games else math.nan

    def add_game(self, score: float) -> None:
        """Count one game that A scored 0, 0.5 or 1."""
        _check_game_score(score)
        if score == 1.0:
            self.wins += 1
        elif score == 0.5:
            self.draws += 1
        else:
            self.losses += 1

    def as_list(self) -> list[int]:
        """The counts from A's worst outcome to its best: [losses, draws, wins]."""
        return [self.losses, self.draws, self.wins]

    def swapped(self) -> Trinomial:
        """The same results from B's view."""
        return Trinomial(wins=self.losses, draws=self.draws, losses=self.wins)


@dataclass
class Pentanomial:
    """Game pairs (same setup, seats swapped) counted by A's pair score 0, 0.5, 1, 1.5, 2."""

    ll: int = 0
    ld: int = 0
    dd: int = 0  # pair score 1: two draws, or a win and a loss (fastchess's WL + DD)
    wd: int = 0
    ww: int = 0

    @property
    def pairs(self) -> int:
        """The number of game pairs."""
        return self.ll + self.ld + self.dd + self.wd + self.ww

    @property
    def score(self) -> float:
        """A's mean score per game (nan without pairs)."""
        if not self.pairs:
            return math.nan
        return sum(c * x for c, x in zip(self.as_list(), _pair_scores(5))) / self.pairs

    def add_pair(self, first: float, second: float) -> None:
        """Count one pair from A's scores (0, 0.5 or 1) in its two games."""
        _check_game_score(first)
        _check_game_score(second)
        slot = round(2 * (first + second))  # 0..4: half points of the pair
        if slot == 0:
            self.ll += 1
        elif slot == 1:
            self.ld += 1
        elif slot == 2:
            self.dd += 1
        elif slot == 3:
            self.wd += 1
        else:
            self.ww += 1

    def as_list(self) -> list[int]:
        """The counts from pair score 0 to pair score 2."""
        return [self.ll, self.ld, self.dd, self.wd, self.ww]

    def swapped(self) -> Pentanomial:
        """The same pairs from B's view."""
        return Pentanomial(ll=self.ww, ld=self.wd, dd=self.dd, wd=self.ld, ww=self.ll)


Counts = Trinomial | Pentanomial


@dataclass(frozen=True)
class EloEstimate:
    """An Elo difference (A minus B) with the half-width of its 95 % interval and the LOS."""

    elo: float
    elo_error: float
    los: float
    score: float
    games: int


@dataclass(frozen=True)
class SprtState:
    """An SPRT's log-likelihood ratio, its stopping bounds and the decision if one is reached."""

    llr: float
    lower: float
    upper: float
    decision: Decision | None
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: Model


def _check_game_score(score: float) -> None:
    if score not in GAME_SCORES:
        raise ValueError(f"a game score must be 0, 0.5 or 1, not {score!r}")


def _pair_scores(n: int) -> list[float]:
    """The outcome values i / (n - 1): 0, 0.5, 1 for games or 0 .. 1 in quarters for pairs."""
    return [i / (n - 1) for i in range(n)]


def elo_from_score(score: float) -> float:
    """Logistic Elo of a mean score: -400 log10(1/s - 1); +-inf at 1 and 0, nan for nan."""
    if math.isnan(score):
        return math.nan
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0  # + 0.0: an even score is 0.0, not -0.0


def score_from_elo(elo: float) -> float:
    """The expected score of a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _phi(x: float) -> float:
    """The standard normal cumulative distribution."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _mean_variance(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    mu = sum(p * a for a, p in zip(values, probs))
    return mu, sum(p * (a - mu) ** 2 for a, p in zip(values, probs))


def estimate_elo(counts: Counts) -> EloEstimate:
    """Elo, 95 % error and LOS as fastchess/cutechess (no games: all nan; perfect: elo +-inf)."""
    raw = counts.as_list()
    n = sum(raw)  # games for a trinomial, pairs for a pentanomial: the independent samples
    games = n if isinstance(counts, Trinomial) else 2 * n
    if n == 0:
        return EloEstimate(math.nan, math.nan, math.nan, math.nan, 0)
    score, var = _mean_variance(_pair_scores(len(raw)), [c / n for c in raw])
    se = math.sqrt(var / n)  # standard error of the mean score
    elo = elo_from_score(score)
    if math.isfinite(elo):
        # an interval end at or beyond 0 or 1 makes the error infinite, as it should be
        error = (elo_from_score(score + Z95 * se) - elo_from_score(score - Z95 * se)) / 2.0
    else:
        error = math.nan
    if isinstance(counts, Trinomial):
        decisive = counts.wins + counts.losses
        # cutechess; only draws is an even match, where its formula would divide 0 by 0
        los = _phi((counts.wins - counts.losses) / math.sqrt(decisive)) if decisive else 0.5
    elif se > 0.0:
        los = _phi((score - 0.5) / se)  # fastchess EloPentanomial::los
    else:
        los = 0.5 if score == 0.5 else float(score > 0.5)
    return EloEstimate(elo, error, los, score, games)


def elo_interval(counts: Counts) -> tuple[float, float]:
    """The 95 % interval of the Elo difference; an end is -inf / +inf where the data cannot bound it.

    A perfect (null) score has no upper (lower) end; its other end is the Elo of the mean that n
    samples, all the best (worst) possible, exclude at the 2.5 % level: 0.025 ** (1 / n).
    """
    raw = counts.as_list()
    n = sum(raw)
    if n == 0:
        return math.nan, math.nan
    score, var = _mean_variance(_pair_scores(len(raw)), [c / n for c in raw])
    if score >= 1.0:
        return elo_from_score(TAIL ** (1.0 / n)), math.inf
    if score <= 0.0:
        return -math.inf, elo_from_score(1.0 - TAIL ** (1.0 / n))
    se = math.sqrt(var / n)
    return elo_from_score(score - Z95 * se), elo_from_score(score + Z95 * se)


def elo_text(counts: Counts) -> str:
    """The Elo difference for people: `39.7 +/- 21.5`, or a bound where a side is unbounded (never inf or nan)."""
    est = estimate_elo(counts)
    if est.games == 0:
        return "none yet (no games)"
    if math.isfinite(est.elo) and math.isfinite(est.elo_error):
        return f"{est.elo:.1f} +/- {est.elo_error:.1f}"
    low, high = elo_interval(counts)
    bound = f"> {low:+.1f}" if math.isfinite(low) else f"< {high:+.1f}"
    if math.isfinite(est.elo):
        return f"{est.elo:.1f}, 95 % interval {bound}"
    return f"{bound} (95 %)"


def _regularized_pdf(counts: Counts) -> tuple[float, list[float], list[float]]:
    """Total, outcome values and empirical probabilities with zero counts set to 1e-3 (fishtest)."""
    raw = [c if c else REGULARIZER for c in counts.as_list()]
    total = sum(raw)
    return total, _pair_scores(len(raw)), [c / total for c in raw]


def _secular_root(weights: Sequence[float], v: Sequence[float]) -> float:
    """The x with sum w_i v_i / (1 + x v_i) = 0, where min v < 0 < max v (LLRcalc.secular)."""
    if not min(v) < 0.0 < max(v):
        raise ArithmeticError("the constraint cannot be met: the values do not straddle zero")
    lo, hi, x = -1.0 / max(v), -1.0 / min(v), 0.0
    # f falls strictly from +inf at lo to -inf at hi: Newton kept inside a shrinking bracket,
    # bisecting when it would leave it (fishtest uses Brent, fastchess ITP with a coarser tolerance)
    for _ in range(200):
        f = sum(w * a / (1.0 + x * a) for w, a in zip(weights, v))
        if f == 0.0:
            break
        if f > 0.0:
            lo = x
        else:
            hi = x
        df = -sum(w * a * a / (1.0 + x * a) ** 2 for w, a in zip(weights, v))
        new = x - f / df
        if not lo < new < hi:
            new = (lo + hi) / 2.0
        if abs(new - x) <= 1e-15 * max(1.0, abs(x)):
            return new
        x = new
    return x


def _mle_expected(probs: Sequence[float], values: Sequence[float], s: float) -> list[float]:
    """log(phat_i / p_i) for the ML distribution with mean s (LLRcalc.MLE_expected)."""
    d = [a - s for a in values]
    x = _secular_root(probs, d)
    return [math.log1p(x * a) for a in d]  # p_i = phat_i / (1 + x d_i)


def _mle_t_value(
    probs: Sequence[float], values: Sequence[float], ref: float, t: float
) -> list[float]:
    """log(phat_i / p_i) for the ML distribution with (mu - ref) / sigma = t (MLE_t_value)."""
    n = len(values)
    p = [1.0 / n] * n  # the fixed-point iteration starts from the uniform distribution
    log_ratio = [0.0] * n
    for _ in range(100):  # fishtest stops after 10 rounds (or at 1e-9); we go on to convergence
        mu, var = _mean_variance(values, p)
        sigma = math.sqrt(var)
        phi = [a - ref - t * sigma * (1.0 + ((mu - a) / sigma) ** 2) / 2.0 for a in values]
        x = _secular_root(probs, phi)
        log_ratio = [math.log1p(x * f) for f in phi]
        new = [ph / (1.0 + x * f) for ph, f in zip(probs, phi)]
        converged = max(abs(a - b) for a, b in zip(new, p)) < 1e-13
        p = new
        if converged:
            break
    return log_ratio


def llr_logistic(counts: Counts, elo0: float, elo1: float) -> float:
    """Generalized LLR of logistic Elo elo1 vs elo0 (fishtest LLR_logistic); 0 without games."""
    if sum(counts.as_list()) == 0:
        return 0.0
    total, values, probs = _regularized_pdf(counts)
    r0 = _mle_expected(probs, values, score_from_elo(elo0))
    r1 = _mle_expected(probs, values, score_from_elo(elo1))
    # log(p1_i / p0_i) = log(phat_i / p0_i) - log(phat_i / p1_i), summed over the data
    return total * sum(ph * (a - b) for ph, a, b in zip(probs, r0, r1))


def llr_normalized(counts: Counts, nelo0: float, nelo1: float) -> float:
    """Generalized LLR of normalized Elo nelo1 vs nelo0 (LLR_normalized); nan if unreachable."""
    if sum(counts.as_list()) == 0:
        return 0.0
    total, values, probs = _regularized_pdf(counts)
    # a pair's t-value is sqrt(2) times a game's for the same normalized Elo
    scale = (math.sqrt(2.0) if isinstance(counts, Pentanomial) else 1.0) / NELO_DIVIDED_BY_NT
    try:
        r0 = _mle_t_value(probs, values, 0.5, nelo0 * scale)
        r1 = _mle_t_value(probs, values, 0.5, nelo1 * scale)
    except (ArithmeticError, ValueError):
        return math.nan  # the t-value cannot be reached with these outcomes
    return total * sum(ph * (a - b) for ph, a, b in zip(probs, r0, r1))


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's stopping bounds: (log(beta / (1 - alpha)), log((1 - beta) / alpha))."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def sprt(
    counts: Counts,
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: Model = "logistic",
) -> SprtState:
    """The SPRT of H1: elo = elo1 against H0: elo = elo0 on trinomial or pentanomial counts."""
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"SPRT needs finite elo0 < elo1, not [{elo0}, {elo1}]")
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"SPRT needs 0 < alpha, beta and alpha + beta < 1, not {alpha}, {beta}")
    if model == "logistic":
        llr = llr_logistic(counts, elo0, elo1)
    elif model == "normalized":
        llr = llr_normalized(counts, elo0, elo1)
    else:
        raise ValueError(f"unknown SPRT model {model!r}: use 'logistic' or 'normalized'")
    lower, upper = sprt_bounds(alpha, beta)
    decision: Decision | None = None
    if llr >= upper:  # nan compares false both ways: no decision
        decision = "H1"
    elif llr <= lower:
        decision = "H0"
    return SprtState(llr, lower, upper, decision, float(elo0), float(elo1), alpha, beta, model)


def _series_estimate(trinomial: Trinomial, pentanomial: Pentanomial | None) -> EloEstimate:
    """Pair statistics when there are pairs (as fastchess reports), else single games."""
    if pentanomial is not None and pentanomial.pairs:
        return estimate_elo(pentanomial)
    return estimate_elo(trinomial)


def format_summary(
    name_a: str,
    name_b: str,
    trinomial: Trinomial,
    pentanomial: Pentanomial | None = None,
    sprt_state: SprtState | None = None,
) -> list[str]:
    """Cutechess-style report lines for a series of A against B."""
    counts: Counts = pentanomial if pentanomial is not None and pentanomial.pairs else trinomial
    est = estimate_elo(counts)
    t = trinomial
    share = f"{t.score:.3f}" if t.games else "-"
    los = f"{100.0 * est.los:.1f} %" if t.games else "-"
    lines = [
        f"Score of {name_a} vs {name_b}: {t.wins} - {t.losses} - {t.draws}  [{share}] {t.games}",
        f"Elo difference: {elo_text(counts)}, LOS: {los}",
    ]
    if pentanomial is not None:
        lines.append(f"Ptnml(0-2): [{', '.join(str(c) for c in pentanomial.as_list())}]")
    if sprt_state is not None:
        s = sprt_state
        lines.append(f"LLR: {s.llr:.2f} ({s.lower:.2f}, {s.upper:.2f}) [{s.elo0:.2f}, {s.elo1:.2f}]")
        lines.append(verdict(s, t.games))
    return lines


def verdict(state: SprtState, games: int) -> str:
    """The one line that says what the SPRT concluded, with the LLR it concluded on."""
    if state.decision == "H1":
        return f"SPRT: H1 was accepted (LLR {state.llr:.2f} >= {state.upper:.2f}) after {games} games"
    if state.decision == "H0":
        return f"SPRT: H0 was accepted (LLR {state.llr:.2f} <= {state.lower:.2f}) after {games} games"
    return f"SPRT: no decision (LLR {state.llr:.2f} in [{state.lower:.2f}, {state.upper:.2f}]) after {games} games"


def _json_float(x: float) -> float | None:
    return x if math.isfinite(x) else None


def to_json(
    trinomial: Trinomial,
    pentanomial: Pentanomial | None = None,
    sprt_state: SprtState | None = None,
) -> dict[str, Any]:
    """A JSON-safe summary: counts, Elo, error, interval and LOS, and the SPRT if any (non-finite -> None)."""
    est = _series_estimate(trinomial, pentanomial)
    interval = elo_interval(pentanomial if pentanomial is not None and pentanomial.pairs else trinomial)
    out: dict[str, Any] = {
        "games": trinomial.games,
        "wins": trinomial.wins,
        "draws": trinomial.draws,
        "losses": trinomial.losses,
        "pentanomial": pentanomial.as_list() if pentanomial is not None else None,
        "elo": _json_float(est.elo),
        "elo_error": _json_float(est.elo_error),
        "elo_lower": _json_float(interval[0]),
        "elo_upper": _json_float(interval[1]),
        "los": _json_float(est.los),
    }
    if sprt_state is not None:
        s = sprt_state
        out |= {
            "elo0": s.elo0,
            "elo1": s.elo1,
            "alpha": s.alpha,
            "beta": s.beta,
            "llr": _json_float(s.llr),
            "llr_lower": s.lower,
            "llr_upper": s.upper,
            "sprt": s.decision,
        }
    return out


SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")
MODELS: tuple[Model, ...] = ("logistic", "normalized")


class SprtSettingsError(ValueError):
    """SPRT settings that cannot be used; the message names the key."""


@dataclass(frozen=True)
class SprtSettings:
    """When a series may stop: H0 elo = elo0 against H1 elo = elo1, error rates alpha and beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: Model = "logistic"

    def to_data(self) -> dict[str, Any]:
        """The settings as stored with the results (and hashed into the config's fingerprint)."""
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model}

    def test(self, counts: Trinomial | Pentanomial) -> SprtState:
        """The SPRT of these settings on counts."""
        return sprt(counts, self.elo0, self.elo1, self.alpha, self.beta, self.model)


def sprt_settings(table: Mapping[str, Any], where: str = "sprt") -> SprtSettings:
    """Checked settings from a map (a config's [sprt] table or the parsed --sprt value)."""
    unknown = sorted(set(table) - set(SPRT_KEYS))
    if unknown:
        raise SprtSettingsError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(SPRT_KEYS)})")
    for key in ("elo0", "elo1"):
        if key not in table:
            raise SprtSettingsError(f"{where}: {key} is missing (e.g. elo0=0,elo1=5)")
    values: dict[str, float] = {}
    for key in ("elo0", "elo1", "alpha", "beta"):
        if key not in table:
            continue
        value = table[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise SprtSettingsError(f"{where}.{key}: must be a number, not {value!r}")
        values[key] = float(value)
    model = table.get("model", "logistic")
    if model not in MODELS:
        raise SprtSettingsError(f"{where}.model: must be one of {', '.join(MODELS)}, not {model!r}")
    settings = SprtSettings(values["elo0"], values["elo1"], values.get("alpha", 0.05), values.get("beta", 0.05),
                            model)
    if settings.elo0 >= settings.elo1:
        raise SprtSettingsError(f"{where}: elo0 ({settings.elo0:g}) must be below elo1 ({settings.elo1:g})")
    for key in ("alpha", "beta"):
        if not 0.0 < getattr(settings, key) < 0.5:
            raise SprtSettingsError(f"{where}.{key}: must be between 0 and 0.5, not {getattr(settings, key):g}")
    return settings
