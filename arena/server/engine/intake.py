"""From upload to ladder: store a submission, build it in the sandbox, validate it against the reference bots.

No process of the server's reads what an entrant sent: the upload is checked by its reader
(arena.server.uploads.unpack) in the sandbox, as a bot uid with limits of its own, before it is
stored, and unpacked, built and collected in the sandbox again (arena.launch.build); the
server only stores the file as sent and creates the built folder from the collector's
stream. A version enters the ladder only when its build succeeded and it played its
validation games (both seats against every reference bot, on setups drawn as the ladder draws them,
with the contest's clock and sandbox) without a single failure of its own. A failed build or
validation leaves the entrant's previous version on the ladder. Builds hold a lease: one
left by a killed server is taken up again, a bounded number of times.
"""

from __future__ import annotations

import json
import logging
import os
import shlex
import shutil
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.games import game_module
from arena.launch.builds.build import BuildLimits, python_command, run_build, run_contained
from arena.launch.processes.process import LaunchError, MachineError
from arena.launch.sandbox.sandbox import SandboxError, resolve_sandbox
from arena.outcomes import FAILURES
from arena.server.engine.draws import draw_secret, game_seed, validation_setups
from arena.server.engine.ladder import MU, SIGMA
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, Row, Status, now
from arena.server.state.eventlog import tell
from arena.server.state.layout import add_support, bot_folder, seat_spec, version_folder
from arena.server.uploads.sources import LANGUAGES, SubmissionError, upload_name
from arena.server.uploads.unpack import UploadBounds, arguments
from arena.tournament.plan.config import ConfigError, config_from_data
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.store import StoreError
from arena.tournament.run.coordinator import Coordinator, RunOptions

VALIDATION_LEASE_S = 600.0
# The upload's reader in the sandbox: a bomb meets these long before the server notices it.
CHECK_LIMITS = BuildLimits(timeout_s=10.0, disk_mb=16, memory_mb=256, processes=8)
# Readers run a few at a time: fifty at once on two cores would each pass its time limit waiting
# for a core, and an honest upload would be refused for the machine's load.
_READERS = threading.BoundedSemaphore(max(2, os.cpu_count() or 2))
READER_QUEUE_S = 60.0
_OPEN_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC


class QuotaError(ValueError):
    """An entrant asked for more than the limits allow (too many versions, too many per hour, frozen)."""


def submission_dir(config: ServerConfig, entrant: str, version: int) -> Path:
    """Where a version's upload and built files live."""
    return config.directory / version_folder(entrant, version)


@dataclass(frozen=True)
class Checked:
    """An upload as its reader in the sandbox found it."""

    language: str
    build: str  # a shell command ("": nothing to build)
    run: str  # a BOT spec with {dir} for the built folder


def bounds(config: ServerConfig) -> UploadBounds:
    """The contest's upload limits, for the reader's command line."""
    return UploadBounds(config.uploads.max_bytes, config.uploads.max_files, config.uploads.max_unpacked_bytes)


def game_interfaces(game: str) -> set[str]:
    """The module interfaces a game's folder declares, of those the languages ask for (pascal.py: "pascal")."""
    return {lang.interface for lang in LANGUAGES.values() if lang.interface and game_module(game, lang.interface)}


