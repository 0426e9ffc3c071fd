"""Series throughput: games/s of `arena match blocking random random --games N` on 6×6, 1 and 2 workers.

Runs the command a user runs (a subprocess, the default sandbox, signed logs, the store), one
series per worker count in the same minutes, and prints one JSON line per run plus the ratio:

    python bench/series.py [--games N] [--repeat R]

Games/s counts the whole command, start-up included, so short series understate the rate.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(games: int, workers: int, out: Path) -> float:
    """Seconds of one series, measured around the whole command."""
    argv = [sys.executable, "-m", "arena.cli", "match", "blocking", "random", "random", "--set", "rows=6",
            "--set", "cols=6", "--games", str(games), "--workers", str(workers), "--quiet", "--out", str(out)]
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rates: dict[int, list[float]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.repeat):
            for workers, values in rates.items():  # interleaved, so both see the same load
                seconds = run(args.games, workers, Path(tmp) / f"w{workers}-{r}")
                values.append(args.games / seconds)
    for workers, values in rates.items():
        print(json.dumps({"workers": workers, "games": args.games,
                          "games_per_s_median": round(statistics.median(values), 1),
                          "runs": [round(v, 1) for v in values]}))
    print(json.dumps({"ratio_2_over_1": round(statistics.median(rates[2]) / statistics.median(rates[1]), 2)}))


if __name__ == "__main__":
    main()
