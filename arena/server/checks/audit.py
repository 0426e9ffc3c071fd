"""`arena verify` of a contest's directory: every ladder game against its signed log, every rating recomputed.

For each played game the log must be signed with the ladder's key, re-simulate, and agree
with the database's row (seed, setup, clock, the seats' names and bots, scores, ranks,
reason, offender, plies). The ratings are then replayed from the results in the order they
were applied, each version starting from the mean it was given on activation: every
stored (mu, sigma), game count and failure count must come out the same. Logs of no game
are reported too (a game that was not counted may leave one). The finals, when played, are
checked as the tournament directory they are.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from arena.logs.signing import KeyFileError, results_key
from arena.outcomes import FAILURES
from arena.server.engine.ladder import SIGMA, rate
from arena.server.state.db import GameKind, GameStatus
from arena.tournament.audit.verify import LogJob, NotResults, Report, check_log, verify_directory

TOLERANCE = 1e-6


def is_contest(directory: str | Path) -> bool:
    """True when directory is a contest server's directory (it holds server.db)."""
    return (Path(directory) / "server.db").is_file()


def verify_contest(directory: str | Path, jobs: int | None = None) -> Report:
    """Check the ladder's games and ratings (and the finals' directory): one line per problem."""
    directory = Path(directory)
    report = Report(directory)
    try:
        db = sqlite3.connect(f"file:{directory / 'server.db'}?mode=ro", uri=True)
        db.row_factory = sqlite3.Row
        games = [dict(r) for r in db.execute("SELECT * FROM games WHERE status = ? ORDER BY recorded",
                                             (GameStatus.DONE,))]
        versions = {r["id"]: dict(r) for r in db.execute(
            "SELECT s.*, e.house FROM submissions s JOIN entrants e ON e.id = s.entrant")}
        # A game not counted (discarded after a version was replaced mid-game, or voided after a
        # killed server left its log half-written) may have a log; it is no result, and no stray either.
        unplayed = {f"logs/g{r[0]}.msgpack" for r in db.execute("SELECT id FROM games WHERE status != ?",
                                                                (GameStatus.DONE,))}
        finals = db.execute("SELECT value FROM settings WHERE key = 'finals'").fetchone()
        db.close()
    except sqlite3.Error as exc:
        raise NotResults(f"{directory / 'server.db'}: not a contest's database ({exc})") from None
    ladder = directory / "ladder"
    try:
        key = results_key(ladder)
    except KeyFileError as exc:
        key = None
        report.problems.append(str(exc))
    if key is None:
        report.problems.append(f"{ladder}: no log.key; the logs' signatures cannot be checked")
    named: set[str] = set(unplayed)
    for game in games:
        report.matches += 1
        named.add(game["log"])
        problems = _check_game(ladder, key, game, versions)
        report.logs += not any("missing" in p for p in problems)
        report.problems += problems
    for path in sorted((ladder / "logs").glob("*.msgpack")) if (ladder / "logs").is_dir() else []:
        if f"logs/{path.name}" not in named:
            report.problems.append(f"{path}: a log no played game names")
    report.problems += _check_ratings(games, versions)
    if finals is not None and finals[0] == "done":
        inner = verify_directory(directory / "finals", jobs=jobs)
        # Finals marked done are complete: any match still to play there is a problem of the contest.
        report.problems += inner.preamble() + inner.problems
        report.matches += inner.matches
        report.logs += inner.logs
    return report


def _spec(version: dict[str, Any]) -> dict[str, Any]:
    return json.loads(version["spec"] or "{}")


def _check_game(ladder: Path, key: bytes | None, game: dict[str, Any], versions: dict[int, dict[str, Any]]
                ) -> list[str]:
    where = f"game {game['id']}"
    if not game["log"]:
        return [f"{where}: played, but no log is named"]
    seats = [versions.get(game["a"]), versions.get(game["b"])]
    if None in seats:
        return [f"{where}: a version it names is not in the database"]
    specs = [_spec(v) for v in seats if v is not None]
    conditions = json.loads(game["conditions"] or "{}")
    # A game played before its directory was migrated keeps the commands its log recorded
    # (arena/server/state/layout.py).
    commands = conditions.get("bots") or [s.get("spec", "") for s in specs]
    path = ladder / game["log"]
    job = LogJob(str(path), str(path), key, key is not None, f"g{game['id']}", game["seed"],
                 _game_of(path), conditions.get("setup"), conditions.get("clock"),
                 tuple(s.get("name", "") for s in specs), tuple(commands),
                 tuple(json.loads(game["scores"])), tuple(json.loads(game["ranks"])), game["reason"],
                 game["offender"], game["plies"], game["detail"])
    _, problems = check_log(job)
    return problems


def _game_of(path: Path) -> str:
    """The game the log says it is of (the database holds one game for the whole contest)."""
    from arena.logs.matchlog import LogError, read_log

    try:
        return str(read_log(path).header.get("game"))
    except LogError:
        return ""


def _check_ratings(games: list[dict[str, Any]], versions: dict[int, dict[str, Any]]) -> list[str]:
    """Replay the rated results in their order; every version must end where the database says."""
    state = {number: [v["start_mu"], SIGMA, 0, 0] for number, v in versions.items()}
    for game in games:
        if game["kind"] == GameKind.SCRIMMAGE:
            continue
        a, b = state[game["a"]], state[game["b"]]
        (a[0], a[1]), (b[0], b[1]) = rate((a[0], a[1]), (b[0], b[1]), json.loads(game["ranks"]))
        for seat, tally in enumerate((a, b)):
            tally[2] += 1
            tally[3] += game["reason"] in FAILURES and game["offender"] == seat
    problems = []
    for number, version in sorted(versions.items()):
        mu, sigma, played, errors = state[number]
        if not version["house"] and version["status"] in ("queued", "building", "validating", "failed", "rejected"):
            continue
        if abs(mu - version["mu"]) > TOLERANCE or abs(sigma - version["sigma"]) > TOLERANCE:
            problems.append(f"version {number}: rating {version['mu']:.6f} ± {version['sigma']:.6f} in the database, "
                            f"{mu:.6f} ± {sigma:.6f} from its games")
        if played != version["games"] or errors != version["errors"]:
            problems.append(f"version {number}: {version['games']} games, {version['errors']} failures in the "
                            f"database; its games say {played} and {errors}")
    return problems
