"""What an integrity check reads: the players, and every played two-player game with its log.

A tournament's results directory is read here (its store, read-only); a contest server's
directory is read by the server's own module (arena/server/checks/integrity.py) into the same
records, so the analysis knows nothing of where the games were played.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from arena.tournament.results.store import STORE_NAME, ResultsStore, StoreError
from arena.tournament.run.dirlock import in_use_note


class IntegrityError(Exception):
    """DIR cannot be checked (not a results directory, a damaged store, not a two-player game); one line."""


@dataclass(frozen=True)
class Player:
    """One player as the check names it: a key unique in the results, and how reports show it."""

    key: str
    label: str


@dataclass(frozen=True)
class Game:
    """One played game: the players by seat, seat 0's points (1, 0.5 or 0), its setup and its log."""

    ref: str  # the match id, or the server's game number
    seats: tuple[str, str]  # player keys, seat 0 first
    points: float
    setup: str  # the setup's key: games on other setups are never copies of each other
    log: Path | None
    reason: str = ""


@dataclass
class Results:
    """The games of one tournament (or one contest's ladder), ready to be judged."""

    title: str
    game: str
    players: dict[str, Player]
    games: list[Game]
    notes: list[str] = field(default_factory=list)


def points_of(ranks: list[int]) -> float:
    """Seat 0's points from the ranks of a two-player game (1 is best; equal ranks are a draw)."""
    return 1.0 if ranks[0] < ranks[1] else 0.5 if ranks[0] == ranks[1] else 0.0


def tournament_results(directory: str | os.PathLike[str]) -> Results:
    """The played games of a tournament's results directory; IntegrityError when it is none."""
    path = Path(directory)
    if not path.is_dir():
        raise IntegrityError(f"{path}: " + ("not a directory" if path.exists() else "no such directory"))
    if not (path / STORE_NAME).exists():
        raise IntegrityError(f"{path}: neither a tournament's results directory (no {STORE_NAME}) nor a contest "
                             "server's directory (no server.db)")
    try:
        store = ResultsStore(path / STORE_NAME, create=False)
    except StoreError as exc:
        raise IntegrityError(str(exc)) from None
    try:
        meta = store.meta()
        records = store.records("ord")
    except StoreError as exc:
        raise IntegrityError(str(exc)) from None
    finally:
        store.close()
    config = meta.get("config")
    if not isinstance(config, dict) or not isinstance(config.get("bots"), list) or "game" not in config:
        raise IntegrityError(f"{path / STORE_NAME}: holds no tournament config")
    if config.get("players") != 2:
        raise IntegrityError(f"{path}: a {config.get('players')}-player tournament of {config['game']}; the "
                             "integrity check judges pairs of players, in two-player games")
    names = [str(bot.get("name", "")) if isinstance(bot, dict) else str(bot) for bot in config["bots"]]
    players = {name: Player(name, name) for name in names}
    games, notes = [], []
    unplayed = 0
    for record in records:
        if not record.played or len(record.names) != 2:
            unplayed += 1
            continue
        for name in record.names:
            players.setdefault(name, Player(name, name))
        games.append(Game(record.match, (record.names[0], record.names[1]), points_of(record.ranks),
                          str(record.setup), path / record.log if record.log else None, record.reason))
    if unplayed:
        notes.append(f"{unplayed} match(es) scored without being played (forfeits) are left out")
    busy = in_use_note(path)
    if busy:
        notes.append(busy)
    return Results(f"tournament {path}", str(config["game"]), players, games, notes)
