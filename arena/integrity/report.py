"""`arena integrity`: for each ordered pair of players, did one lose to the other more than the rest of the results say?

The analysis (docs/integrity.md): copies of a game count once; a rating model is fitted to
the distinct games (arena/integrity/model.py), and each pair is judged by the model fitted
without its own games; a player's points against one opponent are tested against that
prediction, and, where the game's folder has an exact solver, its blunders against that
opponent against its blunders against the others (arena/integrity/stats.py). A pair's
p-value is the smaller of the two, doubled (Bonferroni: two tests); Holm's correction over
all ordered pairs decides which are flagged. Nothing here changes a result.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from arena.integrity.blunders import STRATA, Coverage, Decision, copy_key, game_decisions, read_game_log
from arena.integrity.judge import ResultTest, fit_games, judge_results
from arena.integrity.model import ELO_PER_LOGIT, ModelError
from arena.integrity.records import Game, IntegrityError, Results
from arena.integrity.solvers import SolverError, load_solver
from arena.integrity.stats import Stratum, blunder_test, holm

ALPHA = 0.05  # Holm's family-wise threshold over the ordered pairs of one set of results
BUDGET_NODES = 20_000  # the solver's effort per position


@dataclass
class PairFinding:
    """One ordered pair: did `player` lose to `opponent` more than expected?"""

    player: str
    opponent: str
    games: int  # distinct games between the two
    copies: int  # games in all, copies of a game included
    first: int  # of the distinct games, those the player moved first in
    points: float  # the player's points in the distinct games
    expected: float
    p_results: float
    blunders: int = 0  # the player's moves from won positions to lost ones, against the opponent
    won_moves: int = 0  # its moves from won positions against the opponent
    other_blunders: int = 0  # the same against everyone else
    other_won_moves: int = 0
    p_blunders: float | None = None
    spread: float = 0.0  # the sd of pair effects (logit) the results were judged with
    p: float = 1.0
    adjusted: float = 1.0
    flagged: bool = False

    def to_data(self, labels: dict[str, str]) -> dict[str, Any]:
        """Plain data for --json."""
        return {"player": labels[self.player], "opponent": labels[self.opponent], "games": self.games,
                "copies": self.copies, "moved_first": self.first, "points": self.points,
                "expected": round(self.expected, 3), "p_results": self.p_results,
                "spread_elo": round(self.spread * ELO_PER_LOGIT, 1),
                "blunders": {"against": [self.blunders, self.won_moves],
                             "others": [self.other_blunders, self.other_won_moves], "p": self.p_blunders},
                "p": self.p, "adjusted": self.adjusted, "flagged": self.flagged}

    def line(self, labels: dict[str, str]) -> str:
        """The evidence in one line."""
        text = (f"{labels[self.player]} -> {labels[self.opponent]}: {self.games} game(s)"
                + (f" ({self.copies} with copies)" if self.copies != self.games else "")
                + f", {self.first} moving first; {labels[self.player]} scored {self.points:g}, expected "
                f"{self.expected:.1f}, p = {self.p_results:.2g}")
        if self.p_blunders is not None or self.won_moves:
            text += (f"; blunders {self.blunders} of {self.won_moves} moves from won positions (against others "
                     f"{self.other_blunders} of {self.other_won_moves})"
                     + (f", p = {self.p_blunders:.2g}" if self.p_blunders is not None else ""))
        return text + f"; adjusted p = {self.adjusted:.2g}"


@dataclass
class Report:
    """The verdict on one set of results."""

    title: str
    game: str
    alpha: float
    labels: dict[str, str]
    games: int = 0
    distinct: int = 0
    advantage_elo: float = 0.0
    draw_share: float = 0.0
    spread: float = 0.0  # the sd of the pair effects (logit) that best explains the pairs
    solver: str = "none"  # "none", "off" or the game's name
    coverage: Coverage = field(default_factory=Coverage)
    findings: list[PairFinding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def flagged(self) -> list[PairFinding]:
        """The flagged pairs, most suspicious first."""
        return [f for f in self.findings if f.flagged]

    def to_data(self) -> dict[str, Any]:
        """Plain data for --json."""
        return {"title": self.title, "game": self.game, "players": len(self.labels), "games": self.games,
                "distinct_games": self.distinct, "alpha": self.alpha, "correction": "holm",
                "first_move_advantage_elo": round(self.advantage_elo, 1), "draw_share": round(self.draw_share, 4),
                "pair_spread_elo": round(self.spread * ELO_PER_LOGIT, 1),
                "solver": self.solver,
                "coverage": {"games": self.coverage.games, "positions": self.coverage.positions,
                             "solved": self.coverage.solved, "won_moves": self.coverage.won_moves,
                             "blunders": self.coverage.blunders},
                "pairs": [f.to_data(self.labels) for f in self.findings],
                "flagged": len(self.flagged), "notes": self.notes + self.coverage.problems}

    def lines(self, every: bool = False, next_ones: int = 3) -> list[str]:
        """The report as text: the setting, the flagged pairs with their evidence, the nearest others."""
        out = [f"integrity of {self.title} ({self.game}): {len(self.labels)} players, {self.games} games "
               f"({self.distinct} distinct), {len(self.findings)} ordered pairs tested",
               f"model: Bradley-Terry, first-move advantage {self.advantage_elo:+.0f} Elo, "
               + (f"{self.draw_share:.0%} draws expected in an even game" if self.draw_share else "no draws")
               + f"; pairs stray {self.spread * ELO_PER_LOGIT:.0f} Elo (sd) from their ratings; each pair judged "
               "without its own games"]
        if self.solver == "none":
            out.append(f"blunders: {self.game} has no solver (its folder's solver.py): results only")
        elif self.solver == "off":
            out.append("blunders: not looked for (--no-blunders): results only")
        else:
            c = self.coverage
            out.append(f"blunders: the solver settled {c.solved} of {c.positions} positions of {c.games} distinct "
                       f"games; {c.won_moves} moves from won positions, {c.blunders} of them blunders")
        out += [f"note: {note}" for note in self.notes + self.coverage.problems]
        flagged = self.flagged
        if flagged:
            out.append(f"FLAGGED (Holm-adjusted p <= {self.alpha:g}), most suspicious first:")
            out += [f"  {k}. {f.line(self.labels)}" for k, f in enumerate(flagged, 1)]
        else:
            out.append(f"no pair flagged (Holm-adjusted p <= {self.alpha:g})")
        rest = [f for f in self.findings if not f.flagged]
        shown = rest if every else rest[:next_ones]
        if shown:
            out.append("every other pair:" if every else "the most suspicious of the others:")
            out += [f"  {f.line(self.labels)}" for f in shown]
        return out


def analyse(results: Results, alpha: float = ALPHA, budget: int = BUDGET_NODES, blunders: bool = True) -> Report:
    """Judge every ordered pair of the results; IntegrityError when they cannot be judged."""
    labels = {key: player.label for key, player in results.players.items()
              if any(key in g.seats for g in results.games)}
    report = Report(results.title, results.game, alpha, labels, games=len(results.games), notes=list(results.notes))
    distinct, copies, logs = _distinct(results.games)
    report.distinct = len(distinct)
    missing = sum(1 for g in results.games if logs.get(g.ref) is None)
    if missing:
        report.notes.append(f"{missing} game(s) without a readable log: each counts as distinct, with no blunders")
    if len(labels) < 2 or not distinct:
        return report
    index = {key: k for k, key in enumerate(labels)}
    try:
        fit = fit_games(index, distinct)
        tests, report.spread = judge_results(index, distinct, fit)
    except ModelError as exc:
        raise IntegrityError(f"{results.title}: the rating fit failed: {exc}") from None
    report.advantage_elo = fit.h * ELO_PER_LOGIT
    report.draw_share = fit.nu / (2 + fit.nu)
    decisions = _decisions(results, distinct, logs, budget, report) if blunders else []
    if not blunders:
        report.solver = "off"
    report.findings = _pairs(tests, copies, decisions, report.solver not in ("none", "off"))
    for finding, adjusted in zip(report.findings, holm([f.p for f in report.findings]), strict=True):
        finding.adjusted = adjusted
        finding.flagged = adjusted <= alpha
    report.findings.sort(key=lambda f: (f.adjusted, f.p, f.player, f.opponent))
    return report


def _distinct(games: list[Game]) -> tuple[list[Game], dict[str, int], dict[str, Any]]:
    """The distinct games (first of each set of copies), how many copies each has, and every game's log."""
    seen: dict[tuple[Any, ...], Game] = {}
    copies: dict[str, int] = defaultdict(int)
    logs: dict[str, Any] = {}
    for game in games:
        log = read_game_log(game)
        logs[game.ref] = log
        first = seen.setdefault(copy_key(game, log), game)
        copies[first.ref] += 1
    return list(seen.values()), copies, logs


