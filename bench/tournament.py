"""Tournament throughput: matches/s of a Blocking 6×6 round-robin of four `random` bots.

Runs the same tournament through the local executor: with persistent bots (the pool keeps
each bot process alive between matches) on the default wire (ZeroMQ) and on the bots' pipes
(`transport = "pipes"`), and with a fresh process per match, and prints matches/s for each
and their ratios.

    python bench/tournament.py [--games N] [--fresh-games N] [--workers N] [--no-logs] [--pin-cpus]

The results directories go under the current directory (ARENA_BENCH_DIR names another).

Targets (2-core machine): >= 150 matches/s persistent, >= 20x the fresh-process mode, and on
the default wire at least 80 % of the rate on pipes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sys
import tempfile
import time
from pathlib import Path

from arena.games import get_game
from arena.match.onematch import MatchPlan, play_match
from arena.tournament.plan.config import (
    TournamentConfig,
    config_from_data,
    default_concurrency,
)
from arena.tournament.results.formats import plan_for
from arena.tournament.run.coordinator import Coordinator, RunOptions
from arena.tournament.workers.executors import make_plan
from arena.tournament.workers.worker import MatchRunner

BOTS = 4


# Where the results directories go. Not the system temp directory by default: a results
# directory lives where its organiser keeps data, and on some machines /tmp creates files
# 30x slower than the disk beside it (measured: 0.9 ms against 30 us per file).
RESULTS_BASE = os.environ.get("ARENA_BENCH_DIR", ".")


def config(games: int, persistent: bool, logs: bool, sandbox: str = "auto", pin_cpus: bool = False,
           transport: str = "zeromq") -> TournamentConfig:
    """Four `random` bots on one fixed empty 6x6 board, `games` matches per pairing, on one wire."""
    return config_from_data({
        "transport": transport,
        "sandbox": sandbox,
        "pin_cpus": pin_cpus,
        "name": "bench",
        "game": "blocking",
        "bots": [{"spec": "random", "name": f"random{i}", "options": {"seed": i}} for i in range(BOTS)],
        "setups": {"fixed": {"rows": 6, "cols": 6}},
        "games_per_pairing": games,
        "persistent": persistent,
        "logs": logs,
        "strikes": {"max_strikes": 0},
    })


def run(cfg: TournamentConfig, workers: int) -> tuple[int, float]:
    """Run the whole tournament in a fresh directory; return (matches, seconds)."""
    with tempfile.TemporaryDirectory(prefix="arena-bench-", dir=RESULTS_BASE) as tmp:
        options = RunOptions(out=Path(tmp) / "out", workers=workers, quiet=True)
        started = time.perf_counter()
        coordinator = Coordinator(cfg, options)
        standings = coordinator.run()
        elapsed = time.perf_counter() - started
        coordinator.close()
    return standings.finished, elapsed


def play_match_rate(matches: int) -> float:
    """Matches/s of arena.match.play_match (fresh processes, no pool, no launcher), one at a time."""
    cfg = config(2, persistent=False, logs=False)
    tasks = (plan_for(cfg).tasks({}) * matches)[:matches]
    game = get_game(cfg.game)
    started = time.perf_counter()
    for task in tasks:
        plan = MatchPlan(game, [cfg.bots[b].spec for b in task.bots], cfg.setups[task.setup].setup, task.seed,
                         cfg.clock, task.match)
        play_match(plan)
    return matches / (time.perf_counter() - started)


def profile_runner(games: int, logs: bool) -> str:
    """Where one worker's time goes: play matches in-process under cProfile."""
    cfg = config(games, persistent=True, logs=logs)
    with tempfile.TemporaryDirectory(prefix="arena-bench-", dir=RESULTS_BASE) as tmp:
        plan = make_plan(cfg, Path(tmp), ship_logs=False)
        (Path(tmp) / "logs").mkdir()
        runner = MatchRunner(plan)
        tasks = plan_for(cfg).tasks({})
        runner.run(tasks[0])  # start the bots outside the measurement
        profiler = cProfile.Profile()
        started = time.perf_counter()
        profiler.enable()
        for task in tasks:
            runner.run(task)
        profiler.disable()
        elapsed = time.perf_counter() - started
        runner.close()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(25)
    return f"in-process, profiled: {len(tasks) / elapsed:.0f} matches/s\n{out.getvalue()}"


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400, help="games per pairing, persistent run (6 pairings)")
    parser.add_argument("--fresh-games", type=int, default=20, help="games per pairing, fresh-process run")
    parser.add_argument("--workers", type=int, default=default_concurrency(), help="referee processes")
    parser.add_argument("--no-logs", action="store_true", help="write no match logs")
    parser.add_argument("--profile", action="store_true", help="also profile one worker in-process")
    parser.add_argument("--pin-cpus", action="store_true",
                        help="split the cores between the workers, as the config's pin_cpus = true")
    parser.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "uid", "none"],
                        help="the bots' sandbox (default auto, as a tournament's)")
    args = parser.parse_args(argv)
    logs = not args.no_logs
    print(f"cores {len(os.sched_getaffinity(0))}, workers {args.workers}, match logs {'on' if logs else 'off'}, "
          f"python {sys.version.split()[0]}")
    print(f"sandbox {args.sandbox}, cores {'split between the workers' if args.pin_cpus else 'shared'}")
    matches, seconds = run(config(args.games, persistent=True, logs=logs, sandbox=args.sandbox,
                                  pin_cpus=args.pin_cpus), args.workers)
    persistent = matches / seconds
    print(f"persistent bots, ZeroMQ (the default wire): {matches} matches in {seconds:.2f} s = "
          f"{persistent:.1f} matches/s (including worker and bot start-up)")
    matches, seconds = run(config(args.games, persistent=True, logs=logs, sandbox=args.sandbox,
                                  pin_cpus=args.pin_cpus, transport="pipes"), args.workers)
    pipes = matches / seconds
    print(f"persistent bots, pipes: {matches} matches in {seconds:.2f} s = {pipes:.1f} matches/s")
    print(f"ZeroMQ / pipes: {persistent / pipes:.0%} (target >= 80 %)")
    matches, seconds = run(config(args.fresh_games, persistent=False, logs=logs, sandbox=args.sandbox), args.workers)
    fresh = matches / seconds
    print(f"fresh process per match: {matches} matches in {seconds:.2f} s = {fresh:.1f} matches/s")
    print(f"ratio: {persistent / fresh:.1f}x (target >= 20x; target >= 150 matches/s persistent)")
    baseline = play_match_rate(args.fresh_games)
    print(f"for reference, arena.match.play_match one match at a time: {baseline:.1f} matches/s "
          f"(ratio {persistent / baseline:.1f}x)")
    if args.profile:
        print(profile_runner(min(args.games, 100), logs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
