"""OpenSpiel's games through the arena: every 2-player game that loads with its default parameters.

For each game OpenSpiel registers, loaded with its default parameters: a game of two players
plays one random-against-random match through the real referee (each bot its own process, in
the default sandbox), its log is verified (`arena verify`'s re-simulation, chance from the seed
included), and the game's failures are listed with their reasons.

    python bench/openspiel_games.py [--seed N] [--only NAME ...] [--budget-ms N]

Target: every 2-player game that loads plays and verifies, or is one that the arena's contract
cannot express, with the reason. Needs the extra: pip install 'arena[openspiel]'.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import pyspiel

from arena.api import ArenaError, play_match
from arena.games import UnknownGame, get_game
from arena.logs.matchlog import read_log
from arena.logs.replay import verify


def candidates() -> tuple[list[str], dict[str, str]]:
    """The 2-player games that load with their defaults, and every other game with why it is left out."""
    two, left_out = [], {}
    for kind in sorted(pyspiel.registered_games(), key=lambda k: k.short_name):
        name = kind.short_name
        try:
            players = pyspiel.load_game(name).num_players()
        except (pyspiel.SpielError, IndexError) as exc:  # nfg_game fails with C++'s map::at
            left_out[name] = "does not load with its default parameters: " + " ".join(str(exc).split())[:80]
            continue
        if players == 2:
            two.append(name)
        else:
            left_out[name] = f"{players} players by default"
    return two, left_out


def play(name: str, seed: int, budget_ms: int, folder: Path) -> tuple[bool, str, float]:
    """One random-against-random match of openspiel:NAME and its verification: (ok, what happened, seconds)."""
    started = time.monotonic()
    game = f"openspiel:{name}"
    try:
        get_game(game)
    except UnknownGame as exc:
        return False, f"cannot be expressed: {exc.detail}", time.monotonic() - started
    log = folder / f"{name}.msgpack"
    try:
        result = play_match(game, ["random", "random"], seed=seed, budget_ms=budget_ms, log=log, force=True)
    except ArenaError as exc:
        return False, f"match refused: {exc}", time.monotonic() - started
    if result["offender"] is not None:
        return False, f"{result['reason']} of seat {result['offender']}: {result.get('detail', '')}", \
            time.monotonic() - started
    verdict = verify(read_log(log))
    seconds = time.monotonic() - started
    if not verdict.ok:
        return False, f"verify: {verdict.message}", seconds
    return True, f"{result['plies']} plies, {verdict.message}", seconds


def main(argv: list[str] | None = None) -> int:
    """Play every candidate; print one line per game, the failures and the count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget-ms", type=int, default=60_000)
    parser.add_argument("--only", nargs="*", default=[])
    args = parser.parse_args(argv)
    two, left_out = candidates()
    games = [g for g in two if not args.only or g in args.only]
    print(f"OpenSpiel {pyspiel.__version__ if hasattr(pyspiel, '__version__') else ''}: "
          f"{len(two) + len(left_out)} registered games, {len(two)} of 2 players with their default parameters")
    failures = []
    total = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="arena-openspiel-") as tmp:
        for name in games:
            ok, what, seconds = play(name, args.seed, args.budget_ms, Path(tmp))
            print(f"{'ok' if ok else 'FAIL':4}  {name:28} {seconds:6.1f} s  {what}", flush=True)
            if not ok:
                failures.append((name, what))
    print(f"\n{len(games) - len(failures)} of {len(games)} 2-player games play random against random and verify "
          f"({time.monotonic() - total:.0f} s)")
    for name, what in failures:
        print(f"  {name}: {what}")
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
