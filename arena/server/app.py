"""The server's web face: server-rendered pages (no JavaScript needed) and the JSON API behind them.

Entrants authenticate with their token: `Authorization: Bearer TOKEN` on the API, or a
login form that sets a signed session cookie (HttpOnly, SameSite=Lax, Secure behind
HTTPS). Every form that changes something carries the session's CSRF token. What belongs
to an entrant (build logs, validation reports, its bots' output in games) is shown to that
entrant and the admin only; for anyone else such a thing does not exist (404).
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route
from starlette.templating import Jinja2Templates

from arena.server.auth import (
    SESSION_COOKIE,
    SESSION_DAYS,
    AuthError,
    Caller,
    Keys,
    new_token,
    token_hash,
)
from arena.server.config import ServerConfig
from arena.server.db import Database, GameKind, GameStatus, Status, now
from arena.server.engine import Engine, ladder_log
from arena.server.finals import FinalsError, finals_dir, freeze_field
from arena.server.intake import QuotaError, accept_upload, conditions
from arena.server.ladder import interval
from arena.server.sources import NAME, SubmissionError

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).with_name("templates")
PRESESSION_COOKIE = "arena_form"  # a visitor's random seed for the login form's CSRF token
PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:"
EVENT_POLL_S = 1.0


class Contest:
    """What every request handler needs: config, database, secrets, engine."""

    def __init__(self, config: ServerConfig, start_engine: bool = True) -> None:
        check_private(config)
        self.config = config
        self.db = Database(config.directory / "server.db")
        self.keys = Keys(self.db, config.admin_token_file)
        self.engine = Engine(config, self.db)
        self.start_engine = start_engine
        self.started = time.time()

    # --- who is asking ---------------------------------------------------------------------

    def caller(self, request: Request) -> Caller:
        """The caller by bearer token, else by session cookie."""
        header = request.headers.get("authorization", "")
        if header.lower().startswith("bearer "):
            return self.keys.by_token(header[7:])
        return self.keys.by_session(request.cookies.get(SESSION_COOKIE))

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
                          "provisional": row.games < self.config.ladder.provisional_games,
                          "last_game": row.last_game, "last_change": round(row.last_delta, 2)})
        board.sort(key=lambda b: (-b["rating"], b["name"]))
        for rank, entry in enumerate(board, 1):
            entry["rank"] = rank
        return board

    def submission_data(self, row: Any, private: bool) -> dict[str, Any]:
        """A submission as the API gives it (logs for its owner only)."""
        data = {"id": row.id, "entrant": row.entrant_name, "version": row.version, "filename": row.filename,
                "language": row.language, "status": row.status, "detail": row.detail, "created": row.created,
                "games": row.games, "errors": row.errors, "rating": round(row.mu - 3 * row.sigma, 2),
                "mu": round(row.mu, 2), "sigma": round(row.sigma, 2), "placement_left": row.placement_left}
        if private:
            data |= {"build_log": row.build_log, "validation_log": row.validation_log}
        return data

    def submission(self, number: int) -> Any:
        """A submission row with its entrant's name, or None."""
        return self.db.row("SELECT s.*, e.name AS entrant_name, e.house FROM submissions s "
                           "JOIN entrants e ON e.id = s.entrant WHERE s.id = ?", number)

    def games(self, where: str = "", *args: Any, limit: int = 50) -> list[dict[str, Any]]:
        """Recent games, newest first, with the names of both sides."""
        rows = self.db.rows(
            "SELECT g.*, ea.name AS a_entrant, sa.version AS a_version, sa.filename AS a_file, ea.house AS a_house, "
            "eb.name AS b_entrant, sb.version AS b_version, sb.filename AS b_file, eb.house AS b_house "
            "FROM games g JOIN submissions sa ON sa.id = g.a JOIN entrants ea ON ea.id = sa.entrant "
            "JOIN submissions sb ON sb.id = g.b JOIN entrants eb ON eb.id = sb.entrant "
            f"{'WHERE ' + where if where else ''} ORDER BY g.id DESC LIMIT {int(limit)}", *args)
        out = []
        for row in rows:
            names = [row.a_file if row.a_house else f"{row.a_entrant} v{row.a_version}",
                     row.b_file if row.b_house else f"{row.b_entrant} v{row.b_version}"]
            out.append({"id": row.id, "kind": row.kind, "status": row.status, "players": names,
                        "submissions": [row.a, row.b], "scores": json.loads(row.scores),
                        "ranks": json.loads(row.ranks), "reason": row.reason, "offender": row.offender,
                        "plies": row.plies, "detail": row.detail, "finished": row.finished,
                        "replay": f"/games/{row.id}" if row.status == GameStatus.DONE and row.log else ""})
        return out

    def queue(self) -> dict[str, int]:
        """Counts of games and submissions by state (the admin page and /health)."""
        games = {r.status: r.n for r in self.db.rows("SELECT status, COUNT(*) AS n FROM games GROUP BY status")}
        subs = {r.status: r.n for r in self.db.rows("SELECT status, COUNT(*) AS n FROM submissions GROUP BY status")}
        return {"games_queued": games.get(GameStatus.QUEUED, 0), "games_running": games.get(GameStatus.RUNNING, 0),
                "games_done": games.get(GameStatus.DONE, 0), "games_void": games.get(GameStatus.VOID, 0),
                "builds_waiting": sum(subs.get(s, 0) for s in (Status.QUEUED, Status.BUILDING, Status.VALIDATING)),
                "versions_active": subs.get(Status.ACTIVE, 0)}


