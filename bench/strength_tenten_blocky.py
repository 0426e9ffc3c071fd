"""The tenten and blocky rows of the strength table (bots/STRENGTH.md).

    python bench/strength_tenten_blocky.py tenten   [--games 30] [--max-rounds 300]
                                                    [--budget-ms 120000] [--workers 1] [--out DIR]
    python bench/strength_tenten_blocky.py sequence [--setups 20] [--blocks 12] [--workers 1]
    python bench/strength_tenten_blocky.py blocky   [--boards 100] [--workers 1] [--out DIR]

Every run goes through the tournament runner (`arena tournament` machinery: real bot
processes, the referee's clocks, fixed seeds):

- `tenten`: lookahead and greedy in the duplicate format (the same boards and block draws
  for both) on `--games` 10x10 catalogue games of at most `--max-rounds` rounds. Prints each
  bot's mean, median and range of scores, the share of games that reached the last round,
  time losses and the most clock one game used, and lookahead's mean over greedy's.
- `sequence`: optimal, lookahead and greedy on seeded finite sequences (the seed's
  highest_score setting) with the default 10 s clock; prints optimal against the others
  setup by setup (it must never be below greedy).
- `blocky`: greedy, smart (difficulty 5) and random, 2 players, every pair in both seats on
  every seeded random board; prints per pair wins (finishing strictly first), draws, losses.

Timing-sensitive: run with one worker on a machine that is not overloaded.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from strength import run  # bench/ is on the path when a bench script runs

from arena.tournament.results.standings import Standings


def tenten_config(games: int, max_rounds: int, budget_ms: int) -> dict[str, Any]:
    """Lookahead against greedy on seeded catalogue games (duplicate format)."""
    return {
        "name": "strength-tenten", "game": "tenten", "seed": 10, "games_per_pairing": 1,
        "bots": ["lookahead", "greedy"], "logs": False, "strikes": {"max_strikes": 0},
        "setups": {"random": {"count": games, "size": 10, "max_rounds": max_rounds}},
        "clock": {"budget_ms": budget_ms},
    }


def sequence_config(setups: int, blocks: int) -> dict[str, Any]:
    """Optimal, lookahead and greedy on seeded finite sequences, default clock."""
    return {
        "name": "strength-tenten-sequence", "game": "tenten", "seed": 11,
        "games_per_pairing": 1, "bots": ["optimal", "lookahead", "greedy"], "logs": False,
        "strikes": {"max_strikes": 0},
        "setups": {"random": {"count": setups, "min_size": 6, "max_size": 8,
                              "sequence_length": blocks}},
    }


def blocky_config(boards: int) -> dict[str, Any]:
    """Greedy, smart (difficulty 5) and random, both seats of every pair on every board."""
    return {
        "name": "strength-blocky", "game": "blocky", "seed": 12, "players": 2,
        "games_per_pairing": 2, "logs": False, "strikes": {"max_strikes": 0},
        "bots": ["greedy", {"spec": "smart", "name": "smart", "options": {"difficulty": 5}},
                 "random"],
        "setups": {"random": {"count": boards}},
    }


def solo_table(standings: Standings, max_rounds: int, offer: int = 3) -> list[str]:
    """Per bot: games, score statistics, last round reached, time losses, slowest game."""
    scores: dict[str, list[float]] = defaultdict(list)
    full: dict[str, int] = defaultdict(int)
    timeouts: dict[str, int] = defaultdict(int)
    slowest: dict[str, float] = defaultdict(float)
    for record in standings.records:
        name = record.names[0]
        scores[name].append(record.scores[0])
        # Every round of a game that reached max_rounds was played in full.
        full[name] += record.reason == "normal" and record.plies == offer * max_rounds
        timeouts[name] += record.reason == "timeout"
        if record.time_used_ms:
            slowest[name] = max(slowest[name], record.time_used_ms[0])
    rows = [("| bot | games | mean | median | min | max | reached max_rounds | time losses "
             "| most clock used in one game (ms) |"), "|---|---|---|---|---|---|---|---|---|"]
    for name, values in scores.items():
        rows.append(f"| {name} | {len(values)} | {statistics.mean(values):.1f} "
                    f"| {statistics.median(values):.0f} | {min(values):.0f} | {max(values):.0f} "
                    f"| {full[name]} ({100 * full[name] / len(values):.0f} %) | {timeouts[name]} "
                    f"| {slowest[name]:.0f} |")
    if "lookahead" in scores and "greedy" in scores:
        ratio = statistics.mean(scores["lookahead"]) / statistics.mean(scores["greedy"])
        rows += ["", f"lookahead's mean is {ratio:.2f} × greedy's."]
    return rows


def sequence_table(standings: Standings) -> list[str]:
    """Optimal against the other bots, setup by setup."""
    by_setup: dict[int, dict[str, float]] = defaultdict(dict)
    timeouts = 0
    for record in standings.records:
        by_setup[record.setup][record.names[0]] = record.scores[0]
        timeouts += record.reason == "timeout"
    rows = ["| vs | setups | optimal higher | equal | optimal lower |", "|---|---|---|---|---|"]
    for other in ("greedy", "lookahead"):
        higher = equal = lower = 0
        for scores in by_setup.values():
            mine, theirs = scores["optimal"], scores[other]
            higher += mine > theirs
            equal += mine == theirs
            lower += mine < theirs
        rows.append(f"| {other} | {len(by_setup)} | {higher} | {equal} | {lower} |")
    means = {name: statistics.mean(s[name] for s in by_setup.values())
             for name in ("optimal", "lookahead", "greedy")}
    rows += ["", "mean score: " + ", ".join(f"{n} {v:.1f}" for n, v in means.items())
             + f"; time losses: {timeouts}"]
    return rows


def pair_table(standings: Standings) -> list[str]:
    """Per pair, from the first bot's side: finishing strictly first, draws, losses."""
    stats: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    timeouts: dict[str, int] = defaultdict(int)
    slowest: dict[str, float] = defaultdict(float)
    for record in standings.records:
        if record.reason == "timeout" and record.offender is not None:
            timeouts[record.names[record.offender]] += 1
        for seat in (0, 1):
            me, other = record.names[seat], record.names[1 - seat]
            line = stats[(me, other)]
            mine, theirs = record.scores[seat], record.scores[1 - seat]
            line[0 if mine > theirs else 1 if mine == theirs else 2] += 1
            line[3] += 1
            if seat < len(record.time_used_ms):
                slowest[me] = max(slowest[me], record.time_used_ms[seat])
    order = ["greedy", "smart", "random"]
    rows = ["| bot | vs | games | first | draws | behind | first % |", "|---|---|---|---|---|---|---|"]
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            won, drawn, lost, games = stats[(a, b)]
            rows.append(f"| {a} | {b} | {games} | {won} | {drawn} | {lost} "
                        f"| {100 * won / max(1, games):.1f} |")
    rows += ["", "| bot | time losses | most clock used in one game (ms) |", "|---|---|---|"]
    rows += [f"| {name} | {timeouts[name]} | {slowest[name]:.0f} |" for name in order]
    return rows


def main(argv: list[str] | None = None) -> None:
    """Run one of the strength measurements and print its table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("tenten", "sequence", "blocky"))
    parser.add_argument("--games", type=int, default=30, help="tenten: catalogue games")
    parser.add_argument("--max-rounds", type=int, default=300, help="tenten: rounds per game")
    parser.add_argument("--budget-ms", type=int, default=120_000, help="tenten: clock per game")
    parser.add_argument("--setups", type=int, default=20, help="sequence: sequences")
    parser.add_argument("--blocks", type=int, default=12, help="sequence: blocks per sequence")
    parser.add_argument("--boards", type=int, default=100, help="blocky: boards")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    if args.what == "tenten":
        standings = run(tenten_config(args.games, args.max_rounds, args.budget_ms),
                        args.workers, args.out)
        rows = solo_table(standings, args.max_rounds)
    elif args.what == "sequence":
        standings = run(sequence_config(args.setups, args.blocks), args.workers, args.out)
        rows = sequence_table(standings)
    else:
        standings = run(blocky_config(args.boards), args.workers, args.out)
        rows = pair_table(standings)
    print("\n".join(rows))


if __name__ == "__main__":
    main()
