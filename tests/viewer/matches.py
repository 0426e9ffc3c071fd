"""Seeded matches of every game with logs, shared by the replay and viewer tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from arena.games import State
from arena.logs.matchlog import MatchLog, read_log
from arena.logs.replay import positions
from tests.helpers import run

# game -> (bots, partial setup, seed): small, quick matches with several plies each.
MATCHES: dict[str, tuple[list[str], dict[str, Any], int]] = {
    "arrows": (["greedy", "random"], {"cols": 10, "rows": 10}, 4),
    "blocking": (["maxblock", "random"], {"rows": 9, "cols": 11}, 4),
    "tiles": (["greedy", "random"], {}, 4),
    "tenten": (["greedy"], {"size": 8, "max_rounds": 6}, 3),
    "blocky": (["random", "smart"], {"turns": 8, "max_depth": 3}, 6),
}
GAMES = sorted(MATCHES)


def play(game: str, directory: Path, seed: int | None = None) -> Path:
    """Play the game's seeded match (or the same one with another seed); return its log."""
    bots, setup, default_seed = MATCHES[game]
    seed = default_seed if seed is None else seed
    path = directory / f"{game}-{seed}.msgpack"
    run(game, bots, setup, seed=seed, log=path)
    return path


def play_with_events(game: str, directory: Path, kind: str) -> Path:
    """A match of game whose log holds at least one referee event with payload key kind."""
    for seed in range(1, 40):
        path = play(game, directory, seed)
        log = read_log(path)
        if any(r["kind"] == "event" and kind in r["event"][1] and r["ply"] > 0 for r in log.records):
            return path
    raise AssertionError(f"no {game} seed in 1..39 gives a {kind} event")


def snapshots(log: MatchLog) -> list[State]:
    """The state after every ply (index 0: the initial position), as independent copies."""
    return [state.copy() for _, state in positions(log)]
