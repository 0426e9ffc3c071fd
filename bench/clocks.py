"""Wall and CPU clocks under load, forfeit latency, and false forfeits (issue: fair clocks).

Three measurements, printed as JSON lines:
1. charges: the same bot burning a fixed amount of CPU per move, with spinners on every
   core, charged in `wall` and in `cpu` mode (mean charge per move against the work done);
2. forfeit latency: the time from a deadline to the referee declaring the timeout, over
   many timed-out requests (median, p99, max);
3. false forfeits: many games of bots that use 80 % of their per-move allowance; every
   timeout among them would be a false forfeit.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from arena.clock import ClockMode, ClockSettings  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.launch.processes.process import Limits  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.logs.matchlog import LogWriter  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.onematch import launch_player, shutdown  # noqa: E402
from arena.match.referee import Referee  # noqa: E402

BOTS = HERE / "clock_bots.py"


def _spin() -> None:
    while True:
        pass


def spinners(count: int) -> list[multiprocessing.Process]:
    """Start count busy processes (one per core loads the machine fully)."""
    procs = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(count)]
    for proc in procs:
        proc.start()
    return procs


def players(hub: Hub, specs: list[str]) -> list:
    """Launch persistent players for the blocking game."""
    return [launch_player(hub, parse_bot_spec(text, "blocking"), Limits()) for text in specs]


def charges(work_ms: float, games: int, load: int) -> dict:
    """Mean charge per move of a bot burning work_ms CPU per move, in wall and cpu mode."""
    game = get_game("blocking")
    setup = {"rows": 5, "cols": 9, "blocked": []}
    out = {"work_ms": work_ms, "spinners": load}
    load_procs = spinners(load)
    try:
        for mode in (ClockMode.WALL, ClockMode.CPU):
            hub = Hub()
            seats = players(hub, [f"{BOTS}:WorkBot:work_ms={work_ms}", f"{BOTS}:WorkBot:work_ms={work_ms}"])
            clock = ClockSettings(budget_ms=600_000, mode=mode)
            charged = []
            for i in range(games):
                path = Path(f"/tmp/arena-clocks-{os.getpid()}.msgpack")
                writer = LogWriter(path)
                Referee(seats, game, setup, i, clock, f"c{i}", writer).run()
                writer.close()
                from arena.logs.matchlog import read_log

                charged += [r["time_ms"] for r in read_log(path).moves]
                path.unlink()
            out[f"{mode}_mean_ms"] = round(statistics.mean(charged), 2)
            out[f"{mode}_p90_ms"] = round(sorted(charged)[int(0.9 * len(charged))], 2)
            shutdown(hub, seats)
            hub.close()
    finally:
        for proc in load_procs:
            proc.kill()
    return out


class _TimedReferee(Referee):
    """A referee that records how late past the deadline each timeout was declared."""

    lateness: list[float] = []

    def _overran(self, out, seat, w, wall):  # noqa: ANN001, ANN202
        self.lateness.append((time.monotonic() - w.deadline) * 1000)
        return super()._overran(out, seat, w, wall)


def forfeit_latency(count: int) -> dict:
    """Distribution of deadline-to-forfeit times over count timed-out requests."""
    game = get_game("blocking")
    hub = Hub()
    seats = players(hub, [f"{BOTS}:SilentBot", "sequential"])
    clock = ClockSettings(budget_ms=20, margin_ms=10, startup_ms=10_000)
    setup = {"rows": 3, "cols": 3, "blocked": []}
    _TimedReferee.lateness = []
    for i in range(count):
        result = _TimedReferee(seats, game, setup, i, clock, f"f{i}").run()
        if result.reason != "timeout":
            raise RuntimeError(f"expected a timeout, got {result.reason}: {result.detail}")
    shutdown(hub, seats, grace_s=0)
    hub.close()
    late = sorted(_TimedReferee.lateness)
    return {"timeouts": len(late), "latency_median_ms": round(statistics.median(late), 3),
            "latency_p99_ms": round(late[int(0.99 * len(late)) - 1], 3), "latency_max_ms": round(late[-1], 3)}


def false_forfeits(games: int, cap_ms: int, mode: ClockMode, load: int) -> dict:
    """Timeouts among games of bots that use 80 % of each move's allowance."""
    game = get_game("blocking")
    hub = Hub()
    seats = players(hub, [f"{BOTS}:WorkBot:share=0.8", f"{BOTS}:WorkBot:share=0.8"])
    clock = ClockSettings(budget_ms=60_000, move_cap_ms=cap_ms, margin_ms=50, mode=mode)
    setup = {"rows": 3, "cols": 6, "blocked": []}
    load_procs = spinners(load)
    forfeits = 0
    try:
        for i in range(games):
            result = Referee(seats, game, setup, i, clock, f"g{i}").run()
            if result.reason == "timeout":
                forfeits += 1
    finally:
        for proc in load_procs:
            proc.kill()
    shutdown(hub, seats)
    hub.close()
    return {"games": games, "mode": str(mode), "move_cap_ms": cap_ms, "spinners": load, "false_forfeits": forfeits}


def main() -> None:
    """Run the three measurements."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--work-ms", type=float, default=20.0)
    parser.add_argument("--charge-games", type=int, default=10)
    parser.add_argument("--timeouts", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--cap-ms", type=int, default=20)
    args = parser.parse_args()
    cores = os.cpu_count() or 1
    print(json.dumps(charges(args.work_ms, args.charge_games, cores)), flush=True)
    print(json.dumps(forfeit_latency(args.timeouts)), flush=True)
    print(json.dumps(false_forfeits(args.games, args.cap_ms, ClockMode.WALL, 0)), flush=True)
    print(json.dumps(false_forfeits(args.games, args.cap_ms, ClockMode.CPU, cores)), flush=True)


if __name__ == "__main__":
    main()
