"""Scale curves of the tournament runner: matches/s and per-ply cost against the number of bots and workers.

For 4, 16, 64 and 256 persistent `random` bots in a Blocking 6×6 round-robin, with 1 and 2
workers, it warms up (the first 2 × bots × workers matches of the schedule, which launch every
bot on every worker; their time is reported apart), then times the next MATCHES matches (the
schedule goes cycle by cycle, so every bot keeps meeting others). It prints one JSON line per
run: bots, workers, matches/s, microseconds per ply (wall time over all plies), the warm-up
time, and the memory of the idle bot processes the pools hold at the end (resident set size
per bot). The steady state should be flat in the number of bots.

    python bench/scale.py [--bots 4,16,64,256] [--workers 1,2] [--matches 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.tournament.plan.config import TournamentConfig, config_from_data  # noqa: E402
from arena.tournament.results.formats import plan_for  # noqa: E402
from arena.tournament.run.coordinator import RunOptions, make_executor  # noqa: E402


def config(bots: int, matches: int) -> TournamentConfig:
    """bots `random` bots (distinct seeds) on empty 6×6 boards, enough of them for matches; no logs."""
    per_setup = bots * (bots - 1)  # every pair, both seat orders
    return config_from_data({
        "name": f"scale-{bots}", "game": "blocking", "sandbox": "auto", "logs": False,
        "bots": [{"spec": "random", "name": f"r{i}", "options": {"seed": i}} for i in range(bots)],
        "setups": {"random": {"count": -(-matches // per_setup), "rows": 6, "cols": 6}},
        "games_per_pairing": 2, "strikes": {"max_strikes": 0},
    })


def bot_memory_kib(worker_pids: set[int]) -> tuple[int, int]:
    """(bot processes, their total resident KiB): the live descendants of the workers that run protocol.run."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    count = total = 0
    stack = list(worker_pids)
    while stack:
        pid = stack.pop()
        for child in children.get(pid, []):
            stack.append(child)
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
                status = Path(f"/proc/{child}/status").read_text()
            except OSError:
                continue
            argv = cmdline.split(b"\0")
            launch_chain = any(word.endswith(b"launcher.py") for word in argv)
            if b"python" in argv[0].rsplit(b"/", 1)[-1] and b"protocol.run" in argv and not launch_chain:
                count += 1
                total += next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS:"))
    return count, total


def play(executor: Any, tasks: list[Any]) -> int:
    """Play tasks through the executor, keeping it full; the plies played."""
    pending, inflight, plies = list(reversed(tasks)), 0, 0
    while pending or inflight:
        while pending and inflight < executor.capacity:
            executor.submit(pending.pop())
            inflight += 1
        for outcome in executor.wait(0.5):
            inflight -= 1
            if outcome.record is None:
                raise RuntimeError(f"{outcome.task.match}: {outcome.error}")
            plies += outcome.record.plies
    return plies


def run(bots: int, workers: int, matches: int) -> dict[str, float | int]:
    """Warm up (every bot launched on every worker), then time the next matches of the round-robin."""
    warm = 2 * bots * workers  # each bot plays about 4 * workers matches: enough to reach every worker
    cfg = config(bots, warm + matches)
    tasks = plan_for(cfg).tasks({})[:warm + matches]
    with tempfile.TemporaryDirectory(prefix="arena-scale-") as tmp:
        executor = make_executor(cfg, RunOptions(out=Path(tmp), workers=workers, quiet=True), Path(tmp))
        executor.start()
        started = time.perf_counter()
        play(executor, tasks[:warm])
        warm_s = time.perf_counter() - started
        started = time.perf_counter()
        plies = play(executor, tasks[warm:])
        elapsed = time.perf_counter() - started
        worker_pids = {w.process.pid for w in getattr(executor, "workers", []) if w.process.pid}
        count, kib = bot_memory_kib(worker_pids)
        executor.close(graceful=True)
    return {"bots": bots, "workers": workers, "matches": len(tasks) - warm,
            "matches_per_s": round((len(tasks) - warm) / elapsed, 1),
            "us_per_ply": round(elapsed / plies * 1e6, 1), "warm_up_s": round(warm_s, 1), "idle_bots": count,
            "kib_per_bot": round(kib / count) if count else None}


def main() -> None:
    """Measure every combination and print a JSON line each, then the 256-to-4 ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default="4,16,64,256")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--matches", type=int, default=2000)
    args = parser.parse_args()
    results = []
    for workers in (int(w) for w in args.workers.split(",")):
        for bots in (int(b) for b in args.bots.split(",")):
            result = run(bots, workers, args.matches)
            results.append(result)
            print(json.dumps(result), flush=True)
    for workers in {r["workers"] for r in results}:
        mine = {r["bots"]: r for r in results if r["workers"] == workers}
        if mine:
            low, high = min(mine), max(mine)
            print(json.dumps({"workers": workers, f"matches_per_s_{high}_over_{low}":
                              round(mine[high]["matches_per_s"] / mine[low]["matches_per_s"], 2)}))


if __name__ == "__main__":
    main()
