"""Random setups of board games: the size range and the density a partial setup may ask for."""

from __future__ import annotations

from typing import Any, NamedTuple

from arena.games.base import SetupError, need_int


class RandomSizes(NamedTuple):
    """What a random setup draws from: board sides in lo..hi, a share density of cells filled."""

    lo: int
    hi: int
    density: float


def random_sizes(game: str, partial: dict[str, Any], default_lo: int, default_hi: int, largest: int) -> RandomSizes:
    """Take min_size, max_size and density out of partial, each checked; SetupError naming the bad one."""
    lo = need_int(game, "min_size", partial.pop("min_size", default_lo), 1, largest)
    hi = need_int(game, "max_size", partial.pop("max_size", default_hi), lo, largest)
    density = partial.pop("density", 0.0)
    if not isinstance(density, (int, float)) or isinstance(density, bool) or not 0 <= density < 1:
        raise SetupError(game, f"density must be a number in [0, 1), got {density!r}")
    return RandomSizes(lo, hi, density)