def create_app(config: ServerConfig, start_engine: bool = True) -> Starlette:
    """The ASGI application of a contest."""
    contest = Contest(config, start_engine)
    import jinja2

    # Autoescape everything: names, logs and details are written by entrants.
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
    environment.filters["ago"] = ago
    templates = Jinja2Templates(env=environment)

    def render(request: Request, name: str, caller: Caller, status: int = 200, **context: Any) -> Response:
        seed = csrf_seed(request, caller)
        fresh = not seed
        if fresh:  # a visitor without a session gets a random seed of its own for the login form
            seed = secrets.token_urlsafe(24)
        context |= {"caller": caller, "csrf": contest.keys.csrf(seed), "contest": config.tournament.name,
                    "game": config.game, "frozen": contest.db.setting("frozen") == "1"}
        response = templates.TemplateResponse(request, name, context, status_code=status)
        response.headers["Content-Security-Policy"] = PAGE_CSP
        if fresh:
            response.set_cookie(PRESESSION_COOKIE, seed, httponly=True, samesite="lax",
                                secure=config.secure_cookies or request.url.scheme == "https")
        return response

    def csrf_seed(request: Request, caller: Caller) -> str:
        """What a form's CSRF token is derived from: the session, else the visitor's pre-session cookie."""
        if caller.known and request.cookies.get(SESSION_COOKIE):
            return request.cookies[SESSION_COOKIE]
        return request.cookies.get(PRESESSION_COOKIE, "")

    def not_found(request: Request, caller: Caller, what: str = "page") -> Response:
        if _wants_json(request):
            return JSONResponse({"error": f"no such {what}"}, status_code=404)
        return render(request, "message.html", caller, 404, title="Not found", message=f"There is no such {what}.")

    async def checked_form(request: Request, caller: Caller) -> Any:
        """The form of a POST from the browser, after its CSRF check (None: refused)."""
        form = await request.form(max_files=1, max_fields=20, max_part_size=config.uploads.max_bytes + 1)
        sent = form.get("csrf", "")
        seed = csrf_seed(request, caller)
        if not seed or not isinstance(sent, str) or not contest.keys.check_csrf(seed, sent):
            return None
        return form

    def forbidden(request: Request, caller: Caller, message: str) -> Response:
        return render(request, "message.html", caller, 403, title="Refused", message=message)

    # --- public pages ----------------------------------------------------------------------

    async def home(request: Request) -> Response:
        caller = contest.caller(request)
        return render(request, "leaderboard.html", caller, board=contest.leaderboard(),
                      games=contest.games(limit=15), finals=contest.db.setting("finals"),
                      ladder_error=contest.engine.error)

    async def api_leaderboard(request: Request) -> Response:
        return JSONResponse(contest.leaderboard())

    async def entrant_page(request: Request) -> Response:
        caller = contest.caller(request)
        name = request.path_params["name"]
        entrant = contest.db.row("SELECT * FROM entrants WHERE name = ?", name)
        if entrant is None:
            return not_found(request, caller, "entrant")
        private = contest.owns(caller, entrant.id)
        rows = contest.db.rows("SELECT s.*, e.name AS entrant_name FROM submissions s JOIN entrants e "
                               "ON e.id = s.entrant WHERE s.entrant = ? ORDER BY s.version DESC", entrant.id)
        versions = [contest.submission_data(row, private) for row in rows]
        ids = [row.id for row in rows] or [0]
        marks = ",".join("?" * len(ids))
        games = contest.games(f"(g.a IN ({marks}) OR g.b IN ({marks}))", *ids, *ids, limit=30)
        opponents = [b for b in contest.leaderboard() if b["entrant"] != entrant.name]
        return render(request, "entrant.html", caller, entrant=entrant, versions=versions, games=games,
                      private=private, opponents=opponents, placement=config.ladder.placement_games)

    async def game_page(request: Request) -> Response:
        caller = contest.caller(request)
        game = contest.db.row("SELECT * FROM games WHERE id = ?", request.path_params["number"])
        path = ladder_log(config, game) if game is not None else None
        if game is None or path is None:
            return not_found(request, caller, "game")
        owners = {row.id: row.entrant for row in contest.db.rows("SELECT id, entrant FROM submissions WHERE id IN "
                                                                   "(?, ?)", game.a, game.b)}
        seats = [seat for seat, version in enumerate((game.a, game.b))
                 if contest.owns(caller, owners.get(version, -1))]
        return HTMLResponse(await run_in_threadpool(_viewer_page, path, seats))

    async def finals_page(request: Request) -> Response:
        caller = contest.caller(request)
        report = finals_dir(config) / "report.html"
        if contest.db.setting("finals") != "done" or not report.is_file():
            return render(request, "message.html", caller, 404, title="Finals",
                          message="The finals have not been played yet.")
        return FileResponse(report, media_type="text/html")

    async def health(request: Request) -> Response:
        alive = {t.name: t.is_alive() for t in contest.engine.threads}
        ok = bool(alive) and all(alive.values()) and not contest.engine.error if contest.start_engine else True
        body = {"ok": ok, "threads": alive, "uptime_s": round(time.time() - contest.started, 1),
                "frozen": contest.db.setting("frozen") == "1", "finals": contest.db.setting("finals") or "none",
                **contest.queue()}
        if contest.engine.error:
            body["error"] = contest.engine.error
        return JSONResponse(body, status_code=200 if ok else 503)

    async def events(request: Request) -> Response:
        async def stream() -> Any:
            last = ""
            quiet = 0.0
            while not contest.engine.stop_event.is_set():
                if await request.is_disconnected():
                    return
                current = await run_in_threadpool(contest.db.generation)
                if current != last:
                    last, quiet = current, 0.0
                    yield f"data: {current}\n\n"
                elif quiet > 15:
                    quiet = 0.0
                    yield ": still here\n\n"
                await asyncio.sleep(EVENT_POLL_S)
                quiet += EVENT_POLL_S
        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})

    # --- logging in ---------------------------------------------------------------------------

    async def login_page(request: Request) -> Response:
        return render(request, "login.html", contest.caller(request), error="")

    async def login(request: Request) -> Response:
        caller = Caller()
        form = await checked_form(request, caller)
        if form is None:
            return forbidden(request, caller, "The form expired or came from another site; reload the page.")
        who = contest.keys.by_token(str(form.get("token", "")))
        if not who.known:
            return render(request, "login.html", caller, 401, error="That token opens nothing.")
        target = "/admin" if who.admin else f"/entrants/{who.name}"
        response = RedirectResponse(target, status_code=303)
        response.set_cookie(SESSION_COOKIE, contest.keys.session_cookie(who), max_age=SESSION_DAYS * 86400,
                            httponly=True, samesite="lax",
                            secure=config.secure_cookies or request.url.scheme == "https")
        return response

    async def logout(request: Request) -> Response:
        caller = contest.caller(request)
        if await checked_form(request, caller) is None:
            return forbidden(request, caller, "The form expired or came from another site; reload the page.")
        response = RedirectResponse("/", status_code=303)
        response.delete_cookie(SESSION_COOKIE)
        return response

    # --- submitting ------------------------------------------------------------------------------

    def too_large(request: Request) -> bool:
        length = request.headers.get("content-length")
        return length is not None and length.isdigit() and int(length) > config.uploads.max_bytes + 65536

    async def take_upload(caller: Caller, upload: Any) -> tuple[int, str]:
        """(submission id, "") or (0, the error)."""
        if not isinstance(upload, UploadFile) or not upload.filename:
            return 0, "no file: send the bot as the multipart field 'file'"
        data = await upload.read(config.uploads.max_bytes + 1)
        entrant = contest.db.row("SELECT * FROM entrants WHERE id = ?", caller.entrant)
        try:
            return await run_in_threadpool(accept_upload, config, contest.db, entrant, upload.filename, data), ""
        except (SubmissionError, QuotaError) as exc:
            return 0, str(exc)

    async def api_submit(request: Request) -> Response:
        caller = contest.caller(request)
        if caller.entrant is None:
            return JSONResponse({"error": "an entrant's token is needed (Authorization: Bearer TOKEN)"},
                                status_code=401)
        if too_large(request):
            return JSONResponse({"error": f"over the upload limit of {config.uploads.max_bytes} bytes"},
                                status_code=413)
        form = await request.form(max_files=1, max_fields=5, max_part_size=config.uploads.max_bytes + 1)
        number, error = await take_upload(caller, form.get("file"))
        if error:
            return JSONResponse({"error": error}, status_code=403 if "frozen" in error or "at most" in error
                                else 422)
        row = contest.submission(number)
        return JSONResponse(contest.submission_data(row, True), status_code=201,
                            headers={"Location": f"/api/submissions/{number}"})

    async def form_submit(request: Request) -> Response:
        caller = contest.caller(request)
        if caller.entrant is None:
            return RedirectResponse("/login", status_code=303)
        if too_large(request):
            return render(request, "message.html", caller, 413, title="Too large",
                          message=f"Uploads are limited to {config.uploads.max_bytes} bytes.")
        form = await checked_form(request, caller)
        if form is None:
            return forbidden(request, caller, "The form expired or came from another site; reload the page.")
        _, error = await take_upload(caller, form.get("file"))
        if error:
            return render(request, "message.html", caller, 422, title="Not accepted", message=error)
        return RedirectResponse(f"/entrants/{caller.name}", status_code=303)

    async def api_submission(request: Request) -> Response:
        caller = contest.caller(request)
        row = contest.submission(request.path_params["number"])
        if row is None or not contest.owns(caller, row.entrant):
            return JSONResponse({"error": "no such submission"}, status_code=404)
        return JSONResponse(contest.submission_data(row, True))

    async def api_submissions(request: Request) -> Response:
        caller = contest.caller(request)
        if caller.entrant is None:
            return JSONResponse({"error": "an entrant's token is needed"}, status_code=401)
        rows = contest.db.rows("SELECT s.*, e.name AS entrant_name FROM submissions s JOIN entrants e "
                               "ON e.id = s.entrant WHERE s.entrant = ? ORDER BY s.id", caller.entrant)
        return JSONResponse([contest.submission_data(row, True) for row in rows])

    async def submission_log(request: Request) -> Response:
        caller = contest.caller(request)
        row = contest.submission(request.path_params["number"])
        if row is None or not contest.owns(caller, row.entrant):
            return not_found(request, caller, "submission")
        return render(request, "submission.html", caller, sub=contest.submission_data(row, True))

    async def api_games(request: Request) -> Response:
        version = request.query_params.get("submission", "")
        if version.isdigit():
            return JSONResponse(contest.games("(g.a = ? OR g.b = ?)", int(version), int(version), limit=200))
        return JSONResponse(contest.games(limit=200))

    async def scrimmage(request: Request) -> Response:
        caller = contest.caller(request)
        api = request.headers.get("authorization", "").lower().startswith("bearer ")
        if caller.entrant is None:
            return JSONResponse({"error": "an entrant's token is needed"}, status_code=401) if api else \
                RedirectResponse("/login", status_code=303)
        if api:
            try:
                body = await request.json()
            except ValueError:
                return JSONResponse({"error": "send JSON: {\"opponent\": SUBMISSION_ID}"}, status_code=422)
            opponent = body.get("opponent") if isinstance(body, dict) else None
        else:
            form = await checked_form(request, caller)
            if form is None:
                return forbidden(request, caller, "The form expired or came from another site; reload the page.")
            opponent = form.get("opponent")
        error, number = await run_in_threadpool(_scrimmage, contest, caller, opponent)
        if api:
            return JSONResponse({"error": error} if error else {"game": number}, status_code=422 if error else 201)
        if error:
            return render(request, "message.html", caller, 422, title="Not accepted", message=error)
        return RedirectResponse(f"/entrants/{caller.name}", status_code=303)

    # --- the admin ---------------------------------------------------------------------------------

    async def admin_page(request: Request) -> Response:
        caller = contest.caller(request)
        if not caller.admin:
            return RedirectResponse("/login", status_code=303)
        entrants = contest.db.rows(
            "SELECT e.*, (SELECT COUNT(*) FROM submissions s WHERE s.entrant = e.id) AS versions, "
            "(SELECT status FROM submissions s WHERE s.entrant = e.id ORDER BY version DESC LIMIT 1) AS latest "
            "FROM entrants e WHERE e.house = 0 ORDER BY e.name")
        return render(request, "admin.html", caller, entrants=entrants, queue=contest.queue(),
                      finals=contest.db.setting("finals") or "none", finals_error=contest.db.setting("finals_error"),
                      ladder_error=contest.engine.error)

    async def admin_action(request: Request) -> Response:
        caller = contest.caller(request)
        if not caller.admin:
            return forbidden(request, caller, "Only the admin may do this.")
        api = request.headers.get("authorization", "").lower().startswith("bearer ")
        form = await request.form() if api else await checked_form(request, caller)
        if form is None:
            return forbidden(request, caller, "The form expired or came from another site; reload the page.")
        action = request.path_params["action"]
        message, token = await run_in_threadpool(_admin, contest, action, dict(form))
        if api:
            return JSONResponse({"message": message} | ({"token": token} if token else {}))
        if token:  # shown once, never stored
            return render(request, "message.html", caller, title="Entrant added",
                          message=message, token=token)
        return render(request, "message.html", caller, title="Done", message=message, back="/admin")

    async def export(request: Request) -> Response:
        caller = contest.caller(request)
        if not caller.admin:
            return JSONResponse({"error": "only the admin may export"}, status_code=403)
        data = await run_in_threadpool(_export, contest)
        return JSONResponse(data, headers={"Content-Disposition": "attachment; filename=contest-export.json"})

    async def live_js(request: Request) -> Response:
        return PlainTextResponse((TEMPLATES / "live.js").read_text(), media_type="text/javascript")

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if contest.start_engine:
            contest.engine.start()
        yield
        contest.engine.stop_event.set()
        if contest.start_engine:
            await run_in_threadpool(contest.engine.stop)

    routes = [
        Route("/", home), Route("/api/leaderboard", api_leaderboard), Route("/entrants/{name}", entrant_page),
        Route("/games/{number:int}", game_page), Route("/finals", finals_page), Route("/health", health),
        Route("/events", events), Route("/login", login_page), Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]), Route("/submit", form_submit, methods=["POST"]),
        Route("/api/submissions", api_submit, methods=["POST"]), Route("/api/submissions", api_submissions),
        Route("/api/submissions/{number:int}", api_submission), Route("/submissions/{number:int}", submission_log),
        Route("/api/games", api_games), Route("/scrimmage", scrimmage, methods=["POST"]),
        Route("/api/scrimmages", scrimmage, methods=["POST"]), Route("/admin", admin_page),
        Route("/admin/export", export), Route("/admin/{action}", admin_action, methods=["POST"]),
        Route("/static/live.js", live_js),
        Route("/favicon.ico", lambda request: Response(status_code=204)),  # browsers ask; there is none
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.contest = contest
    return app