def check_upload(config: ServerConfig, filename: str, data: bytes) -> Checked:
    """What the upload's reader says of it, run in the sandbox; SubmissionError (with its HTTP status) when refused."""
    name = upload_name(filename)
    if len(data) > config.uploads.max_bytes:
        raise SubmissionError(f"{name}: {len(data)} bytes, over the limit of {config.uploads.max_bytes}", 413)
    reader = python_command("arena.server.uploads.unpack",
                            arguments("check", name, game_interfaces(config.game), bounds(config)))
    busy = SubmissionError("the server cannot check uploads just now; try again in a minute", 503)
    if not _READERS.acquire(timeout=READER_QUEUE_S):
        raise busy
    try:
        ran = run_contained(reader, data, resolve_sandbox(config.tournament.sandbox), CHECK_LIMITS)
    except (MachineError, OSError) as exc:  # the machine's, never the entrant's
        tell("upload", "an upload could not be checked (the machine's fault, answered 503): %s", exc,
             level=logging.WARNING)
        raise busy from None
    finally:
        _READERS.release()
    if ran.timed_out:
        if ran.cpu_ms is not None and ran.cpu_ms < CHECK_LIMITS.timeout_s * 1000 / 2:
            # Out of time while mostly waiting for a core: the machine was busy, nothing is stored.
            tell("upload", "an upload's reader ran out of time having used %.0f ms of CPU (a busy machine, answered "
                 "503)", ran.cpu_ms, level=logging.WARNING)
            raise busy
        raise SubmissionError(f"{name}: reading it takes longer than {CHECK_LIMITS.timeout_s:.0f} s", 413)
    if ran.returncode != 0:
        if ran.limit:
            raise SubmissionError(f"{name}: reading it needs more than the {CHECK_LIMITS.memory_mb} MiB allowed", 413)
        raise SubmissionError(f"{name}: it cannot be read (its reader ended with status {ran.returncode})")
    try:
        answer = json.loads(ran.output.decode("utf-8").strip().splitlines()[-1])
    except (ValueError, IndexError):
        answer = None
    if not isinstance(answer, dict):
        raise SubmissionError(f"{name}: it cannot be read (its reader gave no answer)")
    if "error" in answer:
        status = answer.get("status")
        raise SubmissionError(str(answer["error"]), status if status in (413, 422) else 422)
    fields = [answer.get(key) for key in ("language", "build", "run")]
    if not all(isinstance(value, str) for value in fields):
        raise SubmissionError(f"{name}: it cannot be read (its reader gave a malformed answer)")
    return Checked(*fields)


