"""The cost of strict alternation: wall time per ply with the bot not on move frozen, and without.

    python bench/freeze.py [--matches N] [--size N] [--rounds N]

Two persistent instant bots play long Blocking matches through the real referee, each in a
cgroup of its own (as root, or wherever cgroups are writable): once with strict alternation
(the default: each bot is thawed when its request goes out and frozen when its answer is in)
and once with `ponder` (nobody frozen). The two modes alternate round by round in one run,
so both see the same machine. Bots: the Python SDK on its default wire (ZeroMQ), and where a C compiler is
installed bench/instant_stdio.c (a bot that costs next to nothing: the worst case for the
ratio). Prints one JSON line: for each bot kind, the median µs per ply of each mode and
their ratio (target: at most 1.15).
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.clock import ClockSettings  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.launch.processes.cgroups import freezer  # noqa: E402
from arena.launch.processes.process import Limits  # noqa: E402
from arena.launch.sandbox.sandbox import Sandbox  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.onematch import launch_player, shutdown  # noqa: E402
from arena.match.referee import Referee  # noqa: E402

HERE = Path(__file__).resolve().parent


def per_ply_us(spec_text: str, matches: int, size: int, rounds: int) -> dict[str, float]:
    """Median µs per ply over rounds, frozen and pondering, with the same two bot processes."""
    game = get_game("blocking")
    hub = Hub()
    spec = parse_bot_spec(spec_text, "blocking")
    players = [launch_player(hub, spec, Limits(), Sandbox.NONE) for _ in range(2)]
    if not all(p.process is not None and p.process.freezable for p in players):
        raise SystemExit("bench/freeze.py: no cgroup freezer here (run as root, or where cgroups are delegated)")
    clock = ClockSettings(budget_ms=600_000)
    setup = {"rows": size, "cols": size, "blocked": []}
    Referee(players, game, setup, 0, clock, "warm-up").run()
    samples: dict[str, list[float]] = {"frozen": [], "ponder": []}
    for round_ in range(rounds):
        for mode in ("frozen", "ponder") if round_ % 2 == 0 else ("ponder", "frozen"):
            plies, elapsed = 0, 0.0
            for i in range(matches):
                started = time.perf_counter()
                result = Referee(players, game, setup, i, clock, f"m{i}", ponder=mode == "ponder").run()
                elapsed += time.perf_counter() - started
                if result.reason != "blocked":
                    raise RuntimeError(f"bench match ended with {result.reason}: {result.detail}")
                plies += result.plies
            samples[mode].append(elapsed / plies * 1e6)
    shutdown(hub, players)
    hub.close()
    frozen, ponder = statistics.median(samples["frozen"]), statistics.median(samples["ponder"])
    return {"frozen_us_per_ply": round(frozen, 1), "ponder_us_per_ply": round(ponder, 1),
            "ratio": round(frozen / ponder, 3)}


def main() -> None:
    """Measure each bot kind and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=4, help="matches per round and mode")
    parser.add_argument("--size", type=int, default=40, help="board side of the Blocking matches")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    figures: dict[str, object] = {"freezer": freezer()}
    figures["python_sdk"] = per_ply_us(f"{HERE / 'instant_bot.py'}:InstantBot", args.matches, args.size, args.rounds)
    with tempfile.TemporaryDirectory() as build:
        binary = f"{build}/instant_stdio"
        done = subprocess.run(["cc", "-O2", "-o", binary, str(HERE / "instant_stdio.c")], capture_output=True,
                              check=False)
        if done.returncode == 0:
            figures["native_stdio"] = per_ply_us(f"stdio:{binary}", args.matches, args.size, args.rounds)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
