"""How long are Tiles games on the default setups? The figures arena/games/tiles/RULES.md quotes.

    python bench/tiles_lengths.py [--seeds N] [--first S]

For each seed, the setup a match or tournament with no setup of its own plays (the game's
random-setup generator from `setup:SEED`, as arena/setups.py draws it), played out in process by
the reference bots' own move choices: `random` against `random` (seeded) and `greedy` against
`greedy`. Prints, per pairing, the median, 10th percentile, smallest and largest number of plies,
the games with no move at all, and how the games ended (a full board, or the mover blocked).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.games import get_game  # noqa: E402
from arena.games.tiles.bots.simple import GreedyBot, RandomBot  # noqa: E402
from arena.games.tiles.rules import TilesState  # noqa: E402
from arena.setups import complete_setup  # noqa: E402
from protocol.bot import Bot  # noqa: E402

GAME = get_game("tiles")
PAIRINGS = {"random vs random": RandomBot, "greedy vs greedy": GreedyBot}


def play_out(seed: int, bot_class: type[Bot]) -> tuple[int, str]:
    """(plies, how it ended) of the default setup of seed, both seats played by bot_class's choice."""
    state = GAME.new_state(complete_setup(GAME, {}, 2, seed))
    assert isinstance(state, TilesState)
    bots = [bot_class(seed=seed), bot_class(seed=seed)]
    for seat, bot in enumerate(bots):
        bot.reseed(f"lengths-{seed}", seat)
    while not state.is_over():
        state.apply(bots[state.mover].choose(state, 10_000))  # type: ignore[attr-defined]
    return state.ply, str(state.end_reason())


def percentile(ordered: list[int], share: float) -> int:
    """The value below which `share` of the sorted values lie (nearest rank)."""
    return ordered[max(0, min(len(ordered) - 1, int(share * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    """Measure every pairing over the seeds and print one line each."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=1000, help="how many seeds (default 1000)")
    parser.add_argument("--first", type=int, default=1, help="the first seed (default 1)")
    args = parser.parse_args(argv)
    seeds = range(args.first, args.first + args.seeds)
    print(f"tiles default setups, seeds {seeds.start}..{seeds.stop - 1}: plies per game")
    for label, bot_class in PAIRINGS.items():
        started = time.monotonic()
        games = [play_out(seed, bot_class) for seed in seeds]
        plies = sorted(p for p, _ in games)
        ends = Counter(reason for _, reason in games)
        print(f"{label}: median {statistics.median(plies):g}, 10th percentile {percentile(plies, 0.1)}, "
              f"min {plies[0]}, max {plies[-1]}, no move {plies.count(0)}, "
              f"ended normal {ends['normal']} / blocked {ends['blocked']} ({time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
