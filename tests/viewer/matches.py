"""Seeded matches of every game found, with logs, shared by the replay and viewer tests.

Each game's small seeded match is its folder's tests/golden.json (bots, partial setup, seed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from arena.games import State, game_file, game_names
from arena.logs.matchlog import MatchLog, read_log
from arena.logs.replay import positions
from tests.helpers import run


def recipe(game: str) -> tuple[list[str], dict[str, Any], int]:
    """(bots, partial setup, seed) of a game's small seeded match."""
    path = game_file(game, "tests/golden.json")
    assert path is not None, f"{game} has no tests/golden.json"
    data = json.loads(path.read_text())
    return data["bots"], data["setup"], data["seed"]


GAMES = [game for game in game_names() if game_file(game, "tests/golden.json") is not None]


def play(game: str, directory: Path, seed: int | None = None) -> Path:
    """Play the game's seeded match (or the same one with another seed); return its log."""
    bots, setup, default_seed = recipe(game)
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


def turns_of(log: MatchLog) -> list[list[dict[str, Any]]]:
    """The log's move records by turn: one each, or every mover's of a simultaneous turn (same ply)."""
    turns: list[list[dict[str, Any]]] = []
    for record in log.moves:
        if turns and turns[-1][0]["ply"] == record["ply"]:
            turns[-1].append(record)
        else:
            turns.append([record])
    return turns
