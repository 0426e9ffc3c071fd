"""The strength table of bots/STRENGTH.md (blocking, arrows, tiles, goofspiel, battleship), with the tournament runner.

    python bench/strength.py blocking      [--workers N] [--out DIR]
    python bench/strength.py arrows        [--workers N] [--out DIR] [--boards N]
    python bench/strength.py tiles         [--workers N] [--out DIR] [--boards N]
    python bench/strength.py tiles-large   [--workers N] [--out DIR] [--boards N]
    python bench/strength.py tiles-search  [--positions N] [--max-states N]
    python bench/strength.py goofspiel     [--workers N] [--out DIR] [--boards N]
    python bench/strength.py battleship    [--workers N] [--out DIR] [--boards N]

Every game is a round-robin with fixed seeds: every pair of bots plays both seats on every
setup, through real bot processes and the referee's clocks (`arena tournament` machinery).
The script prints a markdown table per pair: wins, draws, losses, the win rate, the points
share (draw = half), time losses, and the most time one seat used in one match. For
blocking it also checks, where the outcome is known (strips by the octal game 0.137, small
boards by brute force), that `perfect` won every game it started in the winning seat.
`tiles-search` counts the states of plain negamax against alpha-beta on seeded positions
where plain negamax needs at least a million.

Timing-sensitive: run with one worker (the default) on a machine that is not overloaded.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from arena.games.blocking.rules import neighbourhoods
from arena.tournament.plan.config import config_from_data
from arena.tournament.results.standings import Standings
from arena.tournament.run.coordinator import Coordinator, RunOptions

SOLVER_SECONDS = 30.0  # per blocking board whose outcome the bench computes with the solver
SOLVER_CELLS = 100  # larger boards are left unknown (out of the solver's reach anyway)
# The tiles run's setups: 2-4 plates of 2-5 tiles, 2-6 rows of 2-5 cells, a pot of 10-50 tiles.
TILES_SMALL = {"min_plates": 2, "max_plates": 4, "min_plate_size": 2, "max_plate_size": 5, "min_rows": 2,
               "max_rows": 6, "min_row_len": 2, "max_row_len": 5, "min_pot": 10, "max_pot": 50}
BLOCKING_BOARDS = [(1, 20), (1, 34), (1, 50), (2, 14), (2, 33), (2, 50), (3, 7), (4, 4), (4, 6),
                   (5, 5), (5, 6), (6, 6), (7, 7), (6, 8), (8, 8), (9, 9), (10, 10), (12, 12),
                   (20, 20), (50, 50)]


def configs(game: str, boards: int) -> dict[str, Any]:
    """The tournament config (as TOML would hold it) of one game's strength run."""
    common = {"games_per_pairing": 2, "strikes": {"max_strikes": 0}, "logs": False}
    if game == "blocking":
        maps = [{"rows": r, "cols": c, "blocked": []} for r, c in BLOCKING_BOARDS]
        return {**common, "name": "strength-blocking", "game": "blocking", "seed": 3,
                "bots": ["perfect", "maxblock", "sequential", "random"],
                "setups": {"maps": maps, "random": {"count": boards, "density": 0.1}}}
    if game == "arrows":
        return {**common, "name": "strength-arrows", "game": "arrows", "seed": 4,
                "bots": ["alphabeta", "greedy", "random"],
                "setups": {"random": {"count": boards, "cols": 10, "rows": 10, "density": 0.1}},
                "clock": {"budget_ms": 5000}}
    if game == "tiles":
        # Small setups, where the exact value of every seat can be computed (tiles_check).
        return {**common, "name": "strength-tiles", "game": "tiles", "seed": 2,
                "bots": ["perfect", "montecarlo", "greedy", "random"],
                "setups": {"random": {"count": boards, **TILES_SMALL}}}
    if game == "tiles-large":
        # Longer games on bigger boards: far fewer draws than the default setups.
        return {**common, "name": "strength-tiles-large", "game": "tiles", "seed": 2,
                "bots": ["montecarlo", "random"],
                "setups": {"random": {"count": boards, "min_pot": 40, "max_pot": 200,
                                      "min_rows": 5, "max_rows": 8}}}
    if game == "goofspiel":  # 13 cards; each setup's prize deck is drawn from its match's seed
        return {**common, "name": "strength-goofspiel", "game": "goofspiel", "seed": 5,
                "bots": ["montecarlo", "random"], "setups": {"random": {"count": boards}}}
    if game == "battleship":  # the standard 10 x 10 game, fleet 5-4-3-3-2; the bots' seeds differ per match
        return {**common, "name": "strength-battleship", "game": "battleship", "seed": 6,
                "bots": ["density", "random"], "setups": {"random": {"count": boards}}}
    raise SystemExit(f"unknown game {game!r}")


