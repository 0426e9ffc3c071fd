"""The finals: each entrant's latest active version, frozen, in a tournament of the results-directory kind.

The field is fixed when the admin starts the finals (stored, so a restarted server resumes
the very same tournament); the games run through the tournament coordinator into
`finals/`, with standings, reports and signed logs, checkable by `arena verify`.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from pathlib import Path
from typing import Any

from arena.server.config import ServerConfig
from arena.server.db import Database, Status
from arena.server.intake import clock_data, limits_data
from arena.tournament.plan.config import config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions


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


def finals_data(config: ServerConfig, bots: list[dict[str, Any]]) -> dict[str, Any]:
    """The tournament config of the finals."""
    tournament = config.tournament
    return {"name": f"{tournament.name}-finals", "game": tournament.game, "seed": tournament.seed,
            "players": 2, "games_per_pairing": config.finals_games, "format": config.finals_format,
            "setups": {"maps": [s.setup for s in tournament.setups]}, "clock": clock_data(config),
            "limits": limits_data(config), "sandbox": str(tournament.sandbox), "bots": bots,
            "concurrency": config.workers, "reveal_names": tournament.reveal_names, **remote_table(config, bots)}


def remote_table(config: ServerConfig, bots: list[dict[str, Any]]) -> dict[str, Any]:
    """The finals' [remote] table when remote entrants play them (their keys allowed), else nothing."""
    from arena.server.remotes import folder, server_key

    names = [bot["spec"][len("remote:"):] for bot in bots if str(bot.get("spec", "")).startswith("remote:")]
    if not names:
        return {}
    keys = folder(config) / "keys"
    return {"remote": {"listen": config.remote.listen, "allow": [str(keys / f"{name}.key") for name in names],
                       "server_key": str(server_key(config)), "network_grace_ms": config.remote.network_grace_ms}}


def run_finals(config: ServerConfig, db: Database, stop: threading.Event) -> None:
    """Play the finals (resuming what is already in finals/) to the end."""
    bots = json.loads(db.setting("finals_bots", "[]"))
    if len(bots) < 2:
        raise FinalsError("no finals field is stored; start the finals from the admin page")
    tournament = config_from_data(finals_data(config, bots), base=config.directory, source="the finals")
    if tournament.remote is not None:
        # A presence file makes it a contest's listener: its remote bots get no bye, and play the ladder after.
        presence = str(config.directory / "remote" / "finals-connected.json")
        tournament = dataclasses.replace(tournament, remote=dataclasses.replace(tournament.remote, presence=presence))
    coordinator = Coordinator(tournament, RunOptions(out=finals_dir(config), resume=True, quiet=True))
    try:
        coordinator.run()
    finally:
        coordinator.close()
    from arena.viewer.report import write_report

    out = finals_dir(config)
    write_report(out, out / "report.html", source="")  # served to anyone: no host path
