"""The finals: each entrant's latest active version, frozen, in a tournament of the results-directory kind.

The field is fixed when the admin starts the finals (stored, so a restarted server resumes
the very same tournament); the games run through the tournament coordinator into
`finals/`, with standings, reports and signed logs, checkable by `arena verify`. Each
pairing plays `finals.games_per_pairing` games: half as many setups, drawn from the
contest's with its seed (each in both seats), the contest's setups taken in turn when it
has fewer.
"""

from __future__ import annotations

import dataclasses
import json
import random
import sqlite3
import threading
from pathlib import Path
from typing import Any

from arena.server.engine.intake import clock_data, limits_data
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, Status
from arena.server.state.eventlog import tell
from arena.tournament.plan.config import config_from_data
from arena.tournament.results.store import STORE_NAME
from arena.tournament.run.coordinator import Coordinator, RunOptions

PROGRESS_SHARE = 10  # the finals' progress is told at every tenth of their games


class FinalsError(RuntimeError):
    """The finals cannot start (too few entrants) or go on."""


def finals_dir(config: ServerConfig) -> Path:
    """Where the finals' results directory is."""
    return config.directory / "finals"


def freeze_field(config: ServerConfig, db: Database) -> list[dict[str, Any]]:
    """The bots of the finals (each entrant's latest active version), stored with the settings."""
    rows = db.rows("SELECT s.spec, e.name FROM submissions s JOIN entrants e ON e.id = s.entrant "
                   "WHERE s.status = ? AND e.house = 0 AND e.disabled = 0 AND (s.language != 'remote' OR ?) "
                   "ORDER BY e.name", Status.ACTIVE, int(config.remote.finals))
    if len(rows) < 2:
        raise FinalsError(f"the finals need at least 2 entrants with an active version; there are {len(rows)}")
    bots = []
    for row in rows:
        spec = json.loads(row.spec)
        bots.append({**spec, "name": row.name})  # the finals list entrants, not versions
    db.set_setting("finals_bots", json.dumps(bots))
    return bots


def finals_setups(count: int, pairs: int, seed: int) -> list[int]:
    """The contest's setups the finals play (indexes): pairs of them, drawn with the seed; in turn when too few."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return [order[i % count] for i in range(pairs)]


def finals_data(config: ServerConfig, bots: list[dict[str, Any]]) -> dict[str, Any]:
    """The tournament config of the finals: games_per_pairing games per pairing, two on each setup (both seats)."""
    tournament = config.tournament
    chosen = finals_setups(len(tournament.setups), config.finals_games // 2, tournament.seed)
    return {"name": f"{tournament.name}-finals", "game": tournament.game, "seed": tournament.seed,
            "players": 2, "games_per_pairing": 2, "format": config.finals_format,
            "setups": {"maps": [tournament.setups[i].setup for i in chosen]}, "clock": clock_data(config),
            "limits": limits_data(config), "sandbox": str(tournament.sandbox), "bots": bots,
            "concurrency": config.workers, "reveal_names": tournament.reveal_names, **remote_table(config, bots)}


def remote_table(config: ServerConfig, bots: list[dict[str, Any]]) -> dict[str, Any]:
    """The finals' [remote] table when remote entrants play them (their keys allowed), else nothing."""
    from arena.server.engine.remotes import folder, server_key

    names = [bot["spec"][len("remote:"):] for bot in bots if str(bot.get("spec", "")).startswith("remote:")]
    if not names:
        return {}
    keys = folder(config) / "keys"
    return {"remote": {"listen": config.remote.listen, "allow": [str(keys / f"{name}.key") for name in names],
                       "server_key": str(server_key(config)), "network_grace_ms": config.remote.network_grace_ms}}


def run_finals(config: ServerConfig, db: Database, stop: threading.Event) -> None:
    """Play the finals (resuming what is already in finals/) to the end, telling their progress."""
    bots = json.loads(db.setting("finals_bots", "[]"))
    if len(bots) < 2:
        raise FinalsError("no finals field is stored; start the finals from the admin page")
    tournament = config_from_data(finals_data(config, bots), base=config.directory, source="the finals")
    if tournament.remote is not None:
        # A presence file makes it a contest's listener: its remote bots get no bye, and play the ladder after.
        presence = str(config.directory / "remote" / "finals-connected.json")
        tournament = dataclasses.replace(tournament, remote=dataclasses.replace(tournament.remote, presence=presence))
    coordinator = Coordinator(tournament, RunOptions(out=finals_dir(config), resume=True, quiet=True))
    ended = threading.Event()
    watcher = threading.Thread(target=_tell_progress, args=(coordinator, ended), name="arena-finals-progress",
                               daemon=True)
    watcher.start()
    try:
        coordinator.run()
    finally:
        ended.set()
        coordinator.close()
    from arena.viewer.report import write_report

    out = finals_dir(config)
    write_report(out, out / "report.html", source="")  # served to anyone: no host path


def _tell_progress(coordinator: Coordinator, ended: threading.Event) -> None:
    """Tell the finals' progress at every tenth of their games (looked at each second) until they end."""
    told = len(coordinator.done)
    while not ended.wait(1.0):
        played, total = len(coordinator.done), max(coordinator.plan.total(), len(coordinator.schedule))
        step = max(1, total // PROGRESS_SHARE)
        if played // step > told // step and played < total:
            tell("finals", "%d of %d games played", played, total, played=played, total=total)
            told = played


def finals_progress(config: ServerConfig) -> tuple[int, int]:
    """(games played, games planned) of the finals as their directory holds them; (0, 0) before they start."""
    path = finals_dir(config) / STORE_NAME
    if not path.is_file():
        return 0, 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            played = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
            total = db.execute("SELECT value FROM meta WHERE key = 'total'").fetchone()
    except sqlite3.Error:
        return 0, 0
    return int(played), int(json.loads(total[0])) if total else 0


def finals_standings(config: ServerConfig) -> list[dict[str, Any]]:
    """The finals' final order (place, entrant, points, games, wins, draws, losses, failures), once written."""
    try:
        data = json.loads((finals_dir(config) / "standings.json").read_text())
    except (OSError, ValueError):
        return []
    keys = ("place", "name", "points", "games", "wins", "draws", "losses", "failures")
    return [{key: bot.get(key) for key in keys} for bot in data.get("bots", []) if isinstance(bot, dict)]


def finals_summary(config: ServerConfig, db: Database) -> dict[str, Any]:
    """The finals as the admin page and the export show them: state, format, field, progress, results."""
    state = db.setting("finals") or "none"
    data: dict[str, Any] = {"state": state, "format": config.finals_format,
                            "games_per_pairing": config.finals_games}
    field = [bot.get("name") for bot in json.loads(db.setting("finals_bots", "[]") or "[]")]
    if state != "none" and field:
        data["entrants"] = field
    if state != "none":
        data["played"], data["total"] = finals_progress(config)
    if state == "failed":
        data["error"] = db.setting("finals_error")
    if state == "done":
        data["standings"] = finals_standings(config)
        data["report"] = "/finals/"
    return data


def podium(standings: list[dict[str, Any]], count: int = 3) -> str:
    """The first places in one line: `1. carol 6.0, 2. bob 4.0, 3. alice 2.0`."""
    return ", ".join(f"{row['place']}. {row['name']} {row['points']}" for row in standings[:count])
