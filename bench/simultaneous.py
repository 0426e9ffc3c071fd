"""What a simultaneous turn costs: two instant bots bidding at once (Goofspiel) against a sequential ply (Blocking).

A simultaneous turn asks both movers, one after another, each thawed and frozen in turn (or at
once with --ponder), and sends each its own view; a sequential ply asks one bot. Both run as the
referee runs them in a match (the default wire, logs written, no sandbox), between persistent
instant Python bots, and are measured in one run, alternating: the figure is the ratio, turn / ply.
The target is at most 2: a turn of two movers costs no more than the two plies it stands for.

    python bench/simultaneous.py [--matches N] [--cards N] [--size N] [--ponder]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.clock import ClockSettings  # noqa: E402
from arena.games import get_game  # noqa: E402
from arena.launch.processes.process import Limits  # noqa: E402
from arena.launch.sandbox.sandbox import Sandbox  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.logs.matchlog import LogWriter  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.onematch import launch_player, shutdown  # noqa: E402
from arena.match.referee import Referee  # noqa: E402

HERE = Path(__file__).resolve().parent


class Pair:
    """Two persistent instant bots of one game and the referee's cost per turn of their matches."""

    def __init__(self, game: str, bot: str, setup: dict, ponder: bool = False) -> None:
        self.game = get_game(game)
        self.hub = Hub()
        spec = parse_bot_spec(f"{HERE / bot}", game)
        self.players = [launch_player(self.hub, spec, Limits(), Sandbox.NONE) for _ in range(2)]
        self.setup, self.ponder = setup, ponder
        self.clock = ClockSettings(budget_ms=600_000)
        Referee(self.players, self.game, setup, 0, self.clock, "warm-up", ponder=ponder).run()
        self.elapsed, self.turns = 0.0, 0

    def play(self, logs: Path, i: int) -> None:
        """One match, timed; its turns counted."""
        writer = LogWriter(logs / f"{self.game.name}-{i}.msgpack")
        started = time.perf_counter()
        result = Referee(self.players, self.game, self.setup, i, self.clock, f"m{i}", writer,
                         ponder=self.ponder).run()
        self.elapsed += time.perf_counter() - started
        writer.close()
        if result.offender is not None:
            raise RuntimeError(f"bench match ended with {result.reason}: {result.detail}")
        self.turns += result.plies

    def close(self) -> None:
        """Stop the bots."""
        shutdown(self.hub, self.players)
        self.hub.close()


def main() -> None:
    """Alternate matches of both pairs; print the cost per turn of each and the ratio."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--cards", type=int, default=52, help="Goofspiel's cards: simultaneous turns a match")
    parser.add_argument("--size", type=int, default=20, help="Blocking's board side: sequential plies a match")
    parser.add_argument("--ponder", action="store_true", help="movers asked at once (bots not frozen)")
    args = parser.parse_args()
    sequential = Pair("blocking", "instant_bot.py:InstantBot", {"rows": args.size, "cols": args.size, "blocked": []},
                      args.ponder)
    simultaneous = Pair("goofspiel", "instant_bidder.py:InstantBidder", {"cards": args.cards}, args.ponder)
    with tempfile.TemporaryDirectory() as logs:
        for i in range(args.matches):
            sequential.play(Path(logs), i)
            simultaneous.play(Path(logs), i)
    sequential.close()
    simultaneous.close()
    ply_us = sequential.elapsed / sequential.turns * 1e6
    turn_us = simultaneous.elapsed / simultaneous.turns * 1e6
    print(json.dumps({"sequential_us_per_ply": round(ply_us, 1), "plies": sequential.turns,
                      "simultaneous_us_per_turn": round(turn_us, 1), "turns": simultaneous.turns,
                      "ratio": round(turn_us / ply_us, 2), "ponder": args.ponder}))


if __name__ == "__main__":
    main()
