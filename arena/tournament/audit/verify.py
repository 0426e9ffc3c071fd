"""`arena verify DIR`: check a tournament's results directory as a whole.

Each file is checked against the others: the store holds this tournament's metadata and
exactly one row per scheduled match (the schedule is rebuilt from the stored config, as
the coordinator builds it); every played row's log exists, carries a valid signature under
DIR/log.key, re-simulates, and says what the row says; every forfeit follows from the
strikes recorded before it; standings.json, standings.md and matches.csv are what the
store's rows give when scored again with the coordinator's own code. Every disagreement is one
line naming the file or the match; nothing is repaired.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import os
import sys
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

from tqdm import tqdm  # type: ignore[import-untyped]

from arena.games import GameError, UnknownGame, get_game
from arena.logs.matchlog import MAX_LOG_BYTES, LogError, parse_log
from arena.logs.replay import verify as resimulate
from arena.logs.signing import KEY_FILE, KeyFileError, check_signature, results_key
from arena.outcomes import FORFEIT
from arena.tournament.audit.findings import Report
from arena.tournament.plan.config import StrikeRule
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.results.formats import plan_of
from arena.tournament.results.report import (
    MATCHES_CSV,
    STANDINGS_JSON,
    STANDINGS_MD,
    markdown,
    matches_header,
    matches_rows,
)
from arena.tournament.results.series import unplayed_problems
from arena.tournament.results.standings import compute, standings_data
from arena.tournament.results.store import SCHEMA_VERSION, STORE_NAME, TRIGGERS, ResultsStore, StoreError
from arena.tournament.results.strikes import StrikeBook, forfeit_record
from arena.tournament.run.dirlock import in_use_note
from arena.tournament.stats.sprt import SprtSettingsError, sprt_settings
from arena.tournament.workers.worker import LOG_SUFFIX, MatchRecord

CONFIG_KEYS = ("name", "game", "game_version", "players", "bots", "setups", "games_per_pairing", "seed", "clock",
               "strikes")
PARALLEL_FROM = 200  # logs; below this a process pool costs more than it saves
MAX_JSON_DIFFERENCES = 8  # standings.json differences shown; one edit changes many derived values
SEAT_GROUPS = {"bot": "bots", "score": "scores", "rank": "ranks", "time_ms": "times (ms)"}


class NotResults(Exception):
    """DIR is not a tournament results directory at all (or its store cannot be opened)."""


@dataclass(frozen=True)
class LogJob:
    """One played row's log to check, with what the row and the config say it holds (picklable)."""

    path: str
    shown: str  # how problem lines name the file
    key: bytes | None
    signed: bool  # check the signature (False: the directory's key is missing or unusable)
    match: str
    seed: int
    game: str
    setup: Any
    clock: Any
    names: tuple[str, ...]
    specs: tuple[str, ...]
    scores: tuple[float, ...]
    ranks: tuple[int, ...]
    reason: str
    offender: int | None
    plies: int
    detail: str


def config_fingerprint(config: dict[str, Any]) -> str:
    """The fingerprint of stored config data, computed as TournamentConfig.fingerprint does."""
    data = dict(config)
    data.pop("name", None)
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


def check_log(job: LogJob) -> tuple[bool, list[str]]:
    """(whether the file could be read, problem lines) for one played row's log."""
    path = Path(job.path)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            return True, [f"{job.shown}: larger than {MAX_LOG_BYTES >> 20} MiB (not a log the referee wrote)"]
        data = path.read_bytes()
    except FileNotFoundError:
        return False, [f"{job.shown}: missing (the row of match {job.match} says it was played)"]
    except OSError as exc:
        return False, [f"{job.shown}: cannot read: {exc.strerror}"]
    problems = []
    if job.signed:
        signature = check_signature(data, job.key)
        if not signature.ok:
            problems.append(f"{job.shown}: signature {signature.status.name}: {signature.detail}")
    try:
        log = parse_log(data, job.shown)
    except LogError as exc:
        return True, [*problems, str(exc)]
    verdict = resimulate(log)
    if not verdict.ok:
        why = verdict.message if verdict.truncated else f"does not re-simulate: {verdict.message}"
        problems.append(f"{job.shown}: {why}")
    return True, problems + _agreement(job, log.header, log.result)


