"""The analyzer kit: a game's analyze.py defines ANALYZER, its subcommand `arena analyze GAME`.

An analyzer studies its game: an exact solver on one position, or a study that plays many
games. It never imports the engine's layers: games are played through the `GameRunner` it
is handed, which runs them on the tournament runner's workers (clocks, sandbox and all).
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

EXIT_OK = 0


@dataclass(frozen=True)
class PlannedGame:
    """One game an analyzer asks for: its id, its setup (an index), who sits where (bot indices), its seed."""

    match: str
    setup: int
    seats: tuple[int, ...]
    seed: int


@dataclass(frozen=True)
class PlayedGame:
    """How a planned game ended."""

    match: str
    ranks: list[int]
    scores: list[float]
    reason: str


class GameRunner(Protocol):
    """Plays an analyzer's games on the tournament runner's workers."""

    def play(self, game: str, bots: Sequence[str], setups: Sequence[Mapping[str, Any]],
             games: Sequence[PlannedGame], *, seed: int, workers: int | None = None,
             progress: bool = False) -> dict[str, PlayedGame]:
        """Play every game (bots: BOT specs, one name each; a spec may come twice); the results by match id.

        Raises the command line's one-line error (CliError) for a bad bot or setup, or a game not played.
        """


@dataclass(frozen=True)
class Analyzer:
    """One game's `arena analyze` subcommand."""

    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, dict[str, Any], GameRunner], int]
    players: int = 2  # seats the setup is validated for
    takes_setup: bool = True  # False: the analysis needs no position (a study over board sizes)


def seed_of(*parts: object) -> int:
    """A seed derived from its parts by hashing (stable across runs and machines)."""
    digest = hashlib.blake2b("|".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") % 2**31
