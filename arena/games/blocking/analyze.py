"""`arena analyze blocking`: does the first or the second player win more often, by board size and strategies?

The assignment's `analyze_game()`, without input: for every board size and every ordered pair
of strategies (a strategy against itself included) it plays N games on the empty board, with
the strategy named first moving first, and counts who won. The games run on the tournament
runner's workers with persistent bots, under the clock and the default sandbox.

`arena analyze blocking` is this module's ANALYZER.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import asdict, dataclass
from typing import Any

from arena.argtypes import CliError, positive_int
from arena.kit.analysis import EXIT_OK, Analyzer, GameRunner, PlannedGame, PlayedGame, seed_of

from .rules import NAME

DEFAULT_SIZES = "3x3,4x4,5x5,6x6,7x7"
DEFAULT_BOTS = "sequential,random,maxblock"  # the assignment's three strategies (C, D and E)
DEFAULT_GAMES = 20
SIZE = re.compile(r"(\d+)x(\d+)")


@dataclass
class PairResult:
    """Who won the games of one board size and one ordered pair of strategies."""

    rows: int
    cols: int
    first: str
    second: str
    games: int = 0
    first_wins: int = 0
    second_wins: int = 0
    failures: int = 0  # games a bot lost by failing (time, crash, protocol): counted, but named apart


def parse_sizes(text: str) -> list[tuple[int, int]]:
    """`3x3,4x5,...` as (rows, cols) pairs; CliError naming a bad item."""
    sizes = []
    for item in filter(None, (part.strip() for part in text.split(","))):
        match = SIZE.fullmatch(item)
        if match is None or not all(1 <= int(n) <= 30 for n in match.groups()):
            raise CliError(f"--sizes: {item!r} is not ROWSxCOLS with 1..30 each (e.g. 4x5)")
        sizes.append((int(match[1]), int(match[2])))
    if not sizes:
        raise CliError("--sizes: name at least one size, e.g. 3x3,4x4")
    return sizes


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `arena analyze blocking`."""
    parser.add_argument("--sizes", default=DEFAULT_SIZES, metavar="RxC,...", help="board sizes (empty boards)")
    parser.add_argument("--bots", default=DEFAULT_BOTS, metavar="A,B,...",
                        help="strategies: registered blocking bots (arena bots blocking)")
    parser.add_argument("--games", type=positive_int, default=DEFAULT_GAMES, metavar="N",
                        help="games per size and ordered pair of strategies")
    parser.add_argument("--workers", type=positive_int, metavar="K",
                        help="parallel referee processes (default: cores / 2)")
    parser.add_argument("--seed", type=positive_int, default=1, help="seed of the games' chance (random strategies)")
    parser.add_argument("--json", action="store_true", help="print a list of objects, one per size and ordered pair")


def planned_games(sizes: list[tuple[int, int]], bots: list[str], games: int, seed: int) -> list[PlannedGame]:
    """N games per size and ordered pair; against itself a strategy's second seat is its copy."""
    planned = []
    k = len(bots)
    for setup, _ in enumerate(sizes):
        for a in range(k):
            for b in range(k):
                seats = (a, b if a != b else b + k)
                for n in range(games):
                    planned.append(PlannedGame(f"s{setup}-{bots[a]}-{bots[b]}-{n}", setup, seats,
                                               seed_of(seed, "analyze", setup, a, b, n)))
    return planned


def tally(sizes: list[tuple[int, int]], bots: list[str], planned: list[PlannedGame],
          records: dict[str, PlayedGame]) -> list[PairResult]:
    """One result per size and ordered pair, from the records."""
    k = len(bots)
    results: dict[tuple[int, int, int], PairResult] = {}
    for task in planned:
        a, b = task.seats[0], task.seats[1] % k
        rows, cols = sizes[task.setup]
        result = results.setdefault((task.setup, a, b), PairResult(rows, cols, bots[a], bots[b]))
        record = records[task.match]
        result.games += 1
        result.first_wins += record.ranks[0] < record.ranks[1]
        result.second_wins += record.ranks[1] < record.ranks[0]
        result.failures += record.reason in ("timeout", "crash", "protocol", "illegal")
    return list(results.values())


def report(results: list[PairResult], sizes: list[tuple[int, int]]) -> list[str]:
    """A table per size (first player's wins against the second's) and which seat is favoured."""
    lines = []
    for rows, cols in sizes:
        here = [r for r in results if (r.rows, r.cols) == (rows, cols)]
        first = sum(r.first_wins for r in here)
        games = sum(r.games for r in here)
        lines.append(f"{rows}x{cols}:")
        width = max(len(r.first) for r in here) + len(" vs ") + max(len(r.second) for r in here)
        for r in here:
            pair = f"{r.first} vs {r.second}"
            verdict = ("first" if r.first_wins > r.second_wins else "second" if r.second_wins > r.first_wins
                       else "neither")
            lines.append(f"  {pair:<{width}}  first {r.first_wins}/{r.games}, second {r.second_wins}/{r.games}"
                         f"  -> {verdict} player wins more" + (f" ({r.failures} failures)" if r.failures else ""))
        favoured = "first" if 2 * first > games else "second" if 2 * first < games else "neither"
        lines.append(f"  in all: the first player won {first} of {games} games ({100 * first / games:.0f} %): "
                     f"the {favoured} player is favoured" if favoured != "neither" else
                     f"  in all: the first player won {first} of {games} games: neither seat is favoured")
    return lines


def run(args: argparse.Namespace, setup: dict[str, Any], runner: GameRunner) -> int:
    """`arena analyze blocking`."""
    sizes = parse_sizes(args.sizes)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    if not bots:
        raise CliError("--bots: name at least one strategy (arena bots blocking)")
    if len(set(bots)) != len(bots):
        raise CliError(f"--bots: each strategy once, got {args.bots!r}")
    planned = planned_games(sizes, bots, args.games, args.seed)
    if not args.json:
        workers = f", {args.workers} worker(s)" if args.workers else ""
        print(f"{len(sizes)} size(s) x {len(bots) ** 2} ordered pairs x {args.games} games = {len(planned)} games"
              + workers, flush=True)
    setups = [{"rows": r, "cols": c, "blocked": []} for r, c in sizes]
    # Every strategy twice: a strategy may meet itself (its second seat is its copy).
    records = runner.play(NAME, bots + bots, setups, planned, seed=args.seed, workers=args.workers,
                          progress=not args.json and sys.stderr.isatty())
    results = tally(sizes, bots, planned, records)
    if args.json:
        print(json.dumps([asdict(r) for r in results]))
    else:
        print("\n".join(report(results, sizes)))
    return EXIT_OK


ANALYZER = Analyzer("who wins more often, the first or the second player, by board size and "
                    "strategy (the assignment's analyze_game)", add_arguments, run, takes_setup=False)
