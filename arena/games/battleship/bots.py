"""The reference bots of Battleship: `random`, and `density` (fires where the remaining ships fit most ways).

Both keep only their seat's view (GameBot with Battleship's start_view): their own fleet, their
shots and what the referee said of them, the other's shots at them. Neither is ever sent the
other's fleet, and neither needs it.
"""

from __future__ import annotations

from collections import Counter

from arena.games import Move
from bots import common
from bots.common import GameBot

from .rules import DIRECTIONS, Battle, Cell, random_fleet, ship_cells

HIT_WEIGHT = 50  # a placement through k unsunk hits counts HIT_WEIGHT**k times: it explains them


class RandomBot(common.RandomBot):
    """A random legal placement, then random shots at cells not fired at yet (seeded)."""

    description = "random placement, random untried shots"

    def choose(self, state: Battle, time_left_ms: int) -> Move:
        if not state.placed:
            return random_fleet(state.size, state.fleet, self.rng)
        return super().choose(state, time_left_ms)


def remaining_ships(state: Battle, seat: int) -> Counter[int]:
    """The lengths of the other's ships that seat has not sunk yet, with how many of each."""
    left = Counter(state.fleet)
    left.subtract(ship[3] for ship in state.sunk[seat])
    return +left


def density(state: Battle, seat: int) -> dict[Cell, int]:
    """For every cell seat has not fired at: in how many ways the ships left cover it, hits weighing.

    A placement of a ship left must avoid every miss and every sunk ship's cell. While some hit
    belongs to no sunk ship, only placements through such hits count (one of them explains it),
    each HIT_WEIGHT**(the hits it covers) times: the shots close in around the hits by themselves.
    """
    size, marks = state.size, state.marks[seat]
    open_hits = {(i // size, i % size) for i, mark in enumerate(marks) if mark == "x"}
    weights: dict[Cell, int] = {}
    for length, count in remaining_ships(state, seat).items():
        for direction in DIRECTIONS:
            for row in range(size - (length - 1 if direction == "v" else 0)):
                for col in range(size - (length - 1 if direction == "h" else 0)):
                    cells = ship_cells([row, col, direction], length)
                    seen = [marks[r * size + c] for r, c in cells]
                    if "o" in seen or "#" in seen:
                        continue
                    covered = seen.count("x")
                    if open_hits and not covered:
                        continue
                    weight = count * HIT_WEIGHT ** covered
                    for cell, mark in zip(cells, seen):
                        if mark == ".":
                            weights[cell] = weights.get(cell, 0) + weight
    return weights


class DensityBot(GameBot):
    """Fires at the cell the remaining ships cover in the most ways consistent with the results so far."""

    name = "density"
    strength = 2
    description = "hunts by the density of the placements still possible; closes in on hits"

    def choose(self, state: Battle, time_left_ms: int) -> Move:
        if not state.placed:
            return random_fleet(state.size, state.fleet, self.rng)
        weights = density(state, self.seat)
        if not weights:  # no ship fits the results any more (cannot happen with a truthful referee)
            return self.rng.choice(state.moves_of(self.seat))
        best = max(weights.values())
        row, col = self.rng.choice(sorted(cell for cell, weight in weights.items() if weight == best))
        return [row, col]


BOTS = [RandomBot, DensityBot]