def _agreement(job: LogJob, header: dict[str, Any], result: dict[str, Any] | None) -> list[str]:
    """Where the log's header and result say something else than the row and the config."""
    problems = []

    def differ(what: str, stored: Any, logged: Any) -> None:
        if stored != logged:
            problems.append(f"match {job.match}: {what} {_text(stored)} in the store, {_text(logged)} in its log")

    if header.get("match") != job.match:
        problems.append(f"{job.shown}: the log is of match {header.get('match')!r}, not {job.match}")
    differ("seed", job.seed, header.get("seed"))
    differ("game", job.game, header.get("game"))
    differ("setup", _plain(job.setup), _plain(header.get("setup")))
    differ("clock", _plain(job.clock), _plain(header.get("clock")))
    seats = header.get("seats") if isinstance(header.get("seats"), list) else []
    differ("seat names", list(job.names), [s.get("name") if isinstance(s, dict) else s for s in seats])
    differ("seat bots", list(job.specs), [s.get("bot") if isinstance(s, dict) else None for s in seats])
    if result is None:
        return problems  # the truncation is reported already
    differ("scores", [float(s) for s in job.scores], _floats(result.get("scores")))
    differ("ranks", list(job.ranks), list(result.get("ranks") or []))
    differ("reason", job.reason, result.get("reason"))
    differ("offender", job.offender, result.get("offender"))
    differ("plies", job.plies, result.get("plies"))
    differ("detail", job.detail, result.get("detail", ""))
    return problems


def _floats(values: Any) -> Any:
    try:
        return [float(v) for v in values]
    except (TypeError, ValueError):
        return values


def _plain(value: Any) -> Any:
    """value as JSON data (msgpack and the store may differ in tuples against lists)."""
    return json.loads(json.dumps(value))


def _text(value: Any) -> str:
    """A value in a problem line: strings bare, lists and maps as JSON (cut at 160 characters)."""
    if isinstance(value, str):
        return value or '""'
    if isinstance(value, (dict, list)):
        text = json.dumps(value)
        return text if len(text) <= 160 else text[:157] + "..."
    return str(value)


def row_shape(record: MatchRecord, players: int, bots: int, setups: int) -> str | None:
    """What is malformed about a row (types and lengths), or None."""
    def ints(values: Any, lo: int, hi: int) -> bool:
        return isinstance(values, list) and len(values) == players and all(
            isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi for v in values)

    def numbers(values: Any, count: int | None = players) -> bool:
        return isinstance(values, list) and (count is None or len(values) == count) and all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)

    checks = (
        ("bots", ints(record.bots, 0, bots - 1)),
        ("names", isinstance(record.names, list) and len(record.names) == players
         and all(isinstance(n, str) for n in record.names)),
        ("scores", numbers(record.scores)),
        ("ranks", ints(record.ranks, 1, players)),
        ("time_used_ms", numbers(record.time_used_ms, None)),
        ("offender", record.offender is None
         or (isinstance(record.offender, int) and 0 <= record.offender < players)),
        ("setup", isinstance(record.setup, int) and 0 <= record.setup < setups),
        ("plies", isinstance(record.plies, int) and record.plies >= 0),
        ("ord, round, seed", all(isinstance(v, int) for v in (record.ord, record.round, record.seed))),
        ("reason, detail, log, worker", all(isinstance(v, str) for v in (record.reason, record.detail, record.log,
                                                                          record.worker))),
        ("duration_s", isinstance(record.duration_s, (int, float))),
    )
    bad = [name for name, ok in checks if not ok]
    return f"malformed row: {', '.join(bad)}" if bad else None