def run(data: dict[str, Any], workers: int, out: Path | None) -> Standings:
    """Play one tournament (a config as data) and return its standings."""
    config = config_from_data(data)
    directory = out or Path(tempfile.mkdtemp(prefix=f"{data['name']}-"))
    coordinator = Coordinator(config, RunOptions(out=directory, workers=workers, quiet=False))
    try:
        standings = coordinator.run()
    finally:
        coordinator.close()
    print(f"results: {directory}", file=sys.stderr)
    return standings


def pair_table(standings: Standings) -> list[str]:
    """Markdown rows: each pair of bots from the first bot's side."""
    stats: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))
    slowest: dict[str, float] = defaultdict(float)
    timeouts: dict[str, int] = defaultdict(int)
    for record in standings.records:
        for seat, name in enumerate(record.names):
            if seat < len(record.time_used_ms):
                slowest[name] = max(slowest[name], record.time_used_ms[seat])
        if record.reason == "timeout" and record.offender is not None:
            timeouts[record.names[record.offender]] += 1
        for seat in (0, 1):
            me, other = record.names[seat], record.names[1 - seat]
            line = stats[(me, other)]
            mine, theirs = record.scores[seat], record.scores[1 - seat]
            line["games"] += 1
            line["W" if mine > theirs else "D" if mine == theirs else "L"] += 1
            if record.reason == "timeout" and record.offender == seat:
                line["timeouts"] += 1
    order = [bot.name for bot in sorted(standings.bots, key=lambda b: b.index)]
    rows = ["| bot | vs | games | W | D | L | win % | points % | time losses |",
            "|---|---|---|---|---|---|---|---|---|"]
    for i, a in enumerate(order):
        for b in order[i + 1:]:
            line = stats[(a, b)]
            games = line["games"] or 1
            rows.append(f"| {a} | {b} | {int(line['games'])} | {int(line['W'])} | {int(line['D'])} "
                        f"| {int(line['L'])} | {100 * line['W'] / games:.1f} "
                        f"| {100 * (line['W'] + line['D'] / 2) / games:.1f} | {int(line['timeouts'])} |")
    rows.append("")
    rows.append("| bot | time losses (all games) | most time used by one seat in one match (ms) |")
    rows.append("|---|---|---|")
    for name in order:
        rows.append(f"| {name} | {timeouts[name]} | {slowest[name]:.0f} |")
    return rows


def blocking_outcome(setup: dict[str, Any]) -> tuple[int | None, str]:
    """The seat that wins with best play (or None when unknown) and how that was found.

    Up to 36 free cells: a plain win/loss search over bit masks (independent of the bot).
    Larger boards: the bot's own Grundy solver, given SOLVER_SECONDS per board.
    """
    rows, cols = setup["rows"], setup["cols"]
    mover = setup.get("to_move", 0)
    free = (1 << rows * cols) - 1
    for r, c in setup["blocked"]:
        free &= ~(1 << (r * cols + c))
    if free.bit_count() <= 36:
        nbr = neighbourhoods(rows, cols)
        memo: dict[int, bool] = {}

        def win(mask: int) -> bool:
            if mask not in memo:
                memo[mask] = any(not win(mask & ~nbr[i]) for i in range(rows * cols) if mask >> i & 1)
            return memo[mask]

        return (mover if win(free) else 1 - mover), "brute force"
    if free.bit_count() > SOLVER_CELLS:
        return None, "unknown"
    from arena.games.blocking.bots.grundy import GrundySolver, SolveTimeout

    stride = cols + 1
    guarded = sum(1 << (r * stride + c) for r in range(rows) for c in range(cols)
                  if free >> (r * cols + c) & 1)
    solver = GrundySolver()
    solver.deadline = time.monotonic() + SOLVER_SECONDS
    try:
        value = solver.position_value(guarded, stride)
    except SolveTimeout:
        return None, "unknown"
    return (mover if value else 1 - mover), "solver"


