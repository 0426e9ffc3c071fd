"""The arena's cost per ply beside fastchess's, measured in one run on the same machine.

fastchess (github.com/Disservin/fastchess) plays `--games` games between two copies of an
instant UCI engine (its own test engine `random_mover`, which answers every `go` at once
with a random legal move); the cost per ply is its wall time over the plies of the PGN it
writes. Then `bench/overhead.py`'s measurement runs: the arena's referee between two instant
Python bots (as the arena starts them, over ZeroMQ; and on their pipes) and between two
instant C bots (the C example over ZeroMQ with libzmq; bench/instant_stdio.c on pipes). One JSON line:

    python bench/compare_fastchess.py --fastchess PATH/fastchess --engine PATH/random_mover

Build both from a fastchess checkout (`make -j2`, and
`g++ -O3 -std=c++17 app/tests/mock/engine/random_mover.cpp -o random_mover`).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overhead  # noqa: E402

RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def pgn_plies(text: str) -> tuple[int, int]:
    """(games, plies) of a PGN file: the move tokens of every game's movetext."""
    games = plies = 0
    for game in text.split("[Event ")[1:]:
        games += 1
        movetext = " ".join(line for line in game.splitlines() if not line.startswith("["))
        movetext = re.sub(r"\{[^}]*\}|\([^)]*\)", " ", movetext)
        plies += sum(1 for token in movetext.split()
                     if token not in RESULTS and not re.fullmatch(r"\d+\.+", token))
    return games, plies


def fastchess_us_per_ply(fastchess: str, engine: str, games: int) -> tuple[float, int]:
    """Wall time per ply of fastchess playing games between two copies of engine, one at a time."""
    with tempfile.TemporaryDirectory() as tmp:
        pgn = Path(tmp) / "games.pgn"
        started = time.perf_counter()
        subprocess.run([fastchess, "-engine", f"cmd={engine}", "name=a", "-engine", f"cmd={engine}", "name=b",
                        "-each", "tc=inf", "nodes=1", "-rounds", str(games // 2), "-games", "2",
                        "-concurrency", "1", "-pgnout", f"file={pgn}"],
                       check=True, capture_output=True, cwd=tmp)
        elapsed = time.perf_counter() - started
        played, plies = pgn_plies(pgn.read_text())
    if played != games or not plies:
        raise RuntimeError(f"fastchess wrote {played} games ({plies} plies), expected {games}")
    return elapsed / plies * 1e6, plies


def main() -> None:
    """Measure fastchess, then the arena, and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fastchess", required=True, help="the fastchess binary")
    parser.add_argument("--engine", required=True, help="an instant UCI engine (fastchess's random_mover)")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--matches", type=int, default=10, help="arena matches per measurement")
    args = parser.parse_args()
    fastchess, fastchess_plies = fastchess_us_per_ply(args.fastchess, args.engine, args.games)
    figures = {"fastchess_us_per_ply": round(fastchess, 1), "fastchess_plies": fastchess_plies,
               "raw_us": round(overhead.raw_round_trip_us(5000), 1)}
    python, _ = overhead.referee_us_per_ply(args.matches, 50)
    figures["arena_python_us_per_ply"] = round(python, 1)  # the default wire: ZeroMQ
    figures["arena_python_pipes_us_per_ply"] = round(overhead.referee_us_per_ply(args.matches, 50,
                                                                                 wire=overhead.Wire.PIPES)[0], 1)
    with tempfile.TemporaryDirectory() as build:
        native = overhead.native_spec(build)
        if native is not None:
            figures["arena_native_us_per_ply"] = round(overhead.referee_us_per_ply(args.matches, 50, native)[0], 1)
        native_pipe = overhead.native_stdio_spec(build)
        if native_pipe is not None:
            figures["arena_native_pipe_us_per_ply"] = round(
                overhead.referee_us_per_ply(args.matches, 50, native_pipe)[0], 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