def _decisions(results: Results, distinct: list[Game], logs: dict[str, Any], budget: int,
               report: Report) -> list[Decision]:
    """Every decision from a won position in the distinct games (none when the game has no solver)."""
    try:
        solve = load_solver(results.game)
    except SolverError as exc:
        report.notes.append(str(exc))
        return []
    if solve is None:
        return []
    report.solver = results.game
    found: list[Decision] = []
    try:
        for game in distinct:
            log = logs.get(game.ref)
            if log is not None:
                found += game_decisions(game, log, solve, budget, report.coverage)
    except SolverError as exc:
        report.notes.append(f"blunders left out: {exc}")
        report.solver = "none"
        return []
    # A decision met again (the same position and move against the same opponent) is one piece of evidence.
    unique = {(d.player, d.opponent, d.key): d for d in found}
    return list(unique.values())


def _pairs(tests: list[ResultTest], copies: dict[str, int], decisions: list[Decision],
           solved: bool) -> list[PairFinding]:
    """A finding for each ordered pair that played (Holm's adjustment still to come)."""
    counts = _decision_counts(decisions)
    findings = []
    for test in tests:
        finding = PairFinding(test.player, test.opponent, len(test.games), sum(copies[g.ref] for g in test.games),
                              sum(1 for g in test.side if g.first), sum(g.points for g in test.side),
                              test.expected, test.p, spread=test.spread)
        if solved:
            _add_blunders(finding, counts)
        # Two tests of one pair: the smaller p-value, doubled (Bonferroni), whatever their dependence.
        found = [p for p in (finding.p_results, finding.p_blunders) if p is not None]
        finding.p = min(1.0, len(found) * min(found))
        findings.append(finding)
    return findings


