"""`arena integrity` of a contest server's directory: the ladder's games, and the finals', as the check reads them.

The players of the ladder are versions (what the ladder rates: a new version is a new
player), named "entrant vN"; the reference bots are players too. Every played game counts,
placement, ladder and test games alike. The finals, once they have results, are a
tournament's results directory of their own and are judged apart.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from arena.integrity.records import Game, IntegrityError, Player, Results, points_of, tournament_results
from arena.logs.matchlog import LogError, read_log
from arena.server.state.db import GameStatus
from arena.tournament.results.store import STORE_NAME

DATABASE = "server.db"


def contest_results(directory: str | Path, game: str = "") -> list[Results]:
    """The ladder's results (and the finals', when they have any); IntegrityError when unreadable."""
    directory = Path(directory)
    try:
        db = sqlite3.connect(f"file:{directory / DATABASE}?mode=ro", uri=True)
        try:
            db.row_factory = sqlite3.Row
            rows = [dict(r) for r in db.execute("SELECT * FROM games WHERE status = ? ORDER BY recorded, id",
                                                (GameStatus.DONE,))]
            versions = {r["id"]: dict(r) for r in db.execute(
                "SELECT s.id, s.version, s.filename, e.name, e.house FROM submissions s "
                "JOIN entrants e ON e.id = s.entrant")}
        finally:
            db.close()
    except sqlite3.Error as exc:
        raise IntegrityError(f"{directory / DATABASE}: not a contest's database ({exc})") from None
    ladder = directory / "ladder"
    players: dict[str, Player] = {}
    games = []
    for row in rows:
        seats = []
        for number in (row["a"], row["b"]):
            key = f"v{number}"
            players.setdefault(key, Player(key, _label(versions.get(number), key)))
            seats.append(key)
        log = ladder / row["log"] if row["log"] else None
        games.append(Game(f"game {row['id']}", (seats[0], seats[1]), points_of(json.loads(row["ranks"])),
                          str(row["setup"]), log, row["reason"]))
    found = [Results(f"contest {directory}: the ladder", game or _game_of(games), players, games)]
    if (directory / "finals" / STORE_NAME).exists():
        finals = tournament_results(directory / "finals")
        finals.title = f"contest {directory}: the finals"
        found.append(finals)
    return found


def _label(version: dict[str, Any] | None, key: str) -> str:
    """How the pages name a version: "entrant vN", a reference bot by its name."""
    if version is None:
        return key
    return f"{version['filename']} (reference)" if version["house"] else f"{version['name']} v{version['version']}"


def _game_of(games: list[Game]) -> str:
    """The game the first readable log says it is of (the database holds one game for the whole contest)."""
    for game in games:
        if game.log is not None:
            try:
                return str(read_log(game.log).header.get("game", ""))
            except (LogError, OSError):
                continue
    return ""