class _Verifier:
    """The checks of one directory, collecting problem lines into a Report."""

    def __init__(self, directory: Path, jobs: int | None) -> None:
        self.dir = directory
        self.jobs = jobs
        self.report = Report(directory)
        self.problem = self.report.problems.append

    def run(self) -> Report:
        store = self._open()
        self.report.busy = in_use_note(self.dir)
        try:
            meta = store.meta()
            if not meta:
                raise NotResults(f"{store.path}: holds no tournament (no metadata)")
            config = self._check_meta(store.path, meta)
            missing = [t for t in TRIGGERS if t not in store.triggers()]
            if missing:
                self.problem(f"{store.path}: the append-only triggers {', '.join(missing)} are gone "
                             "(rows may have been edited)")
            if config is None:
                return self.report
            ordered, written = store.records("ord"), store.records("rowid")
        except StoreError as exc:
            raise NotResults(str(exc)) from None
        finally:
            store.close()
        self._check_rows(meta, config, ordered, written)
        return self.report

    def _open(self) -> ResultsStore:
        if not self.dir.is_dir():
            raise NotResults(f"{self.dir}: " + ("not a directory" if self.dir.exists() else "no such directory"))
        path = self.dir / STORE_NAME
        if not path.exists():
            raise NotResults(f"{self.dir}: not a tournament results directory (no {STORE_NAME})")
        try:
            return ResultsStore(path, create=False)
        except StoreError as exc:
            raise NotResults(str(exc)) from None

    def _check_meta(self, path: Path, meta: dict[str, Any]) -> dict[str, Any] | None:
        """The stored config when it can be used to rebuild the schedule (else None, with problems)."""
        if meta.get("schema") != SCHEMA_VERSION:
            self.problem(f"{path}: schema {meta.get('schema')!r}, this arena reads {SCHEMA_VERSION}")
        config = meta.get("config")
        if not isinstance(config, dict):
            self.problem(f"{path}: no tournament config in the metadata")
            return None
        lacking = [key for key in CONFIG_KEYS if key not in config]
        if lacking:
            self.problem(f"{path}: the stored config has no {', '.join(lacking)}")
            return None
        if meta.get("fingerprint") != config_fingerprint(config):
            self.problem(f"{path}: the stored config does not match its fingerprint (the config was edited)")
        try:
            game = get_game(config["game"])
            names = [bot["name"] for bot in config["bots"]]
            planned = plan_of(config).total()
            if not all(isinstance(s, dict) and isinstance(s.get("setup"), dict) for s in config["setups"]):
                raise ValueError("a setup without its map")
            StrikeRule(int(config["strikes"]["max_strikes"]), tuple(config["strikes"]["reasons"]))
        except (UnknownGame, ValueError, TypeError, KeyError) as exc:
            self.problem(f"{path}: the stored config cannot be used: {exc}")
            return None
        if len(set(names)) != len(names):
            self.problem(f"{path}: the stored config names two bots alike")
        if config["game_version"] != game.version:
            self.problem(f"{path}: results of {game.name} version {config['game_version']}, this arena has version "
                         f"{game.version} (its logs will not re-simulate)")
        if meta.get("total") != planned:
            self.problem(f"{path}: total {meta.get('total')!r}, but the stored config plans "
                         f"{planned} matches")
        return config

    def _check_rows(self, meta: dict[str, Any], config: dict[str, Any], ordered: list[MatchRecord],
                    written: list[MatchRecord]) -> None:
        # Knockout and Swiss rounds follow from the rows themselves: a forged result would pair other
        # bots next, and the rows of those pairings would then be "not scheduled".
        plan = plan_of(config)
        schedule = {task.match: task for task in plan.tasks({r.match: r for r in ordered})}
        self.report.matches = len(ordered)
        counts = Counter(r.match for r in ordered)
        malformed = self._check_shapes(config, ordered, counts, schedule)
        self.report.scheduled = len(schedule)
        self._check_unplayed(config, written, [(m, (t.setup, t.round)) for m, t in schedule.items() if m not in counts])
        jobs = self._log_jobs(config, ordered, schedule, malformed)
        self._check_forfeits(config, schedule, [r for r in written if r.match not in malformed])
        for readable, problems in self._run_jobs(jobs):
            self.report.logs += readable
            self.report.problems += problems
        self._check_stray_logs(counts, schedule)
        if malformed:
            self.problem(f"{self.dir}: reports not compared: the store holds malformed rows")
            return
        self._check_reports(meta, int(config["players"]), ordered, written)

    def _check_shapes(self, config: dict[str, Any], ordered: list[MatchRecord], counts: Counter[str],
                      schedule: dict[str, MatchTask]) -> set[str]:
        """Rows of the wrong shape, twice or not scheduled, each told; the malformed ones' matches."""
        players, bots, setups = int(config["players"]), config["bots"], config["setups"]
        malformed = set()
        for record in ordered:
            shape = row_shape(record, players, len(bots), len(setups))
            if shape:
                self.problem(f"match {record.match}: {shape}")
                malformed.add(record.match)
        for match, count in counts.items():
            if count > 1:
                self.problem(f"match {match}: {count} result rows")
        for match in counts:
            if match not in schedule:
                self.problem(f"match {match}: a result row, but no such match is scheduled")
        return malformed

    def _check_unplayed(self, config: dict[str, Any], written: list[MatchRecord],
                        unplayed: list[tuple[str, tuple[int, int]]]) -> None:
        """The scheduled matches without a row: still to play, or never to be (a series its SPRT stopped)."""
        if config.get("sprt") is not None:  # a series stopped by its SPRT: the rest was never to be played
            try:
                settings = sprt_settings(config["sprt"])
            except (SprtSettingsError, TypeError) as exc:
                self.problem(f"{self.dir}: the stored SPRT settings cannot be used: {exc}")
                settings = None
            if settings is not None:
                self.report.unplayed, self.report.unplayed_why = unplayed_problems(
                    settings, int(config["players"]), written, unplayed)
        else:
            self.report.unplayed = [match for match, _ in unplayed]
        for match in self.report.unplayed:
            if (self.dir / "logs" / f"{match}{LOG_SUFFIX}").exists():
                self.problem(f"match {match}: no result row, but its log exists (a game in flight when the run "
                             "stopped, or a row deleted)")

    def _log_jobs(self, config: dict[str, Any], ordered: list[MatchRecord], schedule: dict[str, MatchTask],
                  malformed: set[str]) -> list[LogJob]:
        """Each well-formed scheduled row checked against its task, and the log of each played one to replay."""
        bots, setups = config["bots"], config["setups"]
        jobs = []
        key, signed = self._key()
        for record in ordered:
            task = schedule.get(record.match)
            if task is None or record.match in malformed:
                continue
            self._check_task(record, task, [bots[b]["name"] for b in task.bots])
            if not record.played:
                continue
            if record.reason == FORFEIT:
                self.problem(f"match {record.match}: reason forfeit, but the row says it was played")
            shown = self.dir / "logs" / f"{record.match}{LOG_SUFFIX}"
            if not record.log:
                self.problem(f"match {record.match}: played, but the row names no log (logs = false?)")
                continue
            if record.log != f"logs/{record.match}{LOG_SUFFIX}":
                self.problem(f"match {record.match}: the row names the log {record.log!r}, "
                             f"not logs/{record.match}{LOG_SUFFIX}")
            jobs.append(LogJob(
                str(shown), str(shown), key, signed, record.match, record.seed, config["game"],
                setups[record.setup]["setup"], config["clock"], tuple(record.names),
                tuple(bots[b]["spec"] for b in record.bots), tuple(record.scores), tuple(record.ranks),
                record.reason, record.offender, record.plies, record.detail))
        return jobs

    def _check_reports(self, meta: dict[str, Any], players: int, ordered: list[MatchRecord],
                       written: list[MatchRecord]) -> None:
        """standings.json, standings.md and matches.csv against the standings the rows give."""
        if self.report.unplayed and not any((self.dir / name).exists() for name in (STANDINGS_JSON, STANDINGS_MD,
                                                                                     MATCHES_CSV)):
            self.report.reports_pending = True  # a run writes them when it ends
            return
        try:
            standings = compute(meta, ordered, written)
        except (KeyError, TypeError, ValueError, IndexError, ZeroDivisionError) as exc:
            self.problem(f"{self.dir}: the stored results cannot be scored ({type(exc).__name__}: {exc})")
            return
        self._check_json(standings_data(standings))
        self._check_markdown(markdown(standings))
        self._check_csv(matches_header(players), matches_rows(standings))

    def _key(self) -> tuple[bytes | None, bool]:
        """The log signing key, and whether signatures can be checked at all."""
        try:
            key = results_key(self.dir)
        except (OSError, KeyFileError) as exc:
            self.problem(f"{self.dir / KEY_FILE}: unusable: {exc}")
            return None, False
        if key is None:
            self.problem(f"{self.dir / KEY_FILE}: missing, so no log's signature can be checked")
            return None, False
        return key, True

    def _check_task(self, record: MatchRecord, task: MatchTask, names: list[str]) -> None:
        """The row's place in the schedule: order, cycle, setup, seed, seats and names."""
        for what, stored, scheduled in (("ord", record.ord, task.ord), ("round", record.round, task.round),
                                        ("setup", record.setup, task.setup), ("seed", record.seed, task.seed),
                                        ("bots", record.bots, list(task.bots)), ("names", record.names, names)):
            if stored != scheduled:
                self.problem(f"match {record.match}: {what} {_text(stored)} in the store, "
                             f"but the schedule says {_text(scheduled)}")

    def _check_forfeits(self, config: dict[str, Any], schedule: dict[str, MatchTask],
                        written: list[MatchRecord]) -> None:
        """Replay the strikes in the order rows were written: every forfeit follows from them."""
        rule = StrikeRule(int(config["strikes"]["max_strikes"]), tuple(config["strikes"]["reasons"]))
        book = StrikeBook(rule, len(config["bots"]))
        game = get_game(config["game"])
        players = int(config["players"])
        for record in written:
            task = schedule.get(record.match)
            if task is not None and not record.played:
                self._check_forfeit(record, task, book, game, config, players)
            book.observe(record)

    def _check_forfeit(self, record: MatchRecord, task: MatchTask, book: StrikeBook, game: Any,
                       config: dict[str, Any], players: int) -> None:
        where = f"match {record.match}: a forfeit"
        if record.reason != FORFEIT:
            self.problem(f"{where} (not played), but its reason is {record.reason}")
        if record.log or (self.dir / "logs" / f"{record.match}{LOG_SUFFIX}").exists():
            self.problem(f"{where}, but it has a log")
        if record.offender is None or record.ranks[record.offender] != players:
            self.problem(f"{where}, but its offender {record.offender} is not ranked last ({record.ranks})")
        seats = book.out_of(task)
        if not seats:
            self.problem(f"{where}, but none of its bots was disqualified when it was recorded")
            return
        try:
            want = forfeit_record(game, config["setups"][task.setup]["setup"], task, list(record.names), seats,
                                  int(config["strikes"]["max_strikes"]))
        except (GameError, KeyError, TypeError, ValueError) as exc:
            self.problem(f"{where} that cannot be scored again: {exc}")
            return
        for what in ("scores", "ranks", "offender", "plies", "detail"):
            stored, expected = getattr(record, what), getattr(want, what)
            if stored != expected:
                self.problem(f"{where}: {what} {_text(stored)} in the store, "
                             f"the strikes rule gives {_text(expected)}")

    def _run_jobs(self, jobs: list[LogJob]) -> Iterable[tuple[bool, list[str]]]:
        workers = self.jobs or min(8, len(os.sched_getaffinity(0)))
        if len(jobs) < PARALLEL_FROM or workers < 2:
            return [check_log(job) for job in jobs]
        # Re-simulation is pure CPU per log: spread it over cores (fork: nothing to import again). On a
        # terminal a bar shows how far it is; a log file gets nothing but the result.
        bar = tqdm(total=len(jobs), unit="log", desc="verify", disable=not sys.stderr.isatty(), leave=False)
        found = []
        with bar, ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            for result in pool.map(check_log, jobs, chunksize=max(1, min(50, len(jobs) // (workers * 4)))):
                found.append(result)
                bar.update(1)
        return found

    def _check_stray_logs(self, counts: Counter[str], schedule: dict[str, MatchTask]) -> None:
        logs = self.dir / "logs"
        if not logs.is_dir():
            return
        for path in sorted(logs.glob(f"*{LOG_SUFFIX}")):
            match = path.name[: -len(LOG_SUFFIX)]
            if match not in schedule and match not in counts:
                self.problem(f"{path}: a log of no scheduled match")

    def _read(self, path: Path) -> str | None:
        """A report's text, or None with the problem said (missing, unreadable)."""
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            self.problem(f"{path}: missing")
        except (OSError, ValueError) as exc:
            self.problem(f"{path}: unreadable: {exc}")
        return None

    def _check_json(self, expected: dict[str, Any]) -> None:
        path = self.dir / STANDINGS_JSON
        text = self._read(path)
        if text is None:
            return
        try:
            actual = json.loads(text)
        except ValueError as exc:
            self.problem(f"{path}: unreadable: {exc}")
            return
        differences = list(_differences(_plain(expected), actual, ""))
        for where, want, got in differences[:MAX_JSON_DIFFERENCES]:
            self.problem(f"{path}: {where} is {_text(got)} but the store gives {_text(want)}")
        if len(differences) > MAX_JSON_DIFFERENCES:
            self.problem(f"{path}: and {len(differences) - MAX_JSON_DIFFERENCES} more values differ from the store's")

    def _check_markdown(self, expected: str) -> None:
        path = self.dir / STANDINGS_MD
        actual = self._read(path)
        if actual is None:
            return
        if actual != expected:
            want, got = expected.splitlines(), actual.splitlines()
            line = next((i for i, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
            self.problem(f"{path}: differs from the standings the store gives (from line {line + 1})")

    def _check_csv(self, header: list[str], rows: list[list[Any]]) -> None:
        path = self.dir / MATCHES_CSV
        try:
            with open(path, newline="", encoding="utf-8") as f:
                actual = list(csv.reader(f))
        except FileNotFoundError:
            self.problem(f"{path}: missing")
            return
        except (OSError, ValueError, csv.Error) as exc:
            self.problem(f"{path}: unreadable: {exc}")
            return
        # The rows as the report writer formats them, read back the way the file was.
        buffer = io.StringIO()
        csv.writer(buffer).writerows(rows)
        expected = {row[1]: row for row in csv.reader(io.StringIO(buffer.getvalue()))}
        if not actual or actual[0] != header:
            self.problem(f"{path}: the header is not the one matches.csv has")
            return
        seen: set[str] = set()
        order = []
        for number, row in enumerate(actual[1:], 1):
            match = row[1] if len(row) > 1 else "?"
            where = f"{path} row {number} ({match})"
            if len(row) != len(header):
                self.problem(f"{where}: {len(row)} columns, the header has {len(header)}")
                continue
            if match in seen:
                self.problem(f"{where}: the match is listed twice")
                continue
            seen.add(match)
            want = expected.get(match)
            if want is None:
                self.problem(f"{where}: no such match in the store")
                continue
            order.append(match)
            differences = _row_differences(header, row, want)
            if differences:
                self.problem(f"{where}: {'; '.join(differences)}")
        for match in expected:
            if match not in seen:
                self.problem(f"{path}: no row for match {match}")
        if order != [m for m in expected if m in seen]:
            self.problem(f"{path}: the rows are not in schedule order")


def _row_differences(header: list[str], got: list[str], want: list[str]) -> list[str]:
    """`ranks [1, 2] but the store says [2, 1]`, per seat group or column."""
    groups: dict[str, tuple[list[str], list[str]]] = {}
    out = []
    for column, a, b in zip(header, got, want, strict=True):
        seat, _, part = column.partition("_")
        if seat.startswith("seat") and seat[4:].isdigit() and part in SEAT_GROUPS:
            pair = groups.setdefault(SEAT_GROUPS[part], ([], []))
            pair[0].append(a)
            pair[1].append(b)
        elif a != b:
            out.append(f"{column} {_text(a)} but the store says {_text(b)}")
    seats = [f"{name} {_cells(a)} but the store says {_cells(b)}" for name, (a, b) in groups.items() if a != b]
    return seats + out


def _cells(values: list[str]) -> str:
    return "[" + ", ".join(values) + "]"


def _differences(want: Any, got: Any, where: str) -> Iterable[tuple[str, Any, Any]]:
    """(path, expected, actual) of every leaf where two JSON values differ."""
    if isinstance(want, dict) and isinstance(got, dict):
        for key in list(want) + [k for k in got if k not in want]:
            here = f"{where}.{key}" if where else str(key)
            if key not in got:
                yield here, want[key], "missing"
            elif key not in want:
                yield here, "absent", got[key]
            else:
                yield from _differences(want[key], got[key], here)
    elif isinstance(want, list) and isinstance(got, list) and len(want) == len(got):
        for i, (a, b) in enumerate(zip(want, got, strict=True)):
            name = a.get("name") if isinstance(a, dict) and isinstance(a.get("name"), str) else None
            yield from _differences(a, b, f"{where}[{i}]" + (f" ({name})" if name else ""))
    elif not _same(want, got):
        yield where or "the whole file", want, got


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return type(a) is type(b) and a == b if isinstance(a, bool) or isinstance(b, bool) else a == b


def verify_directory(directory: str | os.PathLike[str], jobs: int | None = None) -> Report:
    """Check a results directory as a whole; raises NotResults when it is not one at all."""
    return _Verifier(Path(directory), jobs).run()
