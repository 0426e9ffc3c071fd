"""The ladder's choices, as pure functions: who plays next, against whom, and how ratings move.

The pairing follows what Halite learned: the next bot is chosen 65 % of the time with weight
1/(games+1) among the versions, 25 % as the longest-idle of those with few games, 10 % as the
longest-idle overall; a version with a game in flight waits; its opponent is drawn from the
k nearest by rating, k shrinking as its uncertainty falls. A new version first plays its
placement games against opponents spread over the rating range. Ratings are openskill's
Plackett-Luce (mu, sigma); the board ranks by the conservative mu - 3 sigma.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

MU = 25.0
SIGMA = MU / 3
FEW_GAMES = 20  # "few games" for the longest-idle pick


@dataclass(frozen=True)
class Entry:
    """An active version as the scheduler sees it."""

    id: int
    mu: float
    sigma: float
    games: int
    last_game: float  # when it last finished a game (0: never)
    placement_left: int = 0
    busy: bool = False  # a game of it is in flight
    house: bool = False  # a reference bot: an opponent, never the one a game is scheduled for

    @property
    def conservative(self) -> float:
        """The rating the board ranks by."""
        return self.mu - 3 * self.sigma


def nearest_k(sigma: float, count: int) -> int:
    """How many neighbours by rating an opponent is drawn from: many while uncertain, few once settled."""
    share = min(1.0, max(0.15, sigma / SIGMA))
    return max(1, min(count, round(share * count)))


def placement_opponent(new: Entry, others: Sequence[Entry], played: int, rng: random.Random) -> Entry:
    """A placement opponent: the rating range cut into slices, one slice per placement game in turn."""
    ordered = sorted(others, key=lambda e: e.mu)
    slices = max(1, min(len(ordered), played + new.placement_left))
    index = played % slices
    lo = index * len(ordered) // slices
    hi = max(lo + 1, (index + 1) * len(ordered) // slices)
    return rng.choice(ordered[lo:hi])


def pick_pair(entries: Sequence[Entry], rng: random.Random, placement_played: dict[int, int] | None = None,
              max_games: int | None = None) -> tuple[Entry, Entry, bool] | None:
    """The next game (first, second, is_placement), or None when nothing is left to play.

    The first is an entrant's version with fewer than max_games games; the house bots are
    opponents only, and versions that have played enough are opponents only in placement games
    (or when no other is free), so the ladder comes to rest with each near max_games.
    """
    free = [e for e in entries if not e.busy]
    if len(free) < 2:
        return None
    placing = [e for e in free if e.placement_left > 0 and not e.house]
    if placing:  # never starve a new version: placement first, the one waiting longest first
        first = min(placing, key=lambda e: (e.last_game, e.id))
        others = [e for e in free if e.id != first.id]
        played = (placement_played or {}).get(first.id, 0)
        return first, placement_opponent(first, others, played, rng), True
    candidates = [e for e in free if not e.house and (max_games is None or e.games < max_games)]
    if not candidates:
        return None
    draw = rng.random()
    if draw < 0.65:
        weights = [1.0 / (e.games + 1) for e in candidates]
        first = rng.choices(candidates, weights=weights)[0]
    elif draw < 0.90:
        few = [e for e in candidates if e.games < FEW_GAMES] or candidates
        first = min(few, key=lambda e: (e.last_game, e.id))
    else:
        first = min(candidates, key=lambda e: (e.last_game, e.id))
    # A version that has played its max_games is no regular opponent either (while others are free): its count
    # stops there, but for the placement games of newcomers, which draw from the whole range.
    others = [e for e in free if e.id != first.id]
    short = [e for e in others if e.house or max_games is None or e.games < max_games]
    others = sorted(short or others, key=lambda e: (abs(e.mu - first.mu), e.id))
    k = nearest_k(first.sigma, len(others))
    return first, rng.choice(others[:k]), False


def rate(a: tuple[float, float], b: tuple[float, float], ranks: Sequence[int]
         ) -> tuple[tuple[float, float], tuple[float, float]]:
    """The new (mu, sigma) of two versions after a game with these ranks (0 first; equal: a draw)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce(mu=MU, sigma=SIGMA)
    first = model.create_rating([a[0], a[1]])
    second = model.create_rating([b[0], b[1]])
    [[new_a], [new_b]] = model.rate([[first], [second]], ranks=[float(ranks[0]), float(ranks[1])])
    return (new_a.mu, new_a.sigma), (new_b.mu, new_b.sigma)


def interval(mu: float, sigma: float) -> tuple[float, float]:
    """The 95 % interval shown beside a rating."""
    return mu - 1.96 * sigma, mu + 1.96 * sigma


PROVISIONAL_SHARE = 10  # a version with fewer than a tenth of the games typical on the board is not yet placed


def provisional(games: int, typical: float, minimum: int) -> bool:
    """Whether a rating is marked provisional: fewer games than the config asks, or than the board's others have."""
    return games < minimum or games * PROVISIONAL_SHARE < typical
