"""How a Pascal module should speak ZeroMQ, measured: a library the SDK serves, or a native host on libzmq.

The two ways issue 29 named, each with two instant bots on Blocking 50 x 50 under the same
referee, matches of the two interleaved (so a busy machine slows both alike), start-up
excluded, logs written:

- "library": the Python SDK over the default wire, calling a Free Pascal library's
  exported function through ctypes every turn (what `pascal:` modules do);
- "libzmq_host": a native program linked with libzmq and msgpack-c (the C example's
  instant mode, `cbot --sequential`): what a host linked against them would be.

For each, the median over the rounds of the wall time per ply and of the CPU time both bots
used per ply (their cgroups' accounting: less sensitive to other load than the wall time).
One JSON line. Needs fpc, a C compiler, libzmq and msgpack-c.

    python bench/pascal_wire.py [--rounds N]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overhead  # noqa: E402

from arena.clock import ClockSettings  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.launch.processes.process import Limits  # noqa: E402
from arena.launch.sandbox.sandbox import Sandbox  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.logs.matchlog import LogWriter  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.onematch import launch_player, shutdown  # noqa: E402
from arena.match.referee import Referee  # noqa: E402

NOOP = """library arenanoop;
{$mode objfpc}
function arena_turn(d: LongInt; sec: LongInt): LongInt; cdecl;
begin
  Result := d;
end;
exports arena_turn;
end.
"""


def build_library(directory: str) -> str:
    """A Free Pascal library exporting arena_turn, as the arena builds a module's."""
    source = Path(directory) / "arenanoop.pas"
    source.write_text(NOOP)
    subprocess.run(["fpc", "-O2", "-Xs", "-XX", f"-FE{directory}", str(source)], check=True, capture_output=True)
    return str(Path(directory) / "libarenanoop.so")


def main() -> None:
    """Measure both ways, interleaved, and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    game = get_game("blocking")
    clock = ClockSettings(budget_ms=60_000)
    setup = {"rows": 50, "cols": 50, "blocked": []}
    hub = Hub()
    with tempfile.TemporaryDirectory() as build:
        native = overhead.native_spec(build)
        if native is None:
            raise SystemExit("the C example does not build here (a C compiler, libzmq and msgpack-c are needed)")
        specs = {"library": f"{overhead.INSTANT}:LibraryInstantBot:library={build_library(build)}",
                 "libzmq_host": native}
        players = {way: [launch_player(hub, parse_bot_spec(spec, "blocking"), Limits(), Sandbox.NONE)
                         for _ in range(2)] for way, spec in specs.items()}
        for way in players:  # the warm-up connects the bots
            Referee(players[way], game, setup, 0, clock, "warm-up").run()
        samples: dict[str, list[tuple[float, float]]] = {way: [] for way in players}
        for round_ in range(args.rounds):
            for way, seats in players.items():
                cpu = sum(p.process.cpu_ms() for p in seats if p.process is not None)
                writer = LogWriter(Path(build) / f"{way}-{round_}.msgpack")
                started = time.perf_counter()
                result = Referee(seats, game, setup, round_, clock, f"m{round_}", writer).run()
                wall = time.perf_counter() - started
                writer.close()
                used = sum(p.process.cpu_ms() for p in seats if p.process is not None) - cpu
                samples[way].append((wall / result.plies * 1e6, used / result.plies * 1e3))
        for seats in players.values():
            shutdown(hub, seats)
    hub.close()
    figures = {}
    for way, values in samples.items():
        figures[f"{way}_us_per_ply"] = round(statistics.median(v[0] for v in values), 1)
        figures[f"{way}_bot_cpu_us_per_ply"] = round(statistics.median(v[1] for v in values), 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
