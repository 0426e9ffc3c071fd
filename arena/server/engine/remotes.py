"""Remote entrants: bots that play the ladder from their own machines, over TCP with CURVE (protocol/SPEC.md §13).

An entrant registers a public key; it becomes a version of language "remote" (no build), whose
bot is `remote:sID` (ID: the submission's id) on the listener of the ladder's one worker
(arena/match/listener.py). The server writes each registered key as `remote/keys/sID.key`; the
listener reads that folder when an unknown key knocks, and rewrites `remote/connected.json`
(the names of the keys connected) whenever one connects or goes. The ladder reads that file
to schedule a remote version only while its bot is connected, and plays its validation games
itself (the listener is in its worker, so the intake's own tournaments cannot seat it).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from arena.match.remote import RemoteSettings
from arena.outcomes import FAILURES
from arena.server.engine.draws import draw_secret, game_seed, validation_setups
from arena.server.engine.intake import QuotaError, check_quota, seat_name, submission_dir
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, Row, Status, now
from arena.server.state.eventlog import tell
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.worker import MatchRecord
from protocol.keys import Z85_KEY, KeyFileError, new_key_pair, read_key_file

LANGUAGE = "remote"
SERVER_KEY = "server"  # remote/server.key and remote/server.key_secret: the listener's own pair
VALIDATION_ORD = -1_000_000  # validation tasks' ords lie below this: never a game's id


class RemoteRefused(ValueError):
    """A key the server does not take (remote entrants not allowed, or not a key); one line."""


def folder(config: ServerConfig) -> Path:
    """The server's remote folder: its key pair, the entrants' public keys, the presence file."""
    return config.directory / "remote"


def server_key(config: ServerConfig) -> Path:
    """The listener's secret key file, made on first use (0600, in a 0700 folder)."""
    base = folder(config)
    secret = base / f"{SERVER_KEY}.key_secret"
    if not secret.exists():
        (base / "keys").mkdir(parents=True, exist_ok=True)
        os.chmod(base, 0o700)
        new_key_pair(SERVER_KEY, base)
    return secret


def server_public(config: ServerConfig) -> str:
    """The server's public key (Z85), which remote bots pass as --server-key."""
    public, _ = read_key_file(server_key(config))
    return public.decode()


def settings(config: ServerConfig) -> RemoteSettings:
    """The ladder worker's listener: the [remote] table, the server's key, the entrants' keys folder."""
    base = folder(config)
    return RemoteSettings(config.remote.listen, (), str(server_key(config)),
                          network_grace_ms=config.remote.network_grace_ms, key_dir=str(base / "keys"),
                          presence=str(base / "connected.json"))


def check_listen(endpoint: str) -> str:
    """Why remote bots could not connect at endpoint (tcp://ADDR:PORT), in one line; "" when it can be bound."""
    host, _, port = endpoint[len("tcp://"):].rpartition(":")
    host = host.strip("[]")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host if host != "*" else "", int(port)))
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"[remote] listen = {endpoint!r}: remote bots cannot connect there: {reason}"
    return ""


def connected(config: ServerConfig) -> set[str]:
    """The names of the remote keys connected now (none when the listener has not said)."""
    try:
        data = json.loads((folder(config) / "connected.json").read_text())
    except (OSError, ValueError):
        return set()
    return {str(name) for name in data.get("connected", [])} if isinstance(data, dict) else set()


def parse_key(text: str) -> str:
    """The Z85 public key in text (a NAME.key file's content, or the 40 characters); RemoteRefused if none."""
    text = text.strip()
    if Z85_KEY.fullmatch(text.encode()):
        return text
    found = re.findall(r'public-key\s*=\s*"([^"]*)"', text)
    if len(found) == 1 and Z85_KEY.fullmatch(found[0].encode()):
        return found[0]
    if "secret-key" in text:
        raise RemoteRefused("that is a secret key file: send NAME.key (the public one), never NAME.key_secret")
    raise RemoteRefused("not a public key: send the content of NAME.key (arena keys new NAME) or its 40-character "
                        "Z85 public-key")


