"""The schedule: every match of a tournament, in a fixed order, with stable ids and seeds.

Everything here is a pure function of the config, so a rerun or a resume plays exactly
the same matches with the same seeds.

Shape: for every group of `players` distinct bots (every pair in a two-player game, every
bot alone in a solo game), every setup and every cycle, the group plays each cyclic
rotation of its seat order once. So every bot sits in every seat equally often, and in an
N-player game it meets every other bot while sitting in each seat. The match seed depends
only on (setup, cycle): every pairing and every rotation of one cycle sees the same chance
draws, which is the duplicate format of solo games and a fairer comparison in the others.
"""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from dataclasses import dataclass

SEED_MODULUS = 2**31  # seeds stay positive 32-bit integers, like `arena match --seed`


def derive_seed(*parts: object) -> int:
    """A seed derived from its parts by hashing (stable across runs and platforms)."""
    text = "|".join(str(part) for part in parts)
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % SEED_MODULUS


@dataclass(frozen=True)
class MatchTask:
    """One scheduled match: its id, position in the schedule, setup, seed and seating."""

    ord: int  # position in the schedule; reports list matches in this order
    match: str  # stable id from (setup, cycle, seat order)
    round: int  # the cycle of seat rotations this match belongs to
    setup: int  # index into the tournament's setups
    seed: int
    bots: tuple[int, ...]  # the bot index sitting in each seat


def match_id(setup: int, cycle: int, seats: tuple[int, ...]) -> str:
    """The stable id of the match of these seats in this setup and cycle."""
    return f"s{setup}-r{cycle}-" + "-".join(f"b{bot}" for bot in seats)


def build_schedule(bots: int, players: int, setups: int, games_per_pairing: int, seed: int) -> list[MatchTask]:
    """Every match of a round-robin, cycle by cycle so partial results cover every bot."""
    if players < 1 or bots < players:
        raise ValueError(f"cannot seat {players} players from {bots} bots")
    if games_per_pairing % players:
        raise ValueError(f"games_per_pairing {games_per_pairing} is not a multiple of {players} seats")
    cycles = games_per_pairing // players
    groups = list(itertools.combinations(range(bots), players))
    tasks: list[MatchTask] = []
    for cycle in range(cycles):
        for setup in range(setups):
            match_seed = derive_seed(seed, "match", setup, cycle)
            for group in groups:
                for shift in range(players):
                    seats = group[shift:] + group[:shift]
                    tasks.append(MatchTask(len(tasks), match_id(setup, cycle, seats), cycle, setup,
                                           match_seed, seats))
    return tasks


def seat_counts(tasks: list[MatchTask]) -> Counter[tuple[int, int]]:
    """How often each (bot, seat) occurs: equal for every bot and seat in a balanced schedule."""
    return Counter((bot, seat) for task in tasks for seat, bot in enumerate(task.bots))
