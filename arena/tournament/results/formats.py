"""Tournament formats: which matches are played, from the config and the results so far.

* round-robin (default): every group of `players` bots, every setup, every cycle of seat rotations.
* gauntlet: the same, but only groups with at least one of the `challengers` in them.
* knockout: a seeded bracket (config order = seeds; byes for the top seeds when the field is not
  a power of two). Each tie is a series of `games_per_pairing` games in the duplicate format; when
  it ends level, up to `tiebreak_pairs` extra pairs of games are played one pair at a time, and if
  it is still level the higher seed goes through.
* swiss: `rounds` rounds; each pairs the bots by score (then seed) with no repeat pairing, the
  lowest-placed bot that has not had one gets a bye when the field is odd (worth a won pairing:
  `games_per_pairing` points); the final order is by score, then Buchholz (the sum of the
  opponents' scores), then seed.

A plan is a pure function of the config and the stored results, so a resume after a kill
recomputes exactly the rounds that were being played. Every match keeps a stable id and seed.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from arena.tournament.plan.config import (
    BLOCK,
    TIEBREAK_BASE,
    TIEBREAK_PAIRS,
    FormatSpec,
    TournamentConfig,
    default_rounds,
)
from arena.tournament.plan.schedule import MatchTask, derive_seed, match_id
from arena.tournament.results.points import comparisons, pair_points
from arena.tournament.workers.worker import MatchRecord

UNDECIDED = -1  # a bracket slot whose tie has no winner yet

Results = Mapping[str, MatchRecord]


@dataclass(frozen=True)
class Shape:
    """What every format needs to know: bots, seats, setups, games per pairing, seed."""

    bots: int
    players: int
    setups: int
    games_per_pairing: int
    seed: int


class Plan(Protocol):
    """The matches of a tournament as its results come in."""

    dynamic: bool  # later matches depend on results (knockout, Swiss)

    def tasks(self, results: Results) -> list[MatchTask]:
        """Every match that can be scheduled now, in a stable order."""

    def finished(self, results: Results) -> bool:
        """Whether every match the format will ever schedule has a result."""

    def total(self) -> int:
        """The matches planned (knockout: without tie-breaks)."""

    def order(self, results: Results) -> list[int] | None:
        """Bots by final place where the format decides it (None: by points)."""

    def summary(self, results: Results, names: list[str]) -> dict[str, Any] | None:
        """The format's own report section (the bracket, the Swiss rounds), or None."""


@dataclass
class RoundRobin:
    """Every group (or, for a gauntlet, every group with a challenger) plays every setup and rotation."""

    shape: Shape
    challengers: tuple[int, ...] = ()
    dynamic = False

    def __post_init__(self) -> None:
        from arena.tournament.plan.schedule import build_schedule

        every = build_schedule(self.shape.bots, self.shape.players, self.shape.setups,
                               self.shape.games_per_pairing, self.shape.seed)
        if self.challengers:
            wanted = set(self.challengers)
            every = [t for t in every if wanted & set(t.bots)]
            every = [MatchTask(i, t.match, t.round, t.setup, t.seed, t.bots) for i, t in enumerate(every)]
        self._tasks = every

    def tasks(self, results: Results) -> list[MatchTask]:
        """Every match, known from the start."""
        return list(self._tasks)

    def finished(self, results: Results) -> bool:
        """Every match has a result."""
        return all(t.match in results for t in self._tasks)

    def total(self) -> int:
        """The number of matches."""
        return len(self._tasks)

    def order(self, results: Results) -> list[int] | None:
        """Points decide."""
        return None

    def summary(self, results: Results, names: list[str]) -> dict[str, Any] | None:
        """Nothing beyond the standings."""
        return None