def ago(stamp: float) -> str:
    """How long ago a time was, in the largest whole unit ("never" for 0)."""
    if not stamp:
        return "never"
    seconds = max(0, int(time.time() - stamp))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"


def check_private(config: ServerConfig) -> None:
    """ConfigError when the server's directory lies where sandboxed bots can read (tokens, database, code)."""
    from arena.launch.sandbox import python_paths
    from arena.tournament.config import ConfigError

    state = str(config.directory.resolve())
    for shown in python_paths():
        if state == shown or state.startswith(shown.rstrip("/") + "/"):
            raise ConfigError(f"{config.source}: directory: {state} is inside {shown}, which every bot may read; "
                              "choose a directory outside the Python installation and the arena's packages")


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def _viewer_page(path: Path, seats: list[int]) -> str:
    """The viewer page of a game, with the bots' output of the caller's own seats only."""
    from arena.logs.matchlog import read_log
    from arena.viewer.frames import match_data
    from arena.viewer.page import match_page

    data = match_data(read_log(path))
    data["output"] = {seat: text for seat, text in data["output"].items() if int(seat) in seats}
    return match_page(data)


def _scrimmage(contest: Contest, caller: Caller, opponent: Any) -> tuple[str, int]:
    """Queue an unrated game of the caller's active version against a chosen one; (error, game id)."""
    limit = contest.config.ladder.scrimmages_per_hour
    asked = contest.db.value("SELECT COUNT(*) FROM games WHERE kind = ? AND requested_by = ? AND created > ?",
                             GameKind.SCRIMMAGE, caller.entrant, now() - 3600)
    if asked >= limit:
        return f"at most {limit} test games per hour; try again later", 0
    mine = contest.db.value("SELECT id FROM submissions WHERE entrant = ? AND status = ? ORDER BY version DESC",
                            caller.entrant, Status.ACTIVE)
    if mine is None:
        return "you have no version on the ladder yet", 0
    try:
        other = int(opponent)
    except (TypeError, ValueError):
        return "opponent: give the id of an active version (see the leaderboard)", 0
    if contest.db.value("SELECT status FROM submissions WHERE id = ?", other) != Status.ACTIVE or other == mine:
        return f"opponent {other}: not an active version of another entrant", 0
    return "", contest.db.execute("INSERT INTO games (kind, a, b, setup, seed, status, created, requested_by, "
                                  "conditions) VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?)", GameKind.SCRIMMAGE, mine, other,
                                  int(now() * 1000) % 2**31, GameStatus.QUEUED, now(), caller.entrant,
                                  conditions(contest.config, 0))