def _decision_counts(decisions: Iterable[Decision]) -> dict[str, dict[str, list[list[int]]]]:
    """player -> opponent -> per stratum [blunders, moves]."""
    counts: dict[str, dict[str, list[list[int]]]] = defaultdict(dict)
    for d in decisions:
        strata = counts[d.player].setdefault(d.opponent, [[0, 0] for _ in range(STRATA)])
        strata[d.stratum][0] += d.blunder
        strata[d.stratum][1] += 1
    return counts


def _add_blunders(finding: PairFinding, counts: dict[str, dict[str, list[list[int]]]]) -> None:
    """The player's blunders against the opponent and against the rest, and their stratified test."""
    mine = counts.get(finding.player, {})
    against = mine.get(finding.opponent, [[0, 0] for _ in range(STRATA)])
    totals = [[sum(s[k][0] for s in mine.values()), sum(s[k][1] for s in mine.values())] for k in range(STRATA)]
    finding.blunders = sum(s[0] for s in against)
    finding.won_moves = sum(s[1] for s in against)
    finding.other_blunders = sum(t[0] for t in totals) - finding.blunders
    finding.other_won_moves = sum(t[1] for t in totals) - finding.won_moves
    strata = [Stratum(against[k][0], against[k][1], totals[k][0], totals[k][1]) for k in range(STRATA)]
    finding.p_blunders = blunder_test(strata)
