"""The reference bots of Goofspiel: `random`, and `montecarlo` (samples what it cannot see).

Both keep only their seat's view (GameBot with Goofspiel's start_view): their own cards, the
other's cards left (every bid is shown once a round is over), the prizes shown so far. The
prize deck's order is never sent, so montecarlo draws it at random, as it draws the other's
bids from the cards the other has left.
"""

from __future__ import annotations

import random
import time
from typing import Any

from arena.games import Move
from bots import common
from bots.common import GameBot, int_option

from .rules import Round

SAFETY_MS = 150  # kept back from the clock for the wire and the rest of the game


class RandomBot(common.RandomBot):
    """A uniformly random card of its hand (seeded)."""

    description = "uniformly random card"


def prizes_left(state: Round) -> list[int]:
    """The prizes not shown yet: every card but those of the rounds played and the prize shown."""
    gone = set(range(1, state.cards + 1)) - set(state.hands[0]) | {state.prize}
    return [card for card in range(1, state.cards + 1) if card not in gone]


def playout(mine: list[int], theirs: list[int], prizes: list[int], rng: random.Random) -> int:
    """The points difference of the rounds after this one, with prizes in this order, both sides bidding at random."""
    mine, theirs = list(mine), list(theirs)
    rng.shuffle(mine)
    rng.shuffle(theirs)
    total = 0
    for prize, a, b in zip(prizes, mine, theirs):
        total += prize if a > b else -prize if b > a else 0
    return total


class MonteCarloBot(GameBot):
    """Each card scored by random games of the rounds left, with the deck and the other's bids drawn at random."""

    name = "montecarlo"
    strength = 2
    description = "each bid scored by sampled playouts of the unseen deck and the other's cards"

    def __init__(self, samples: int = 200, **options: Any) -> None:
        super().__init__(**options)
        self.samples = int_option("samples", samples)

    def choose(self, state: Round, time_left_ms: int) -> Move:
        mine, theirs = state.moves_of(self.seat), state.hands[1 - self.seat]
        if len(mine) == 1:
            return mine[0]
        prize = state.prize or 0
        future = prizes_left(state)
        rounds = len(mine)
        deadline = time.monotonic() + max(0.0, (time_left_ms - SAFETY_MS) / rounds / 1000.0)
        totals = dict.fromkeys(mine, 0.0)
        for sample in range(self.samples):
            if sample and time.monotonic() > deadline:
                break
            seed = self.rng.random()
            order = list(future)
            random.Random(seed).shuffle(order)
            other = random.Random(seed).choice(theirs)  # the same draws for every candidate: a fair comparison
            for bid in mine:
                rng = random.Random(seed)
                now = prize if bid > other else -prize if other > bid else 0
                rest_mine = [c for c in mine if c != bid]
                rest_theirs = list(theirs)
                rest_theirs.remove(other)
                totals[bid] += now + playout(rest_mine, rest_theirs, order, rng)
        return max(mine, key=lambda card: (totals[card], -card))


BOTS = [RandomBot, MonteCarloBot]