def blocking_check(standings: Standings, setups: list[dict[str, Any]]) -> list[str]:
    """Games perfect started in the winning seat, and how many it won, by how it is known."""
    outcomes = [blocking_outcome(setup) for setup in setups]
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # won, from winning seat, all
    for record in standings.records:
        if "perfect" not in record.names:
            continue
        seat = record.names.index("perfect")
        winner, how = outcomes[record.setup]
        line = tally[how]
        line[2] += 1
        if winner == seat:
            line[1] += 1
            line[0] += record.scores[seat] > record.scores[1 - seat]
    return [f"perfect's games on boards whose outcome is known by {how}: "
            f"it started {line[1]} of {line[2]} in the winning seat and won {line[0]} of those."
            if how != "unknown" else f"{line[2]} games on boards whose outcome is unknown."
            for how, line in sorted(tally.items())]


def tiles_check(standings: Standings, setups: list[dict[str, Any]]) -> list[str]:
    """Games where perfect scored at least the exact value of its seat (by alpha-beta)."""
    from arena.games.tiles.bots.search import AlphaBeta, Rules
    from arena.games.tiles.rules import GAME as game

    values = []
    for setup in setups:
        state = game.new_state(setup)
        rules, position = Rules.from_state(state)
        value = AlphaBeta(rules).solve(position)[0]
        values.append(value if state.mover == 0 else -value)  # for seat 0
    games = at_least = 0
    for record in standings.records:
        for seat, name in enumerate(record.names):
            if name == "perfect":
                games += 1
                own_value = values[record.setup] * (1 if seat == 0 else -1)
                at_least += record.scores[seat] >= own_value
    return [f"perfect scored at least the exact value of its seat in {at_least} of {games} games."]


def tiles_search(positions: int, max_states: int) -> list[str]:
    """Plain negamax vs alpha-beta states on seeded positions needing >= 10^6 plain states."""
    from arena.games.tiles.bots.search import AlphaBeta, PlainNegamax, Rules, SearchAborted
    from arena.games.tiles.rules import GAME as game

    rows = [("| seed | pot | negamax states | negamax s | alpha-beta states | alpha-beta s "
             "| fewer states | same score |"), "|---|---|---|---|---|---|---|---|"]
    found = 0
    for seed in range(10_000):
        if found >= positions:
            break
        setup = game.random_setup(random.Random(seed), 2, {"min_pot": 18, "max_pot": 26, "fill": 0.3})
        rules, position = Rules.from_state(game.new_state(setup))
        # Alpha-beta first: it is cheap, and its states say which positions are big.
        started = time.monotonic()
        search = AlphaBeta(rules)
        score, _ = search.solve(position)
        fast_s = time.monotonic() - started
        if search.states < 500:
            continue
        plain = PlainNegamax(rules, max_states=max_states)
        started = time.monotonic()
        try:
            plain_score, _ = plain.best(position)
        except SearchAborted:
            continue
        plain_s = time.monotonic() - started
        if plain.states < 1_000_000:
            continue
        found += 1
        rows.append(f"| {seed} | {len(setup['pot'])} | {plain.states:,} | {plain_s:.1f} "
                    f"| {search.states:,} | {fast_s:.3f} | {plain.states / search.states:,.0f}x "
                    f"| {'yes' if plain_score == score else 'NO'} |")
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    """Run one game's strength measurement and print its markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=("blocking", "arrows", "tiles", "tiles-large", "tiles-search", "goofspiel",
                                         "battleship"))
    parser.add_argument("--workers", type=int, default=1, help="parallel matches (default 1)")
    parser.add_argument("--out", type=Path, help="tournament output directory (default: a temp dir)")
    parser.add_argument("--boards", type=int,
                        help="random setups (arrows 100, tiles 100, tiles-large 50, blocking 10, "
                             "goofspiel 50, battleship 50)")
    parser.add_argument("--positions", type=int, default=5, help="tiles-search: positions to measure")
    parser.add_argument("--max-states", type=int, default=40_000_000,
                        help="tiles-search: skip positions where plain negamax needs more")
    args = parser.parse_args(argv)
    started = time.monotonic()
    if args.game == "tiles-search":
        lines = tiles_search(args.positions, args.max_states)
    else:
        boards = args.boards or {"arrows": 100, "tiles": 100, "tiles-large": 50,
                                 "blocking": 10, "goofspiel": 50, "battleship": 50}[args.game]
        standings = run(configs(args.game, boards), args.workers, args.out)
        lines = pair_table(standings)
        setups = [s.setup for s in config_from_data(configs(args.game, boards)).setups]
        if args.game == "blocking":
            lines += [""] + blocking_check(standings, setups)
        if args.game == "tiles":
            lines += [""] + tiles_check(standings, setups)
    print("\n".join(lines))
    print(f"\n({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