def accept_upload(config: ServerConfig, db: Database, entrant: Row, filename: str, data: bytes) -> int:
    """Check an upload, store it and queue its build; the new submission's id.

    SubmissionError: the upload itself is unacceptable; QuotaError: the entrant may not submit now.
    """
    try:
        check_quota(config, db, entrant)
        checked = check_upload(config, filename, data)  # refuses before anything is stored
    except (SubmissionError, QuotaError) as exc:
        tell("upload", "%s: %s refused: %s", entrant.name, filename[:100], exc, entrant=entrant.name,
             status=getattr(exc, "status", 403))
        raise
    limits = config.uploads
    name = upload_name(filename)
    with db.transaction() as tx:
        version = tx.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM submissions WHERE entrant = ?",
                             (entrant.id,)).fetchone()[0]
        if version > limits.versions_per_entrant:
            raise QuotaError(f"at most {limits.versions_per_entrant} versions per entrant")
        folder = submission_dir(config, entrant.name, version)
        upload = folder / "upload"
        shutil.rmtree(folder, ignore_errors=True)  # a leftover of a write that never committed
        upload.mkdir(parents=True)
        store(upload / name, data)
        stamp = now()
        number = int(tx.execute(
            "INSERT INTO submissions (entrant, version, filename, language, status, created, updated) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (entrant.id, version, name, checked.language, Status.QUEUED, stamp, stamp)).lastrowid)
    tell("upload", "%s v%d: %s (%s, %d bytes) received as submission %d, queued for its build", entrant.name, version,
         name, checked.language, len(data), number, entrant=entrant.name, version=version, submission=number,
         language=checked.language, bytes=len(data))
    return number


def seat_name(submission: int) -> str:
    """The key name (and remote:NAME) of a remote version (arena/server/engine/remotes.py)."""
    return f"s{submission}"


def remote_spec(config: ServerConfig, row: Row) -> dict[str, str]:
    """The stored spec of a remote version (as a built version's: spec, name, dir)."""
    return {"spec": f"remote:{seat_name(row.id)}", "name": f"{row.entrant_name}-v{row.version}",
            "dir": version_folder(row.entrant_name, row.version)}


def wait_lease(config: ServerConfig) -> float:
    """How long a registered remote version waits for its bot to connect and pass validation."""
    return config.ladder.build_timeout_s * config.ladder.lease_factor + VALIDATION_LEASE_S


def check_quota(config: ServerConfig, db: Database, entrant: Row) -> None:
    """QuotaError when the entrant may not submit now (frozen, or too many this hour)."""
    if db.setting("frozen") == "1":
        raise QuotaError("submissions are closed (the contest is frozen for the finals)")
    hour_ago = now() - 3600
    recent = db.value("SELECT COUNT(*) FROM submissions WHERE entrant = ? AND created > ?", entrant.id, hour_ago)
    if recent >= config.uploads.per_hour:
        raise QuotaError(f"at most {config.uploads.per_hour} submissions per hour; try again later")


def store(path: Path, data: bytes) -> None:
    """Write an upload, as sent, as a new file (never through a link, never over another file)."""
    fd = os.open(path, _OPEN_NEW, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


class Intake:
    """Builds and validates queued submissions, one at a time per intake thread."""

    def __init__(self, config: ServerConfig, db: Database) -> None:
        self.config = config
        self.db = db
        self.isolation = resolve_sandbox(config.tournament.sandbox)

    def claim(self) -> Row | None:
        """The next submission to build (queued, or left mid-way by a dead server), leased to this thread."""
        policy = self.config.ladder
        stamp = now()
        with self.db.transaction() as tx:
            found = tx.execute(
                "SELECT s.*, e.name AS entrant_name FROM submissions s JOIN entrants e ON e.id = s.entrant "
                "WHERE s.status = ? OR (s.status IN (?, ?) AND s.lease_until < ? AND s.language != 'remote') "
                "ORDER BY s.id LIMIT 1", (Status.QUEUED, Status.BUILDING, Status.VALIDATING, stamp)).fetchone()
            if found is None:
                return None
            row = Row(dict(found))
            if row.attempts >= policy.max_attempts:
                tx.execute("UPDATE submissions SET status = ?, detail = ?, updated = ? WHERE id = ?",
                           (Status.FAILED, f"not built: the server failed {row.attempts} times while building it "
                            "(a system fault, not the submission's)", stamp, row.id))
                return None
            lease = stamp + policy.build_timeout_s * policy.lease_factor + VALIDATION_LEASE_S
            tx.execute("UPDATE submissions SET status = ?, attempts = attempts + 1, lease_until = ?, updated = ? "
                       "WHERE id = ?", (Status.BUILDING, lease, stamp, row.id))
        return row

    def process(self, row: Row) -> None:
        """Build and validate one claimed submission; record the outcome."""
        if row.language == "remote":  # no build: the ladder validates it once its bot is connected
            self._wait_for_remote(row)
            return
        read = self._read(row)
        if read is None:
            return
        data, checked = read
        build_log = self._build(row, data, checked)
        if build_log is not None:
            self._validate(row, checked, build_log)

    def _read(self, row: Row) -> tuple[bytes, Checked] | None:
        """The stored upload and what its reader says of it (None: the version failed, or waits for a retry)."""
        folder = submission_dir(self.config, row.entrant_name, row.version)
        try:
            data = (folder / "upload" / row.filename).read_bytes()
            return data, check_upload(self.config, row.filename, data)
        except SubmissionError as exc:
            if exc.status == 503:
                self._retry(row, str(exc))
            else:
                self.finish(row, Status.FAILED, f"the upload cannot be read: {exc}")
        except OSError as exc:
            self.finish(row, Status.FAILED, f"the upload cannot be read: {exc}")
        return None

    def _build(self, row: Row, data: bytes, checked: Checked) -> str | None:
        """Build the version into its bot folder in the sandbox; its build log (None: failed, or tried again later)."""
        limits = BuildLimits(timeout_s=float(self.config.ladder.build_timeout_s),
                             output_files=max(2000, 10 * self.config.uploads.max_files))
        unpack = python_command("arena.server.uploads.unpack",
                                arguments("unpack", row.filename, game_interfaces(self.config.game),
                                          bounds(self.config)))
        bot_dir = self.config.directory / bot_folder(row.entrant_name, row.version)
        shutil.rmtree(bot_dir, ignore_errors=True)  # a leftover of a build the server did not finish
        # The arena's own Python is named `python` in the log: the log names no path of this machine.
        header = f"$ {checked.build.replace(shlex.quote(sys.executable), 'python') or '(nothing to build)'}\n"
        tell("build", "%s: building (%s, submission %d): %s", who(row), checked.language, row.id,
             header[2:].strip(), submission=row.id)
        started = time.monotonic()
        try:
            built = run_build(data, unpack, checked.build or "true", str(bot_dir), self.isolation, limits)
            if built.ok:
                add_support(checked.language, bot_dir)
        except (MachineError, OSError) as exc:  # the machine's fault: try again later
            shutil.rmtree(bot_dir, ignore_errors=True)
            self._retry(row, f"the build could not run: {exc}")
            return None
        took = time.monotonic() - started
        if not built.ok:
            why = (f"it ran longer than the limit of {int(limits.timeout_s)} s" if built.timed_out else
                   f"its result was larger than {limits.output_mb} MiB or {limits.output_files} files"
                   if built.too_big else built.problem or f"the command exited with status {built.returncode}")
            self.finish(row, Status.FAILED, f"build failed: {why}", build_log=header + built.log)
            return None
        tell("build", "%s: built in %.1f s; validating against %d reference bots", who(row), took,
             len(self.config.tournament.bots), submission=row.id, seconds=round(took, 2))
        return header + built.log + f"\nbuilt in {took:.1f} s\n"

    def _validate(self, row: Row, checked: Checked, build_log: str) -> None:
        """Store the version's command and play its validation games; activate or reject it."""
        name = f"{row.entrant_name}-v{row.version}"
        folder = bot_folder(row.entrant_name, row.version)
        spec = seat_spec(checked.run, folder, name)
        self.db.execute("UPDATE submissions SET status = ?, build_log = ?, spec = ?, updated = ? WHERE id = ?",
                        Status.VALIDATING, build_log, json.dumps(spec), now(), row.id)
        # Validation reads its bots relative to the config's folder, as the reference bots are given there.
        try:
            passed, report = self.validate(row, seat_spec(checked.run, self._from_config(folder), name))
        except (TournamentError, StoreError, MachineError, OSError) as exc:
            self._retry(row, f"validation could not run: {exc}")
            return
        except (ConfigError, LaunchError, SandboxError) as exc:
            self.finish(row, Status.REJECTED, f"rejected: the bot cannot be started: {exc}", build_log=build_log,
                         validation_log=str(exc))
            return
        tell("validation", "%s: %s", who(row), report.rstrip().splitlines()[-1], submission=row.id, passed=passed)
        if passed:
            self.activate(row, report)
        else:
            self.finish(row, Status.REJECTED, "rejected: it failed validation games (see the validation log)",
                        build_log=build_log, validation_log=report)

    def _from_config(self, folder: str) -> str:
        """A folder relative to the contest's directory, named relative to the config's folder."""
        return os.path.relpath(self.config.directory / folder, self.config.base)

    def _wait_for_remote(self, row: Row) -> None:
        """A remote version waits (validating) for its bot, within its lease; the ladder plays its validation."""
        if not self.config.remote.allowed:
            self.finish(row, Status.FAILED, "not validated: this contest takes no remote bots any more")
            return
        self.db.execute("UPDATE submissions SET status = ?, spec = ?, detail = ?, lease_until = ?, updated = ? "
                        "WHERE id = ?", Status.VALIDATING, json.dumps(remote_spec(self.config, row)),
                        "validating: waiting for its bot to connect", now() + wait_lease(self.config), now(), row.id)

    def validate(self, row: Row, spec: dict[str, Any]) -> tuple[bool, str]:
        """Play the validation games; (passed, report)."""
        tournament = self.config.tournament
        name = spec["name"]
        references = [{"spec": b.spec.text, "name": f"{b.name} (reference)" if b.name == name else b.name,
                       "options": b.spec.options} for b in tournament.bots]
        # Setups and seeds drawn as for the ladder (arena/server/engine/draws.py): validation looks like any game.
        secret = draw_secret(self.db)
        setups = validation_setups(self.config, secret, row.id, self.config.ladder.validation_games // 2)
        data = {"name": f"validate-{row.id}", "game": tournament.game,
                "seed": game_seed(self.config, secret, "validation", row.id), "players": 2, "games_per_pairing": 2,
                "setups": {"maps": [tournament.setups[i].setup for i in setups]}, "clock": clock_data(self.config),
                "limits": limits_data(self.config), "sandbox": str(tournament.sandbox),
                "strikes": {"max_strikes": 0}, "format": "gauntlet", "challengers": [name],
                "reveal_names": tournament.reveal_names,
                "bots": [spec, *references], "concurrency": 1}
        config = config_from_data(data, base=self.config.base, source=f"validation of {name}")
        out = self.config.directory / "validation" / str(row.id)
        shutil.rmtree(out, ignore_errors=True)
        coordinator = Coordinator(config, RunOptions(out=out, quiet=True))
        try:
            coordinator.run()
            records = coordinator.store.records("ord")
        finally:
            coordinator.close()
        lines = []
        failed = Counter[str]()
        for record in records:
            seat = record.bots.index(0)
            opponent = record.names[1 - seat]
            result = ("won" if record.ranks[seat] < record.ranks[1 - seat] else
                      "lost" if record.ranks[seat] > record.ranks[1 - seat] else "drew")
            line = f"game {record.match} vs {opponent} (seat {seat}): {result}, {record.reason}"
            if record.reason in FAILURES and record.offender is not None:
                culprit = "this bot" if record.offender == seat else f"{opponent} (not counted)"
                line += f" by {culprit}"
                if record.detail:
                    line += f": {record.detail}"
                if record.offender == seat:
                    failed[str(record.reason)] += 1
            lines.append(line)
        verdict = (f"PASS: no failure in {len(records)} games" if not failed else
                   "FAIL: " + ", ".join(f"{reason} {count}" for reason, count in sorted(failed.items())))
        return not failed and bool(records), "\n".join([*lines, verdict]) + "\n"

    def activate(self, row: Row, report: str) -> None:
        """The version enters the ladder; the entrant's previous version leaves it (keeping its history)."""
        stamp = now()
        with self.db.transaction() as tx:
            if tx.execute("SELECT disabled FROM entrants WHERE id = ?", (row.entrant,)).fetchone()[0]:
                tx.execute("UPDATE submissions SET status = ?, detail = ?, validation_log = ?, updated = ? "
                           "WHERE id = ?", (Status.DISABLED, "disqualified by the admin", report, stamp, row.id))
                tell("version", "%s: disabled (its entrant is disqualified)", who(row), submission=row.id,
                     status=Status.DISABLED)
                return
            previous = tx.execute("SELECT id, mu FROM submissions WHERE entrant = ? AND status = ? AND id != ?",
                                  (row.entrant, Status.ACTIVE, row.id)).fetchall()
            mu = previous[-1]["mu"] if previous else MU  # a new version inherits the old mean, not its certainty
            for old in previous:
                tx.execute("UPDATE submissions SET status = ?, detail = ?, updated = ? WHERE id = ?",
                           (Status.RETIRED, f"replaced by version {row.version}", stamp, old["id"]))
            tx.execute("UPDATE submissions SET status = ?, detail = ?, validation_log = ?, mu = ?, start_mu = ?, "
                       "sigma = ?, placement_left = ?, updated = ?, lease_until = 0 WHERE id = ?",
                       (Status.ACTIVE, "on the ladder", report, mu, mu, SIGMA, self.config.ladder.placement_games,
                        stamp, row.id))
        replaced = f" (replaces {', '.join(f'submission {old[0]}' for old in previous)})" if previous else ""
        tell("version", "%s: active, on the ladder%s", who(row), replaced, submission=row.id, status=Status.ACTIVE)

    def finish(self, row: Row, status: Status, detail: str, build_log: str | None = None,
                validation_log: str | None = None) -> None:
        """Leave a submission in a final state (failed, rejected), with its detail and logs."""
        sets = ["status = ?", "detail = ?", "updated = ?", "lease_until = 0"]
        values: list[Any] = [status, detail, now()]
        if build_log is not None:
            sets.append("build_log = ?")
            values.append(build_log)
        if validation_log is not None:
            sets.append("validation_log = ?")
            values.append(validation_log)
        self.db.execute(f"UPDATE submissions SET {', '.join(sets)} WHERE id = ?", *values, row.id)
        tell("version", "%s: %s: %s", who(row), status, detail, submission=row.id, status=status)

    def _retry(self, row: Row, problem: str) -> None:
        """A system fault: back to the queue (the attempts count stops it eventually)."""
        tell("build", "%s (submission %d) is tried again later: %s", who(row), row.id, problem, level=logging.WARNING,
             submission=row.id)
        self.db.execute("UPDATE submissions SET status = ?, detail = ?, lease_until = 0, updated = ? WHERE id = ?",
                        Status.QUEUED, f"waiting to be tried again: {problem}", now(), row.id)


def who(row: Row) -> str:
    """A version as the events name it: `alice v2`."""
    return f"{row.entrant_name} v{row.version}"


def clock_data(config: ServerConfig) -> dict[str, Any]:
    """The contest's clock as config keys."""
    return {key: value for key, value in config.tournament.clock.to_data().items() if value is not None}


def limits_data(config: ServerConfig) -> dict[str, Any]:
    """The contest's limits as config keys (None lifts a limit: false)."""
    limits = config.tournament.limits
    return {key: (False if value is None else value) for key, value in vars(limits).items()}


def conditions(config: ServerConfig, setup: int) -> str:
    """What a game is played under (its setup and clock), stored with it for `arena verify`."""
    return json.dumps({"setup": config.tournament.setups[setup].setup, "clock": config.tournament.clock.to_data()})


def house_spec(name: str, spec_text: str, options: dict[str, Any]) -> str:
    """The stored spec of a reference bot on the ladder."""
    return json.dumps({"spec": spec_text, "name": name, "options": options})
