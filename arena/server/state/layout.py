"""A contest directory that can move: what it stores names its files relative to itself.

A version's command names its folder as `submissions/NAME/vN/bot`, read relative to the
contest's directory (a reference bot's, as the config gives it, relative to the config's
folder); a game's log is `logs/gN.msgpack` under `ladder/`; a JavaScript version carries the
SDK's shim in its own folder. So the signed logs, the finals' and validations' results and
the database name no absolute path, and a backup restored into any fresh directory, on
this machine or another, serves and verifies as it did.

A directory of the first layout (its versions' commands named absolute paths) is migrated
on its first start, wherever it now lies: each command is rewritten relative to the
directory (the old folder is read from the version's own stored `dir`), and each game
played before keeps, with its conditions, the commands its log recorded (`bots`), against
which `arena verify` checks that log. Logs are signed and stay as they were written.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, Row
from arena.server.state.eventlog import tell
from arena.server.uploads.sources import LANGUAGES, Language
from arena.tournament.plan.config import BotEntry, bot_entries

LAYOUT = "2"  # the `layout` setting: 2, names relative to the directory (absent: the first layout, absolute paths)
REFERENCE = "reference"  # the language of the house's versions (the config's reference bots)
REMOTE = "remote"
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


def version_folder(entrant: str, version: int) -> str:
    """A version's folder (its upload, its built bot), relative to the contest's directory."""
    return f"submissions/{entrant}/v{version}"


def bot_folder(entrant: str, version: int) -> str:
    """A version's built folder, relative to the contest's directory."""
    return f"{version_folder(entrant, version)}/bot"


def seat_spec(run: str, folder: str, name: str) -> dict[str, str]:
    """A version's stored spec: its command with `{dir}` as folder (relative), its name, its folder."""
    return {"spec": run.replace("{dir}", folder), "name": name, "dir": folder}


def language_named(name: str) -> Language | None:
    """The single-file language of this name (python, javascript, ...), or None (archive, remote, reference)."""
    return next((lang for lang in LANGUAGES.values() if lang.name == name), None)


def add_support(language: str, bot_dir: Path) -> None:
    """Put the arena's files a language runs with (the JavaScript shim) into a version's built folder."""
    found = language_named(language)
    for name, source in found.support if found else ():
        data = Path(source).read_bytes()
        target = bot_dir / name
        target.unlink(missing_ok=True)
        fd = os.open(target, _NEW_FILE, 0o644)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(target, 0o644)


def version_entries(config: ServerConfig, rows: list[Row]) -> tuple[BotEntry, ...]:
    """The bots of these versions for the ladder's workers, each command read relative to where it was written."""
    entries: list[BotEntry] = []
    for row in rows:
        base = config.base if row.language == REFERENCE else config.directory
        entries += bot_entries([json.loads(row.spec)], config.game, base=base, source="the ladder")
    return tuple(entries)


def relative_spec(row: Row, stored: dict[str, Any]) -> dict[str, Any]:
    """A version's spec of the first layout with its folder named relative to the directory (else as it is)."""
    old = str(stored.get("dir", ""))
    if not os.path.isabs(old):
        return stored
    folder = version_folder(row.entrant_name, row.version) + ("" if row.language == REMOTE else "/bot")
    language = language_named(row.language)
    if language is not None and language.support:  # its command named the arena's own copy: now the folder's
        text = language.run.replace("{file}", row.filename).replace("{dir}", folder)
    else:
        text = str(stored.get("spec", "")).replace(old, folder)
    return {**stored, "spec": text, "dir": folder}


def migrate(config: ServerConfig, db: Database) -> None:
    """Bring a directory of the first layout to this one, once (a no-op afterwards); say what changed."""
    if db.setting("layout") == LAYOUT:
        return
    rows = db.rows("SELECT s.id, s.version, s.language, s.filename, s.spec, e.name AS entrant_name FROM submissions s "
                   "JOIN entrants e ON e.id = s.entrant WHERE e.house = 0 AND s.spec != ''")
    changed: dict[int, tuple[dict[str, Any], dict[str, Any]]] = {}
    for row in rows:
        stored = json.loads(row.spec)
        new = relative_spec(row, stored)
        if new != stored:
            changed[row.id] = (stored, new)
            bot_dir = config.directory / new["dir"]
            if bot_dir.is_dir():
                add_support(row.language, bot_dir)
    with db.transaction() as tx:
        games = _keep_logged_commands(tx, changed)
        for number, (_, new) in changed.items():
            tx.execute("UPDATE submissions SET spec = ? WHERE id = ?", (json.dumps(new), number))
        tx.execute("INSERT INTO settings (key, value) VALUES ('layout', ?) "
                   "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (LAYOUT,))
    if changed:
        tell("layout", "migrated: %d versions' commands name their folders relative to the directory; %d games "
             "played before keep the commands their logs recorded", len(changed), games,
             versions=len(changed), games=games)


def _keep_logged_commands(tx: sqlite3.Connection, changed: dict[int, tuple[dict[str, Any], dict[str, Any]]]) -> int:
    """Each game with a log of a changed version keeps both seats' commands as played (conditions.bots)."""
    if not changed:
        return 0
    texts = {number: json.loads(spec or "{}").get("spec", "") for number, spec in
             tx.execute("SELECT id, spec FROM submissions").fetchall()}
    texts |= {number: old.get("spec", "") for number, (old, _) in changed.items()}
    games = tx.execute("SELECT id, a, b, conditions FROM games WHERE log != ''").fetchall()
    count = 0
    for number, a, b, conditions in games:
        if a not in changed and b not in changed:
            continue
        data = json.loads(conditions or "{}")
        data.setdefault("bots", [texts.get(a, ""), texts.get(b, "")])
        tx.execute("UPDATE games SET conditions = ? WHERE id = ?", (json.dumps(data), number))
        count += 1
    return count
