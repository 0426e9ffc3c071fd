"""The false-flag rate and the power of `arena integrity` (docs/integrity.md quotes these figures).

    python bench/integrity.py simulated [--tournaments N]        # results drawn from a rating model
    python bench/integrity.py honest    [--runs N] [--only NAME]  # real round robins of honest bots
    python bench/integrity.py power     [--runs N] [--games 2,4,8] [--workers N]

- simulated: round robins whose results are drawn from the model the check fits (strengths,
  a first-move advantage, draws in one variant) plus pair effects of a given spread (how far a
  pair's results stray from its ratings: styles that suit each other); no logs, so results only.
  The share of honest ordered pairs flagged at the default threshold, and how often a player
  that loses every game to its partner on purpose is flagged, by games between the two.
- honest: real round robins through the tournament runner and real bot processes, with their
  logs: Blocking (a fixed 6 x 6 board, 8 and 24 games per pairing; random boards of 4 to 7),
  Tiles and Arrows (random setups), the folders' reference bots, random bots of several seeds,
  and on Blocking the colluders of tests/fixtures/handshake_colluder.py with different secrets (perfect
  players that never recognise each other). Every flagged pair is a false flag.
- power: the same 6 x 6 Blocking round robin of four reference bots and a colluding pair (one
  throws every game to its partner after the handshake), for several games per pairing, judged
  with the solver's blunders and with the results alone.
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.integrity.model import probabilities  # noqa: E402
from arena.integrity.records import Game, Player, Results, tournament_results  # noqa: E402
from arena.integrity.report import ALPHA, Report, analyse  # noqa: E402

COLLUDER = str(ROOT / "tests" / "fixtures" / "handshake_colluder.py")


# --- simulated round robins ------------------------------------------------------------------


def simulated(players: int, games: int, spread: float, nu: float, rng: random.Random,
              throws: bool = False) -> Results:
    """A round robin drawn from the model; with throws, p0 loses every game against p1."""
    names = [f"p{k}" for k in range(players)]
    theta = [rng.gauss(0.0, 1.0) for _ in names]
    h = 0.3
    found = []
    for i in range(players):
        for j in range(i + 1, players):
            effect = rng.gauss(0.0, spread)
            for k in range(games):
                a, b = (i, j) if k % 2 == 0 else (j, i)
                mu = theta[a] - theta[b] + h + (effect if a == i else -effect)
                win, draw, _ = probabilities(mu, nu)
                u = rng.random()
                points = 1.0 if u < win else 0.5 if u < win + draw else 0.0
                if throws and {a, b} == {0, 1}:
                    points = 0.0 if a == 0 else 1.0
                found.append(Game(f"m{i}-{j}-{k}", (names[a], names[b]), points, "0", None))
    return Results("simulated", "simulated", {n: Player(n, n) for n in names}, found)


def run_simulated(args: argparse.Namespace) -> None:
    """False flags and power when the results follow the model (pair effects included)."""
    rng = random.Random(1)
    print("| players | games per pair | pair spread (logit) | draws | ordered pairs | flagged | share |")
    print("|---|---|---|---|---|---|---|")
    for players, games, spread, nu in ((8, 8, 0.0, 0.0), (8, 8, 0.0, 0.6), (12, 8, 0.5, 0.0), (8, 16, 1.0, 0.0),
                                       (8, 32, 1.0, 0.0)):
        pairs = flagged = 0
        for _ in range(args.tournaments):
            report = analyse(simulated(players, games, spread, nu, rng))
            pairs += len(report.findings)
            flagged += len(report.flagged)
        print(f"| {players} | {games} | {spread} | {'yes' if nu else 'no'} | {pairs} | {flagged} | "
              f"{flagged / pairs:.2%} |", flush=True)
    print("\nA player losing every game to its partner (results only):\n")
    print("| players | games per pair | pair spread (logit) | runs | pair flagged | flagged first |")
    print("|---|---|---|---|---|---|")
    for spread in (0.0, 1.0):
        for games in (4, 8, 16, 24):
            hits = first = 0
            for _ in range(args.tournaments):
                report = analyse(simulated(8, games, spread, 0.0, rng, throws=True))
                top = report.flagged[:1]
                hits += any(f.player == "p0" and f.opponent == "p1" for f in report.flagged)
                first += bool(top) and (top[0].player, top[0].opponent) == ("p0", "p1")
            print(f"| 8 | {games} | {spread} | {args.tournaments} | {hits / args.tournaments:.0%} | "
                  f"{first / args.tournaments:.0%} |", flush=True)


# --- real round robins ------------------------------------------------------------------------


def colluder(name: str, secret: str, role: str) -> dict[str, Any]:
    """A colluder of tests/fixtures/handshake_colluder.py as a config's bot entry."""
    return {"spec": COLLUDER, "name": name, "options": {"secret": secret, "role": role}}