def accept_key(config: ServerConfig, db: Database, entrant: Row, text: str) -> int:
    """Register a remote version of entrant with this public key; the new submission's id."""
    if not config.remote.allowed:
        raise RemoteRefused("this contest takes no remote bots ([remote] allowed = false)")
    key = parse_key(text)
    check_quota(config, db, entrant)
    server_key(config)  # the keys folder exists
    with db.transaction() as tx:  # BEGIN IMMEDIATE: two registrations of one key are checked one after the other
        owner = key_owner(config, tx, key)
        if owner == 0:
            raise RemoteRefused("that is the server's own key: send yours (arena keys new NAME, then NAME.key)")
        if owner is not None and owner != entrant.id:
            # Else the other entrant's bot, connecting with its own key, would play as this entrant's version.
            raise RemoteRefused("that key is another entrant's: make your own (arena keys new NAME)")
        version = tx.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM submissions WHERE entrant = ?",
                             (entrant.id,)).fetchone()[0]
        if version > config.uploads.versions_per_entrant:
            raise QuotaError(f"at most {config.uploads.versions_per_entrant} versions per entrant")
        stamp = now()
        number = int(tx.execute(
            "INSERT INTO submissions (entrant, version, filename, language, status, detail, created, updated) "
            "VALUES (?, ?, 'remote.key', ?, ?, 'waiting for its bot to connect', ?, ?)",
            (entrant.id, version, LANGUAGE, Status.QUEUED, stamp, stamp)).lastrowid)
        upload = submission_dir(config, entrant.name, version) / "upload"
        shutil.rmtree(upload.parent, ignore_errors=True)  # a leftover of a write that never committed
        upload.mkdir(parents=True)
        certificate = f'metadata\ncurve\n    public-key = "{key}"\n'
        (upload / "remote.key").write_text(certificate)
        keys = folder(config) / "keys"
        spare = keys / f".{seat_name(number)}.new"
        spare.write_text(certificate)
        os.replace(spare, keys / f"{seat_name(number)}.key")  # whole, or not at all: the listener reads the folder
    tell("upload", "%s v%d: a remote bot's key received as submission %d, waiting for its bot to connect", entrant.name,
         version, number, entrant=entrant.name, version=version, submission=number, language=LANGUAGE)
    return number


def key_owner(config: ServerConfig, tx: sqlite3.Connection, key: str) -> int | None:
    """The id of the entrant who registered this public key (0: the server's own), or None."""
    base = folder(config)
    if read_key_file(base / f"{SERVER_KEY}.key")[0].decode() == key:
        return 0
    for file in (base / "keys").glob("s*.key"):
        try:
            public, _ = read_key_file(file)
        except KeyFileError:
            continue
        if public.decode() == key and file.stem[1:].isdigit():
            row = tx.execute("SELECT entrant FROM submissions WHERE id = ?", (int(file.stem[1:]),)).fetchone()
            if row is not None:
                return int(row[0])
    return None


@dataclass
class Validation:
    """One remote version's validation games, played by the ladder."""

    row: Row
    tasks: dict[int, tuple[str, int]] = field(default_factory=dict)  # ord -> (opponent, seat of the version)
    lines: list[str] = field(default_factory=list)
    failed: Counter[str] = field(default_factory=Counter)
    broken: str = ""  # the machine failed a game: the validation is tried again later


def validation_tasks(config: ServerConfig, db: Database, row: Row, slot_of: dict[int, int],
                     first_ord: int) -> tuple[Validation, list[MatchTask]]:
    """The validation games of a remote version against every house bot, both seats, as the intake plays them."""
    secret = draw_secret(db)
    setups = validation_setups(config, secret, row.id, config.ladder.validation_games // 2)
    house = db.rows("SELECT s.id, s.filename FROM submissions s JOIN entrants e ON e.id = s.entrant "
                    "WHERE e.house = 1 AND s.status = ? ORDER BY s.id", Status.ACTIVE)
    validation, tasks = Validation(row), []
    ord_ = first_ord
    for reference in house:
        if reference.id not in slot_of:
            continue
        for setup in setups:
            for seat in (0, 1):
                pair = [slot_of[row.id], slot_of[reference.id]]
                bots = (pair[0], pair[1]) if seat == 0 else (pair[1], pair[0])
                seed = game_seed(config, secret, "validation", row.id * 10_000 + len(tasks))
                tasks.append(MatchTask(ord=ord_, match=f"val{row.id}-{len(tasks)}", round=0, setup=setup,
                                       seed=seed, bots=bots))
                validation.tasks[ord_] = (reference.filename, seat)
                ord_ -= 1
    return validation, tasks


def record_line(validation: Validation, ord_: int, record: MatchRecord) -> None:
    """One validation game's line of the report (and its failure, when the version's)."""
    opponent, seat = validation.tasks.pop(ord_)
    ranks = record.ranks
    result = "won" if ranks[seat] < ranks[1 - seat] else "lost" if ranks[seat] > ranks[1 - seat] else "drew"
    line = f"game {record.match} vs {opponent} (seat {seat}): {result}, {record.reason}"
    if record.reason in FAILURES and record.offender is not None:
        line += " by this bot" if record.offender == seat else f" by {opponent} (not counted)"
        if record.detail:
            line += f": {record.detail}"
        if record.offender == seat:
            validation.failed[str(record.reason)] += 1
    validation.lines.append(line)


def report(validation: Validation) -> tuple[bool, str]:
    """(passed, the validation report) once every game is in."""
    count = len(validation.lines)
    verdict = (f"PASS: no failure in {count} games" if not validation.failed else
               "FAIL: " + ", ".join(f"{reason} {n}" for reason, n in sorted(validation.failed.items())))
    return not validation.failed and count > 0, "\n".join([*validation.lines, verdict]) + "\n"
