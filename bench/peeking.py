"""The peeking bot beside its control over 200 games each (tests/launch/sandbox/test_peeking.py plays 40 and 10).

    python bench/peeking.py [--games N] [--leaky N] [--workers N] [--standard]

Goofspiel (6 cards) and Battleship (6 x 6, fleet 3-2-2; --standard: 10 x 10, 5-4-3-3-2), each a
tournament of the peeker and one of its control against the same opponent (a seeded random
player that writes each choice to /tmp), from the same config in the default sandbox: the
number of games whose moves differ (0 when peeking finds nothing), the rounds each took, the
shots after which each ship went down (on average), and what the peeker found. Then the leaky configurations
(--leaky games each): the same opponent without a sandbox, and a Goofspiel partner whose thinking
time encodes its bid, with strict turns and with pondering. Run as root, with bubblewrap.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.launch.sandbox.test_peeking import BATTLESHIP, GOOFSPIEL, Game, role, tournament  # noqa: E402

STANDARD = {"size": 10, "fleet": [5, 4, 3, 3, 2]}


def found(games: dict[str, Game]) -> str:
    """What the peeker found, channel by channel, over all its games."""
    total: dict[str, int] = {}
    for game in games.values():
        for channel, count in game.report()["found"].items():
            total[channel] = total.get(channel, 0) + count
    return ", ".join(f"{channel} {count}" for channel, count in total.items() if count) or "nothing"


def line(name: str, games: dict[str, Game], control: dict[str, Game], kind: str) -> str:
    """A markdown row: the configuration, games, games whose moves differ, the measure of each, what was found."""
    twins = {match: control[match] for match in games}
    differ = sum(game.moves() != twins[match].moves() for match, game in games.items())
    if kind == "goofspiel":
        mine, theirs = (sum(g.rounds_won() for g in side.values()) for side in (games, twins))
        measure = f"rounds won {mine} / {theirs}"
    else:
        sides = []
        for side in (games, twins):
            sunk = [shots for g in side.values() for shots in g.shots_to_sink()]
            wins = sum(g.log.result["ranks"][g.seat] == 1 for g in side.values())
            sides.append(f"{wins} won, {len(sunk)} ships sunk, each after {sum(sunk) / max(1, len(sunk)):.1f} shots")
        measure = " / ".join(sides)
    return f"| {name} | {len(games)} | {differ} | {measure} | {found(games)} |"


def main() -> int:
    """Play every configuration and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games of each exact comparison (default 200)")
    parser.add_argument("--leaky", type=int, default=40, help="games of each leaky configuration (default 40)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--standard", action="store_true", help="Battleship on the standard 10 x 10 board")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="arena-peeking-"))
    rows = ["| configuration | games | moves differ | peeker / control | the peeker found |", "|---|---|---|---|---|"]
    started = time.monotonic()
    for game, setup in (("goofspiel", GOOFSPIEL), ("battleship", STANDARD if args.standard else BATTLESHIP)):
        opponent = role(game, "leak-file")
        peeked = tournament(tmp, f"{game}-peek", game, setup, role(game, "peek"), opponent, args.games)
        control = tournament(tmp, f"{game}-control", game, setup, role(game, "control"), opponent, args.games)
        rows.append(line(f"{game}, bwrap, opponent writes its choice to /tmp", peeked, control, game))
        leaked = tournament(tmp, f"{game}-none", game, setup, role(game, "peek"), opponent, args.leaky, "none")
        rows.append(line(f"{game}, no sandbox, the same opponent", leaked, control, game))
        print(rows[-2], rows[-1], sep="\n", file=sys.stderr, flush=True)
        if game == "goofspiel":
            slow = role(game, "leak-time")
            for ponder in (False, True):
                timed = tournament(tmp, f"time-{ponder}", game, setup, role(game, "peek"), slow, args.leaky,
                                   ponder=ponder)
                rows.append(line(f"goofspiel, bwrap, partner thinks 60 ms a card of its bid"
                                 f"{', pondering' if ponder else ''}", timed, control, game))
                print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    print(f"\n({time.monotonic() - started:.0f} s, results under {tmp})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
