"""`GET /metrics`: the server's state in Prometheus' text exposition format (version 0.0.4).

Counts of games and failures come from the database (they survive a restart, as counters
should); builds finished are counted by this process (a counter that restarts at zero, which
Prometheus' rate() expects). Per-minute figures are given ready-made as gauges too, for a
dashboard without PromQL.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from arena.outcomes import FAILURES
from arena.server.state.db import Database, GameStatus, Status, now

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
MINUTE_S = 60.0


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


class Exposition:
    """Metric families written in the text format: HELP and TYPE once, then the samples."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def family(self, name: str, kind: str, help_text: str,
               samples: Iterable[tuple[dict[str, str], float]]) -> None:
        """One metric family and its samples (labels, value)."""
        self.lines += [f"# HELP {name} {help_text}", f"# TYPE {name} {kind}"]
        for labels, value in samples:
            shown = ",".join(f'{key}="{_escape(str(val))}"' for key, val in sorted(labels.items()))
            number = f"{value:.6g}" if isinstance(value, float) and not value.is_integer() else str(int(value))
            self.lines.append(f"{name}{{{shown}}} {number}" if shown else f"{name} {number}")

    def one(self, name: str, kind: str, help_text: str, value: float) -> None:
        """A family of a single unlabelled sample."""
        self.family(name, kind, help_text, [({}, value)])

    def text(self) -> str:
        """The exposition, ending with a newline."""
        return "\n".join(self.lines) + "\n"


def render(contest: Any) -> str:
    """The exposition of a contest (arena.server.web.contest.Contest) as it stands."""
    stamp = now()
    out = Exposition()
    _server(out, contest)
    _games(out, contest.db, stamp)
    _builds(out, contest.db, contest.engine, stamp)
    _ladder(out, contest, stamp)
    _guards(out, contest)
    return out.text()


def _server(out: Exposition, contest: Any) -> None:
    """Whether the server's threads run, since when, and the admin's switches."""
    db, engine = contest.db, contest.engine
    alive = [thread.is_alive() for thread in engine.threads]
    out.one("arena_up", "gauge", "1 while every thread of the server runs (the ladder, the intake)",
            float(bool(alive) and all(alive) and not engine.error) if contest.start_engine else 1.0)
    out.one("arena_uptime_seconds", "gauge", "seconds since the server started",
            round(time.time() - contest.started, 3))
    out.one("arena_ladder_paused", "gauge", "1 while the admin has paused the ladder",
            float(db.setting("paused") == "1"))
    out.one("arena_submissions_frozen", "gauge", "1 while submissions are closed", float(db.setting("frozen") == "1"))


def _games(out: Exposition, db: Database, stamp: float) -> None:
    """The games: queued and running, played by kind, failures by reason, the last minute's."""
    games = {r.status: r.n for r in db.rows("SELECT status, COUNT(*) AS n FROM games GROUP BY status")}
    out.one("arena_games_queued", "gauge", "games waiting to be played (the ladder's queue)",
            games.get(GameStatus.QUEUED, 0))
    out.one("arena_games_running", "gauge", "games being played", games.get(GameStatus.RUNNING, 0))
    done = db.rows("SELECT kind, status, COUNT(*) AS n FROM games WHERE status IN (?, ?) GROUP BY kind, status",
                   GameStatus.DONE, GameStatus.VOID)
    out.family("arena_games_total", "counter", "games played (done) or given up (void), by kind",
               [({"kind": r.kind, "status": r.status}, r.n) for r in done])
    marks = ",".join("?" * len(FAILURES))
    failures = {r.reason: r.n for r in db.rows(
        f"SELECT reason, COUNT(*) AS n FROM games WHERE status = ? AND reason IN ({marks}) GROUP BY reason",
        GameStatus.DONE, *FAILURES)}
    out.family("arena_game_failures_total", "counter", "played games that ended in a bot's failure, by reason",
               [({"reason": str(reason)}, failures.get(str(reason), 0)) for reason in FAILURES])
    out.one("arena_games_last_minute", "gauge", "games finished within the last minute",
            db.value("SELECT COUNT(*) FROM games WHERE status = ? AND finished > ?", GameStatus.DONE,
                     stamp - MINUTE_S))


def _builds(out: Exposition, db: Database, engine: Any, stamp: float) -> None:
    """The entrants' versions by state, and the builds: waiting, finished, the oldest's wait."""
    states = {r.status: r.n for r in db.rows(
        "SELECT s.status, COUNT(*) AS n FROM submissions s JOIN entrants e ON e.id = s.entrant WHERE e.house = 0 "
        "GROUP BY s.status")}
    out.family("arena_submissions", "gauge", "entrants' versions by state",
               [({"status": str(status)}, states.get(str(status), 0)) for status in Status])
    out.one("arena_builds_waiting", "gauge", "versions queued, building or validating",
            sum(states.get(str(s), 0) for s in (Status.QUEUED, Status.BUILDING, Status.VALIDATING)))
    with engine.builds.lock:
        builds = dict(engine.builds.total)
    out.family("arena_builds_total", "counter",
               "builds and validations finished by this process, by the state they left the version in",
               [({"result": result}, n) for result, n in sorted(builds.items())])
    out.one("arena_builds_last_minute", "gauge", "builds and validations finished within the last minute",
            engine.builds.last(MINUTE_S))
    oldest_build = db.value("SELECT MIN(created) FROM submissions WHERE status = ?", Status.QUEUED)
    out.one("arena_build_queue_age_seconds", "gauge", "how long the oldest queued version has waited for its build",
            round(stamp - oldest_build, 3) if oldest_build else 0.0)


def _ladder(out: Exposition, contest: Any, stamp: float) -> None:
    """How far the ladder lags: the oldest queued game, the longest-waiting version still to be rated."""
    db = contest.db
    oldest_game = db.value("SELECT MIN(created) FROM games WHERE status = ?", GameStatus.QUEUED)
    out.one("arena_ladder_lag_seconds", "gauge", "how long the oldest queued game has waited to be played",
            round(stamp - oldest_game, 3) if oldest_game else 0.0)
    idle = db.value("SELECT MIN(CASE WHEN s.last_game > 0 THEN s.last_game ELSE s.updated END) FROM submissions s "
                    "JOIN entrants e ON e.id = s.entrant WHERE s.status = ? AND e.house = 0 AND s.games < ?",
                    Status.ACTIVE, contest.config.ladder.max_games)
    out.one("arena_ladder_idle_seconds", "gauge",
            "the longest an entrant's active version still to be rated has waited since its last game (or activation)",
            round(max(0.0, stamp - idle), 3) if idle else 0.0)


def _guards(out: Exposition, contest: Any) -> None:
    """What the guards refused: failed logins and bad tokens, held-back networks, other origins."""
    limiter = contest.limiter
    out.one("arena_auth_failures_total", "counter", "failed logins and bad tokens", limiter.failed)
    out.one("arena_auth_refused_total", "counter", "token checks answered 429 (too many failures from a network)",
            limiter.refused)
    out.one("arena_cross_origin_refused_total", "counter", "state-changing requests from another origin, answered 403",
            contest.cross_origin_refused)