def _pairing_tasks(shape: Shape, a: int, b: int, round_: int, slot: int, tag: str) -> list[MatchTask]:
    """The games of one pairing: every setup, every cycle, both seat orders; one seed per (setup, cycle)."""
    tasks = []
    for cycle in range(shape.games_per_pairing // 2):
        for setup in range(shape.setups):
            seed = derive_seed(shape.seed, tag, round_, setup, cycle)
            for seats in ((a, b), (b, a)):
                ord_ = round_ * BLOCK * BLOCK + slot * BLOCK + len(tasks)
                tasks.append(MatchTask(ord_, f"{tag[0]}{round_}-p{slot}-" + match_id(setup, cycle, seats),
                                       cycle, setup, seed, seats))
    return tasks


def _points(records: Iterable[MatchRecord], bot: int) -> float:
    """The pairwise points bot took in these two-player records."""
    total = 0.0
    for group in comparisons(list(records), 2):
        for entry in group:
            if entry.bot == bot:
                total += sum(pair_points(entry, other)[0] for other in group if other is not entry)
    return total


@dataclass
class _Tie:
    round: int
    slot: int
    a: int  # the higher seed of the two
    b: int | None  # None: a bye
    tasks: list[MatchTask]
    winner: int | None = None
    points: tuple[float, float] = (0.0, 0.0)


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket slot order: 1 meets size, 2 meets size - 1, ... (size: a power of 2)."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


@dataclass
class Knockout:
    """A seeded single-elimination bracket; ties are series, level ties go to tie-break pairs."""

    shape: Shape
    tiebreak_pairs: int = TIEBREAK_PAIRS
    dynamic = True

    def _rounds(self, results: Results) -> tuple[list[list[_Tie]], int | None]:
        """Every tie whose players are known, round by round, and the champion once there is one."""
        size = 1 << max(0, math.ceil(math.log2(self.shape.bots)))
        entrants: list[int | None] = [s - 1 if s <= self.shape.bots else None for s in bracket_order(size)]
        rounds: list[list[_Tie]] = []
        round_ = 1
        while len(entrants) > 1:
            ties: list[_Tie] = []
            winners: list[int | None] = []
            for slot in range(len(entrants) // 2):
                x, y = entrants[2 * slot], entrants[2 * slot + 1]
                if x == UNDECIDED or y == UNDECIDED:
                    winners.append(UNDECIDED)
                elif x is None or y is None:  # a bye (first round only: byes go to the top seeds)
                    through = x if y is None else y
                    ties.append(_Tie(round_, slot, through if through is not None else -1, None, [], through))
                    winners.append(through)
                else:
                    tie = self._tie(results, round_, slot, min(x, y), max(x, y))
                    ties.append(tie)
                    winners.append(tie.winner if tie.winner is not None else UNDECIDED)
            rounds.append(ties)
            entrants = winners
            round_ += 1
        champion = entrants[0] if entrants and entrants[0] is not None and entrants[0] != UNDECIDED else None
        return rounds, champion

    def _tie(self, results: Results, round_: int, slot: int, a: int, b: int) -> _Tie:
        tasks = _pairing_tasks(self.shape, a, b, round_, slot, "knockout")
        tie = _Tie(round_, slot, a, b, tasks)
        for k in range(self.tiebreak_pairs + 1):
            if not all(t.match in results for t in tie.tasks):
                return tie
            played = [results[t.match] for t in tie.tasks]
            tie.points = (_points(played, a), _points(played, b))
            if tie.points[0] != tie.points[1]:
                tie.winner = a if tie.points[0] > tie.points[1] else b
                return tie
            if k == self.tiebreak_pairs:
                break
            setup = k % self.shape.setups
            seed = derive_seed(self.shape.seed, "tiebreak", round_, slot, k)
            for j, seats in enumerate(((a, b), (b, a))):
                ord_ = round_ * BLOCK * BLOCK + slot * BLOCK + TIEBREAK_BASE + 2 * k + j
                tie.tasks.append(MatchTask(ord_, f"k{round_}-p{slot}-x{k}-" + "-".join(f"b{s}" for s in seats),
                                           self.shape.games_per_pairing // 2 + k, setup, seed, seats))
        tie.winner = a  # still level: the higher seed goes through
        return tie

    def tasks(self, results: Results) -> list[MatchTask]:
        """The games of every tie whose two players are known."""
        return sorted((t for ties in self._rounds(results)[0] for tie in ties for t in tie.tasks), key=lambda t: t.ord)

    def finished(self, results: Results) -> bool:
        """The final has a winner."""
        return self._rounds(results)[1] is not None

    def total(self) -> int:
        """Every bot but the champion loses one tie: (bots - 1) ties of games_per_pairing games each."""
        return (self.shape.bots - 1) * self.shape.setups * self.shape.games_per_pairing

    def order(self, results: Results) -> list[int] | None:
        """The champion, the finalist, then by the round lost in (later first), then seed."""
        rounds, champion = self._rounds(results)
        if champion is None:
            return None
        lost_in = {tie.b if tie.winner == tie.a else tie.a: tie.round
                   for ties in rounds for tie in ties if tie.b is not None and tie.winner is not None}
        return [champion] + sorted(lost_in, key=lambda bot: (-lost_in[bot], bot))

    def summary(self, results: Results, names: list[str]) -> dict[str, Any] | None:
        """The bracket: each round's ties, their points and winners; the champion."""
        rounds = []
        for ties in self._rounds(results)[0]:
            rounds.append([{"a": names[t.a] if t.a >= 0 else None, "b": names[t.b] if t.b is not None else None,
                            "points": list(t.points) if t.b is not None else None,
                            "games": sum(1 for task in t.tasks if task.match in results),
                            "winner": names[t.winner] if t.winner is not None else None} for t in ties])
        champion = self._rounds(results)[1]
        return {"format": "knockout", "rounds": rounds, "champion": names[champion] if champion is not None else None}


@dataclass
class _SwissRound:
    pairings: list[tuple[int, int]]
    bye: int | None
    tasks: list[MatchTask]


@dataclass
class Swiss:
    """Rounds paired by score with no repeat pairings; byes for odd fields."""

    shape: Shape
    rounds: int
    dynamic = True

    def _played(self, results: Results) -> tuple[list[_SwissRound], dict[int, float]]:
        """The rounds that can be paired now, and every bot's score from the finished ones."""
        n = self.shape.bots
        score = dict.fromkeys(range(n), 0.0)
        met: set[frozenset[int]] = set()
        byes: set[int] = set()
        done: list[_SwissRound] = []
        for round_ in range(1, self.rounds + 1):
            order = sorted(range(n), key=lambda bot: (-score[bot], bot))
            bye = None
            if n % 2:
                bye = next((bot for bot in reversed(order) if bot not in byes), order[-1])
                order.remove(bye)
            pairs = _pair(order, met) or _pair(order, set())  # a repeat only when nothing else is left
            assert pairs is not None  # an even list always pairs when repeats are allowed
            tasks = [t for slot, (a, b) in enumerate(pairs)
                     for t in _pairing_tasks(self.shape, a, b, round_, slot, "swiss")]
            done.append(_SwissRound(pairs, bye, tasks))
            if not all(t.match in results for t in tasks):
                break
            for a, b in pairs:
                played = [results[t.match] for t in tasks if set(t.bots) == {a, b}]
                score[a] += _points(played, a)
                score[b] += _points(played, b)
                met.add(frozenset((a, b)))
            if bye is not None:
                byes.add(bye)
                score[bye] += self.shape.games_per_pairing * self.shape.setups
        return done, score

    def tasks(self, results: Results) -> list[MatchTask]:
        """Every round paired so far."""
        return [t for r in self._played(results)[0] for t in r.tasks]

    def finished(self, results: Results) -> bool:
        """All rounds are paired and played."""
        rounds, _ = self._played(results)
        return len(rounds) == self.rounds and all(t.match in results for t in rounds[-1].tasks)

    def total(self) -> int:
        """rounds × pairings × setups × games per pairing."""
        return self.rounds * (self.shape.bots // 2) * self.shape.setups * self.shape.games_per_pairing

    def _table(self, results: Results) -> list[tuple[int, float, float]]:
        rounds, score = self._played(results)
        opponents: dict[int, list[int]] = {bot: [] for bot in score}
        for r in rounds:
            for a, b in r.pairings:
                opponents[a].append(b)
                opponents[b].append(a)
        buchholz = {bot: sum(score[o] for o in opponents[bot]) for bot in score}
        return sorted(((bot, score[bot], buchholz[bot]) for bot in score), key=lambda x: (-x[1], -x[2], x[0]))

    def order(self, results: Results) -> list[int] | None:
        """By score, then Buchholz, then seed (once every round is played)."""
        return [bot for bot, _, _ in self._table(results)] if self.finished(results) else None

    def summary(self, results: Results, names: list[str]) -> dict[str, Any] | None:
        """Each round's pairings and bye, and the table with Buchholz."""
        rounds, _ = self._played(results)
        return {
            "format": "swiss",
            "rounds": [{"pairings": [[names[a], names[b]] for a, b in r.pairings],
                        "bye": names[r.bye] if r.bye is not None else None} for r in rounds],
            "table": [{"name": names[bot], "score": s, "buchholz": b} for bot, s, b in self._table(results)],
        }


def _pair(order: list[int], met: set[frozenset[int]]) -> list[tuple[int, int]] | None:
    """Pair the bots top-down, each with the best-placed one it has not met (backtracking)."""
    if not order:
        return []
    first, rest = order[0], order[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair(rest[:i] + rest[i + 1:], met)
        if tail is not None:
            return [(first, other), *tail]
    return None


def make_plan(shape: Shape, spec: FormatSpec) -> Plan:
    """The plan of a format for this shape."""
    if spec.kind == "gauntlet":
        return RoundRobin(shape, spec.challengers)
    if spec.kind == "knockout":
        return Knockout(shape, spec.tiebreak_pairs)
    if spec.kind == "swiss":
        return Swiss(shape, spec.rounds or default_rounds(shape.bots))
    return RoundRobin(shape)


def plan_for(config: TournamentConfig) -> Plan:
    """The plan of a checked config."""
    shape = Shape(len(config.bots), config.players, len(config.setups), config.games_per_pairing, config.seed)
    return make_plan(shape, config.format)


def plan_of(config: Mapping[str, Any]) -> Plan:
    """The plan of a stored config (what to_data() wrote)."""
    names = [b["name"] for b in config["bots"]]
    kind = config.get("format", "round-robin")
    spec = FormatSpec(kind, tuple(names.index(n) for n in config.get("challengers", [])),
                      int(config.get("rounds", 0)), int(config.get("tiebreak_pairs", TIEBREAK_PAIRS)))
    shape = Shape(len(names), int(config["players"]), len(config["setups"]), int(config["games_per_pairing"]),
                  int(config["seed"]))
    return make_plan(shape, spec)


def first_round_counts(plan: Plan, bots: int) -> tuple[int, list[int]]:
    """Matches that can be scheduled before any result, and how many each bot plays of them."""
    tasks = plan.tasks({})
    per_bot = [0] * bots
    for task in tasks:
        for bot in set(task.bots):
            per_bot[bot] += 1
    return len(tasks), per_bot