def add_entrant(db: Database, name: str) -> str:
    """Create an entrant; its token (shown once, stored hashed). AuthError for a bad or taken name."""
    if not NAME.fullmatch(name) or name == "house":
        raise AuthError(f"entrant name {name!r}: use letters, digits, '.', '_' or '-' (not 'house')")
    if db.value("SELECT id FROM entrants WHERE name = ?", name) is not None:
        raise AuthError(f"there is already an entrant named {name!r}")
    token = new_token()
    db.execute("INSERT INTO entrants (name, token_hash, created) VALUES (?, ?, ?)", name, token_hash(token), now())
    return token


def _admin(contest: Contest, action: str, form: dict[str, Any]) -> tuple[str, str]:
    """Carry out an admin action; (message, new token or "")."""
    db = contest.db
    name = str(form.get("name", "")).strip()
    if action == "entrants":
        try:
            return f"Entrant {name} added. Give them this token; it is not shown again.", add_entrant(db, name)
        except AuthError as exc:
            return str(exc), ""
    if action == "freeze":
        db.set_setting("frozen", "1")
        return "Submissions are closed.", ""
    if action == "unfreeze":
        db.set_setting("frozen", "0")
        return "Submissions are open again.", ""
    if action == "finals":
        if db.setting("finals") == "running":
            return "The finals are already running.", ""
        if db.setting("frozen") != "1":
            return "Freeze submissions first: the finals play each entrant's latest version.", ""
        try:
            bots = freeze_field(contest.config, db)
        except FinalsError as exc:
            return str(exc), ""
        db.set_setting("finals_error", "")
        db.set_setting("finals", "running")
        return f"The finals started with {len(bots)} entrants; the ladder pauses until they end.", ""
    if action in ("disqualify", "reinstate"):
        entrant = db.row("SELECT id FROM entrants WHERE name = ? AND house = 0", name)
        if entrant is None:
            return f"no entrant named {name!r}", ""
        with db.transaction() as tx:
            tx.execute("UPDATE entrants SET disabled = ? WHERE id = ?", (int(action == "disqualify"), entrant.id))
            if action == "disqualify":
                tx.execute("UPDATE submissions SET status = ?, detail = 'disqualified by the admin', updated = ? "
                           "WHERE entrant = ? AND status = ?", (Status.DISABLED, now(), entrant.id, Status.ACTIVE))
        return f"{name} is {'disqualified' if action == 'disqualify' else 'reinstated'}.", ""
    return f"unknown action {action!r}", ""


def _export(contest: Contest) -> dict[str, Any]:
    """Everything public about the contest, for publication (no tokens, no logs of builds)."""
    db = contest.db
    return {"contest": contest.config.tournament.name, "game": contest.config.game, "exported": now(),
            "leaderboard": contest.leaderboard(),
            "entrants": [r.data for r in db.rows("SELECT id, name, created, house, disabled FROM entrants")],
            "submissions": [r.data for r in db.rows(
                "SELECT id, entrant, version, filename, language, status, detail, created, mu, sigma, games, errors "
                "FROM submissions")],
            "games": contest.games(limit=10**9), "finals": db.setting("finals") or "none"}