HONEST: dict[str, dict[str, Any]] = {
    "blocking 6x6": {"game": "blocking", "games_per_pairing": 8, "setups": {"fixed": {"rows": 6, "cols": 6}},
                     "bots": ["random", {"spec": "random", "name": "random-2", "options": {"seed": 2}}, "sequential",
                              "maxblock", "perfect", colluder("hasher-a", "a", "thrower"),
                              colluder("hasher-b", "b", "partner")]},
    "blocking 6x6, 24 games": {"game": "blocking", "games_per_pairing": 24,
                               "setups": {"fixed": {"rows": 6, "cols": 6}},
                               "bots": ["random", {"spec": "random", "name": "random-2", "options": {"seed": 2}},
                                        "sequential", "maxblock", "perfect", colluder("hasher-a", "a", "thrower"),
                                        colluder("hasher-b", "b", "partner")]},
    "blocking 4..7": {"game": "blocking", "games_per_pairing": 4,
                      "setups": {"random": {"count": 2, "min_size": 4, "max_size": 7}},
                      "bots": ["random", {"spec": "random", "name": "random-2", "options": {"seed": 2}}, "sequential",
                               "maxblock", "perfect", colluder("hasher-a", "a", "thrower")]},
    "tiles": {"game": "tiles", "games_per_pairing": 4,
              "setups": {"random": {"count": 2, "max_pot": 24, "max_rows": 4}},
              "bots": ["random", {"spec": "random", "name": "random-2", "options": {"seed": 2}}, "greedy",
                       "montecarlo", "perfect"]},
    "arrows": {"game": "arrows", "games_per_pairing": 4,
               "setups": {"random": {"count": 2, "min_size": 5, "max_size": 7}},
               "bots": ["random", {"spec": "random", "name": "random-2", "options": {"seed": 2}}, "greedy",
                        "alphabeta", {"spec": "alphabeta", "name": "alphabeta-2k", "options": {"nodes": 2000}}]},
}


def play(config: dict[str, Any], name: str, seed: int, out: Path, workers: int) -> Path:
    """Play one round robin; its results directory."""
    import arena

    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", name)  # a tournament's name names a directory
    directory = out / f"{slug}-{seed}"
    data = {"name": slug, "seed": seed, "clock": {"budget_ms": 5000, "mode": "cpu"},
            "strikes": {"max_strikes": 0}, **config}
    arena.run_tournament(data, out=directory, workers=workers)
    return directory


def run_honest(args: argparse.Namespace) -> None:
    """False flags on real round robins of honest bots."""
    print("| round robin | runs | ordered pairs | flagged | least adjusted p (median) | play / judge (s) |")
    print("|---|---|---|---|---|---|")
    total_pairs = total_flagged = 0
    with tempfile.TemporaryDirectory(prefix="arena-bench-integrity-") as tmp:
        for name, config in HONEST.items():
            if args.only and name != args.only:
                continue
            pairs = flagged = 0
            least, played, judged = [], 0.0, 0.0
            for seed in range(1, args.runs + 1):
                started = time.monotonic()
                directory = play(config, name, seed, Path(tmp), args.workers)
                middle = time.monotonic()
                report = analyse(tournament_results(directory))
                played, judged = played + middle - started, judged + time.monotonic() - middle
                pairs += len(report.findings)
                flagged += len(report.flagged)
                least.append(min(f.adjusted for f in report.findings))
                for finding in report.flagged:
                    print(f"  false flag: {finding.line(report.labels)}", file=sys.stderr)
            total_pairs, total_flagged = total_pairs + pairs, total_flagged + flagged
            print(f"| {name} | {args.runs} | {pairs} | {flagged} | {statistics.median(least):.2f} | "
                  f"{played / args.runs:.0f} / {judged / args.runs:.1f} |", flush=True)
    print(f"| all | | {total_pairs} | {total_flagged} | | |")


def run_power(args: argparse.Namespace) -> None:
    """How many games between the pair the check needs to flag a thrower."""
    base = {"game": "blocking", "setups": {"fixed": {"rows": 6, "cols": 6}},
            "bots": [colluder("thrower", "s", "thrower"), colluder("partner", "s", "partner"), "perfect", "maxblock",
                     "random", "sequential"]}
    print("| games per pairing | runs | flagged (blunders) | first (blunders) | flagged (results only) | "
          "first (results only) | others flagged |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="arena-bench-integrity-") as tmp:
        for games in args.games:
            tally = [0, 0, 0, 0, 0]
            for seed in range(1, args.runs + 1):
                directory = play({**base, "games_per_pairing": games}, f"power {games}", seed, Path(tmp),
                                 args.workers)
                results = tournament_results(directory)
                for k, report in enumerate((analyse(results), analyse(results, blunders=False))):
                    hit, first = _caught(report)
                    tally[2 * k] += hit
                    tally[2 * k + 1] += first
                    tally[4] += sum(1 for f in report.flagged if (f.player, f.opponent) != ("thrower", "partner"))
            runs = args.runs
            print(f"| {games} | {runs} | {tally[0] / runs:.0%} | {tally[1] / runs:.0%} | {tally[2] / runs:.0%} | "
                  f"{tally[3] / runs:.0%} | {tally[4]} |", flush=True)


def _caught(report: Report) -> tuple[bool, bool]:
    """(the thrower's pair is flagged, it is flagged first)."""
    flagged = [(f.player, f.opponent) for f in report.flagged]
    return ("thrower", "partner") in flagged, flagged[:1] == [("thrower", "partner")]


def main() -> None:
    """Run the part of the bench named on the command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("part", choices=("simulated", "honest", "power"))
    parser.add_argument("--tournaments", type=int, default=30, help="simulated round robins per row")
    parser.add_argument("--runs", type=int, default=10, help="real round robins per row (seeds 1..N)")
    parser.add_argument("--games", type=lambda text: [int(g) for g in text.split(",")], default=[4, 6, 8, 10, 12, 16],
                        help="games per pairing, comma-separated (power)")
    parser.add_argument("--only", metavar="NAME", help="honest: only the round robin of this name")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    print(f"# arena integrity: {args.part} (alpha {ALPHA}, Holm)\n")
    {"simulated": run_simulated, "honest": run_honest, "power": run_power}[args.part](args)


if __name__ == "__main__":
    main()
