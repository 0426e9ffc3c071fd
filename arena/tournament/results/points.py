"""Points from pairwise comparisons: who ranked ahead of whom in a match (or, solo, on one seed).

In every match each bot gets 1 for every other seat it ranked ahead of, 0.5 for every tie and
0 for every seat ahead of it. Solo games are compared in the duplicate format: the bots that
played the same (setup, round) seed are ranked by score against each other. Standings,
the live leader and the formats that pair by results (knockout, Swiss) all count this way.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from arena.games import ranks_from_scores
from arena.tournament.results.strikes import forfeited_seats
from arena.tournament.workers.worker import MatchRecord


@dataclass
class Entry:
    """One bot in one comparison: its rank there, and whether it forfeited."""

    bot: int
    rank: int
    score: float
    forfeited: bool


def comparisons(records: list[MatchRecord], players: int) -> list[list[Entry]]:
    """The ranked groups points come from: each match, or (solo) each duplicate (setup, round)."""
    if players > 1:
        groups = []
        for record in records:
            out = set(forfeited_seats(record))
            groups.append([Entry(bot, record.ranks[seat], record.scores[seat], seat in out)
                           for seat, bot in enumerate(record.bots)])
        return groups
    by_seed: dict[tuple[int, int], list[MatchRecord]] = defaultdict(list)
    for record in records:
        by_seed[(record.setup, record.round)].append(record)
    groups = []
    for key in sorted(by_seed, key=lambda k: min(r.ord for r in by_seed[k])):
        rows = by_seed[key]
        played = [r for r in rows if r.played]
        ranks = iter(ranks_from_scores([r.scores[0] for r in played]))
        group = [Entry(r.bots[0], next(ranks), r.scores[0], False) for r in played]
        group += [Entry(r.bots[0], len(played) + 1, r.scores[0], True) for r in rows if not r.played]
        groups.append(group)
    return groups


def pair_points(a: Entry, b: Entry) -> tuple[float, float]:
    """The points a and b take from each other (two forfeits: both lose)."""
    if a.forfeited and b.forfeited:
        return 0.0, 0.0
    if a.rank < b.rank:
        return 1.0, 0.0
    if a.rank > b.rank:
        return 0.0, 1.0
    return 0.5, 0.5
