"""The contest as the web pages see it: config, database, secrets and engine, and the queries behind the pages."""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

from starlette.requests import Request

from arena.integrity.report import Report, analyse
from arena.server.checks.integrity import contest_results
from arena.server.engine.engine import Engine, live_log
from arena.server.engine.ladder import interval, provisional
from arena.server.state.config import ServerConfig
from arena.server.state.db import Database, GameStatus, Status
from arena.server.state.eventlog import keep_recent
from arena.server.web.auth import SESSION_COOKIE, Caller, Keys
from arena.server.web.net import client_address, network_of
from arena.server.web.privacy import game_detail, version_detail
from arena.server.web.ratelimit import FailureLimiter
from arena.tournament.plan.config import ConfigError


class Contest:
    """What every request handler needs: config, database, secrets, engine."""

    def __init__(self, config: ServerConfig, start_engine: bool = True) -> None:
        check_private(config)
        self.config = config
        self.db = Database(config.directory / "server.db")
        self.keys = Keys(self.db, config.admin_token_file)
        self.engine = Engine(config, self.db)
        self.limiter = FailureLimiter(config.login_failures, config.login_window_s)
        self.cross_origin_refused = 0  # requests from another origin answered 403 (arena/server/web/origin.py)
        self.start_engine = start_engine
        self.started = time.time()
        self.url = ""  # where the pages are served, once `arena serve` listens
        self.events = keep_recent()
        self._integrity: tuple[str, list[Report]] | None = None  # (the games' generation, the reports of it)

    # --- who is asking ---------------------------------------------------------------------

    def caller(self, request: Request, session: bool = True) -> Caller:
        """The caller by bearer token, else by session cookie unless session is False (RateLimited: must wait).

        The API's changes take a token only (session=False): a browser adds the session cookie
        to requests other sites' pages make of it, but never a bearer token by itself.
        """
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return self.authenticate(request, header[7:])
        return self.keys.by_session(request.cookies.get(SESSION_COOKIE)) if session else Caller()

    def authenticate(self, request: Request, token: str) -> Caller:
        """The caller a token names; one that names nobody counts against the client's network.

        RateLimited when the network has sent too many bad tokens lately: then no token is
        checked at all, a right one neither (the answer would tell it from a wrong one).
        """
        if not token.strip():
            return Caller()
        config = self.config
        network = network_of(client_address(request), config.login_ipv4_prefix, config.login_ipv6_prefix)
        self.limiter.check(network)
        who = self.keys.by_token(token)
        if not who.known:
            self.limiter.fail(network)
        return who

    def no_entrant(self, request: Request, caller: Caller) -> str:
        """Why the request (made by caller) does not act as an entrant: no token given, or one that names nobody."""
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer ") and header[7:].strip():
            if caller.admin:  # not asked again: a second look would count a wrong token twice
                return "the admin token is not an entrant's: upload with the entrant's own token"
            return ("this token belongs to no entrant (mistyped, or of a disqualified entrant?); "
                    "each entrant's token is in NAME.token, written by `arena entrants add`")
        if request.cookies.get(SESSION_COOKIE) and request.method not in ("GET", "HEAD"):
            return ("the API makes changes with an entrant's token only (Authorization: Bearer TOKEN), "
                    "not with a browser's session: use the forms of your page")
        return "an entrant's token is needed (Authorization: Bearer TOKEN)"

    def owns(self, caller: Caller, entrant: int) -> bool:
        """True when the caller may see an entrant's private things."""
        return caller.admin or caller.entrant == entrant

    # --- what the pages show ---------------------------------------------------------------

    def leaderboard(self) -> list[dict[str, Any]]:
        """Active versions ranked by mu - 3 sigma."""
        rows = self.db.rows("SELECT s.*, e.name AS entrant_name, e.house FROM submissions s "
                            "JOIN entrants e ON e.id = s.entrant WHERE s.status = ? AND e.disabled = 0",
                            Status.ACTIVE)
        board = []
        for row in rows:
            lo, hi = interval(row.mu, row.sigma)
            board.append({"name": row.entrant_name if not row.house else row.filename,
                          "entrant": row.entrant_name, "reference": bool(row.house), "version": row.version,
                          "submission": row.id, "rating": round(row.mu - 3 * row.sigma, 2),
                          "mu": round(row.mu, 2), "sigma": round(row.sigma, 2), "low": round(lo, 2),
                          "high": round(hi, 2), "games": row.games, "errors": row.errors,
                          "provisional": False, "remote": row.language == "remote",
                          "last_game": row.last_game, "last_change": round(row.last_delta, 2)})
        board.sort(key=lambda b: (-b["rating"], b["name"]))
        typical = statistics.median(b["games"] for b in board) if board else 0
        for rank, entry in enumerate(board, 1):
            entry["rank"] = rank
            entry["provisional"] = provisional(entry["games"], typical, self.config.ladder.provisional_games)
        return board

    def submission_data(self, row: Any, private: bool) -> dict[str, Any]:
        """A submission as the API gives it (logs and the full detail for its owner and the admin only)."""
        data = {"id": row.id, "entrant": row.entrant_name, "version": row.version, "filename": row.filename,
                "language": row.language, "status": row.status,
                "detail": version_detail(row.status, row.detail, private), "created": row.created,
                "games": row.games, "errors": row.errors, "rating": round(row.mu - 3 * row.sigma, 2),
                "mu": round(row.mu, 2), "sigma": round(row.sigma, 2), "placement_left": row.placement_left}
        if private:
            data |= {"build_log": row.build_log, "validation_log": row.validation_log}
        return data

    def submission(self, number: int) -> Any:
        """A submission row with its entrant's name, or None."""
        return self.db.row("SELECT s.*, e.name AS entrant_name, e.house FROM submissions s "
                           "JOIN entrants e ON e.id = s.entrant WHERE s.id = ?", number)

    def games(self, viewer: Caller, where: str = "", *args: Any, limit: int = 50) -> list[dict[str, Any]]:
        """Recent games, newest first, with the names of both sides; a failure's detail as the viewer may read it."""
        rows = self.db.rows(
            "SELECT g.*, ea.name AS a_entrant, sa.version AS a_version, sa.filename AS a_file, ea.house AS a_house, "
            "eb.name AS b_entrant, sb.version AS b_version, sb.filename AS b_file, eb.house AS b_house, "
            "ea.id AS a_owner, eb.id AS b_owner "
            "FROM games g JOIN submissions sa ON sa.id = g.a JOIN entrants ea ON ea.id = sa.entrant "
            "JOIN submissions sb ON sb.id = g.b JOIN entrants eb ON eb.id = sb.entrant "
            f"{'WHERE ' + where if where else ''} ORDER BY g.id DESC LIMIT {int(limit)}", *args)
        out = []
        for row in rows:
            names = [row.a_file if row.a_house else f"{row.a_entrant} v{row.a_version}",
                     row.b_file if row.b_house else f"{row.b_entrant} v{row.b_version}"]
            seats = None if viewer.admin else {seat for seat, owner in enumerate((row.a_owner, row.b_owner))
                                                if self.owns(viewer, owner)}
            detail = game_detail(row.status, row.reason, row.offender, row.plies, row.detail, seats)
            out.append({"id": row.id, "kind": row.kind, "status": row.status, "players": names,
                        "submissions": [row.a, row.b], "scores": json.loads(row.scores),
                        "ranks": json.loads(row.ranks), "reason": row.reason, "offender": row.offender,
                        "plies": row.plies, "detail": detail, "finished": row.finished,
                        "replay": f"/games/{row.id}" if row.status == GameStatus.DONE and row.log else "",
                        "live": f"/games/{row.id}" if live_log(self.config, row) is not None else ""})
        return out

    def entrant(self, number: int | None) -> Any:
        """An entrant's row by id, or None."""
        return self.db.row("SELECT * FROM entrants WHERE id = ?", number)

    def entrant_named(self, name: str) -> Any:
        """An entrant's row by name, or None."""
        return self.db.row("SELECT * FROM entrants WHERE name = ?", name)

    def versions(self, entrant: int, newest_first: bool = False) -> list[Any]:
        """An entrant's submissions with its name, in upload order (or newest first)."""
        order = "s.version DESC" if newest_first else "s.id"
        return self.db.rows("SELECT s.*, e.name AS entrant_name FROM submissions s JOIN entrants e "
                             f"ON e.id = s.entrant WHERE s.entrant = ? ORDER BY {order}", entrant)

    def versions_games(self, viewer: Caller, versions: list[int], limit: int) -> list[dict[str, Any]]:
        """Recent games of any of these versions (see games)."""
        ids = versions or [0]
        marks = ",".join("?" * len(ids))
        return self.games(viewer, f"(g.a IN ({marks}) OR g.b IN ({marks}))", *ids, *ids, limit=limit)

    def game(self, number: int) -> Any:
        """A game's row by id, or None."""
        return self.db.row("SELECT * FROM games WHERE id = ?", number)

    def own_seats(self, viewer: Caller, game: Any) -> list[int]:
        """The seats of a game whose versions belong to the viewer (both for the admin)."""
        owners = {row.id: row.entrant for row in self.db.rows("SELECT id, entrant FROM submissions WHERE id IN "
                                                               "(?, ?)", game.a, game.b)}
        return [seat for seat, version in enumerate((game.a, game.b)) if self.owns(viewer, owners.get(version, -1))]

    def entrants_overview(self) -> list[Any]:
        """Every entrant but the house, with its number of versions and the state of its latest (the admin page)."""
        return self.db.rows(
            "SELECT e.*, (SELECT COUNT(*) FROM submissions s WHERE s.entrant = e.id) AS versions, "
            "(SELECT status FROM submissions s WHERE s.entrant = e.id ORDER BY version DESC LIMIT 1) AS latest "
            "FROM entrants e WHERE e.house = 0 ORDER BY e.name")

    def integrity(self) -> list[Report]:
        """The collusion check of the ladder's games (and the finals'), computed again once something changed.

        IntegrityError when the directory cannot be read.
        """
        generation = self.db.generation()
        cached = self._integrity
        if cached is None or cached[0] != generation:
            reports = [analyse(results) for results in contest_results(self.config.directory, self.config.game)]
            self._integrity = cached = (generation, reports)
        return cached[1]

    def queue(self) -> dict[str, int]:
        """Counts of games and submissions by state (the admin page and /health)."""
        games = {r.status: r.n for r in self.db.rows("SELECT status, COUNT(*) AS n FROM games GROUP BY status")}
        subs = {r.status: r.n for r in self.db.rows("SELECT status, COUNT(*) AS n FROM submissions GROUP BY status")}
        return {"games_queued": games.get(GameStatus.QUEUED, 0), "games_running": games.get(GameStatus.RUNNING, 0),
                "games_done": games.get(GameStatus.DONE, 0), "games_void": games.get(GameStatus.VOID, 0),
                "builds_waiting": sum(subs.get(s, 0) for s in (Status.QUEUED, Status.BUILDING, Status.VALIDATING)),
                "versions_active": subs.get(Status.ACTIVE, 0)}


def check_private(config: ServerConfig) -> None:
    """ConfigError when the server's directory lies where sandboxed bots can read (tokens, database, code)."""
    from arena.launch.sandbox.sandbox import public_code

    state = str(config.directory.resolve())
    for shown in public_code():
        if state == shown or state.startswith(shown.rstrip("/") + "/"):
            raise ConfigError(f"{config.source}: directory: {state} is inside {shown}, which every bot may read; "
                              "choose a directory outside the Python installation, the arena's packages and the "
                              "games' folders")
