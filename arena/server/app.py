"""The server's web face: server-rendered pages (no JavaScript needed) and the JSON API behind them.

Entrants authenticate with their token: `Authorization: Bearer TOKEN` on the API, or a
login form that sets a signed session cookie (HttpOnly, SameSite=Lax, Secure behind
HTTPS). Every form that changes something carries the session's CSRF token. What belongs
to an entrant (build logs, validation reports, its bots' output in games) is shown to that
entrant and the admin only; for anyone else such a thing does not exist (404).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.middleware import Middleware
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

from arena.server import actions, metrics
from arena.server.auth import SESSION_COOKIE, SESSION_DAYS, Caller
from arena.server.config import ServerConfig
from arena.server.contest import Contest
from arena.server.engine import ladder_log
from arena.server.finals import finals_dir
from arena.server.intake import QuotaError, accept_upload
from arena.server.net import ConnectionMiddleware, from_this_machine
from arena.server.ratelimit import RateLimited
from arena.server.sources import NAME, SubmissionError

log = logging.getLogger(__name__)

TEMPLATES = Path(__file__).with_name("templates")
PRESESSION_COOKIE = "arena_form"  # a visitor's random seed for the login form's CSRF token
PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:"
EVENT_POLL_S = 1.0
# A page that differs by viewer (its owner sees the bots' output) is never kept by a shared cache.
PRIVATE_HEADERS = {"Cache-Control": "private, no-store", "Vary": "Authorization, Cookie"}


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
                      games=contest.games(caller, limit=15), finals=contest.db.setting("finals"),
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
        games = contest.games(caller, f"(g.a IN ({marks}) OR g.b IN ({marks}))", *ids, *ids, limit=30)
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
        return HTMLResponse(await run_in_threadpool(_viewer_page, path, seats), headers=PRIVATE_HEADERS)

    async def finals_match(request: Request) -> Response:
        caller = contest.caller(request)
        name = request.path_params["name"].removesuffix(".html")
        path = finals_dir(config) / "logs" / f"{name}.msgpack"
        if contest.db.setting("finals") != "done" or not NAME.fullmatch(name) or not path.is_file():
            return not_found(request, caller, "finals match")
        page = await run_in_threadpool(_viewer_page, path, None, caller.name if caller.entrant else "",
                                       caller.admin, "../", "finals")
        return HTMLResponse(page, headers=PRIVATE_HEADERS)

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
                "frozen": contest.db.setting("frozen") == "1", "paused": contest.db.setting("paused") == "1",
                "finals": contest.db.setting("finals") or "none", **contest.queue()}
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
        who = contest.authenticate(request, str(form.get("token", "")))
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

    async def take_upload(caller: Caller, upload: Any) -> tuple[int, str, int]:
        """(submission id, "", 201) or (0, the error, its HTTP status)."""
        if not isinstance(upload, UploadFile) or not upload.filename:
            return 0, "no file: send the bot as the multipart field 'file'", 422
        data = await upload.read(config.uploads.max_bytes + 1)
        entrant = contest.db.row("SELECT * FROM entrants WHERE id = ?", caller.entrant)
        try:
            return await run_in_threadpool(accept_upload, config, contest.db, entrant, upload.filename, data), "", 201
        except SubmissionError as exc:
            return 0, str(exc), exc.status
        except QuotaError as exc:
            return 0, str(exc), 403

    async def api_submit(request: Request) -> Response:
        caller = contest.caller(request)
        if caller.entrant is None:
            return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
        if too_large(request):
            return JSONResponse({"error": f"over the upload limit of {config.uploads.max_bytes} bytes"},
                                status_code=413)
        form = await request.form(max_files=1, max_fields=5, max_part_size=config.uploads.max_bytes + 1)
        number, error, status = await take_upload(caller, form.get("file"))
        if error:
            return JSONResponse({"error": error}, status_code=status)
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
        _, error, status = await take_upload(caller, form.get("file"))
        if error:
            return render(request, "message.html", caller, status, title="Not accepted", message=error)
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
            return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
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
        caller = contest.caller(request)
        version = request.query_params.get("submission", "")
        if version.isdigit():
            return JSONResponse(contest.games(caller, "(g.a = ? OR g.b = ?)", int(version), int(version), limit=200))
        return JSONResponse(contest.games(caller, limit=200))

    async def scrimmage(request: Request) -> Response:
        caller = contest.caller(request)
        api = request.headers.get("authorization", "").lower().startswith("bearer ")
        if caller.entrant is None:
            return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401) if api else \
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
        error, number = await run_in_threadpool(actions.scrimmage, contest, caller, opponent)
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
                      paused=contest.db.setting("paused") == "1",
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
        message, token = await run_in_threadpool(actions.admin_action, contest, action, dict(form))
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
        data = await run_in_threadpool(actions.export, contest)
        return JSONResponse(data, headers={"Content-Disposition": "attachment; filename=contest-export.json"})

    async def metrics_page(request: Request) -> Response:
        caller = contest.caller(request)
        if not (caller.admin or from_this_machine(request, config.trusted_proxies)):
            return PlainTextResponse("metrics: send the admin's token, or ask from the server's own machine\n",
                                     status_code=403)
        text = await run_in_threadpool(metrics.render, contest)
        return Response(text, media_type=metrics.CONTENT_TYPE)

    async def rate_limited(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RateLimited)
        headers = {"Retry-After": str(exc.retry_after)}
        if _wants_json(request) or request.headers.get("authorization"):
            return JSONResponse({"error": str(exc)}, status_code=429, headers=headers)
        response = render(request, "message.html", Caller(), 429, title="Too many attempts", message=str(exc))
        response.headers.update(headers)
        return response

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
        Route("/games/{number:int}", game_page), Route("/finals", lambda request: RedirectResponse("/finals/", status_code=307)),
        Route("/finals/", finals_page), Route("/finals/report_matches/{name}", finals_match), Route("/health", health),
        Route("/events", events), Route("/login", login_page), Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]), Route("/submit", form_submit, methods=["POST"]),
        Route("/api/submissions", api_submit, methods=["POST"]), Route("/api/submissions", api_submissions),
        Route("/api/submissions/{number:int}", api_submission), Route("/submissions/{number:int}", submission_log),
        Route("/api/games", api_games), Route("/scrimmage", scrimmage, methods=["POST"]),
        Route("/api/scrimmages", scrimmage, methods=["POST"]), Route("/admin", admin_page),
        Route("/admin/export", export), Route("/admin/{action}", admin_action, methods=["POST"]),
        Route("/static/live.js", live_js), Route("/metrics", metrics_page),
        Route("/favicon.ico", lambda request: Response(status_code=204)),  # browsers ask; there is none
    ]
    # The connection's own address is kept before a trusted proxy's headers name the client (net.py).
    middleware = [Middleware(ConnectionMiddleware)]
    if config.trusted_proxies:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        middleware.append(Middleware(ProxyHeadersMiddleware, trusted_hosts=list(config.trusted_proxies)))
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={RateLimited: rate_limited})
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


def _wants_json(request: Request) -> bool:
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def _viewer_page(path: Path, seats: list[int] | None = None, owner: str = "", admin: bool = False,
                 back: str = "/", back_label: str = "leaderboard") -> str:
    """The viewer page of a game, with the private part (output, failure detail) of the caller's own seats only.

    seats: the caller's seats; or, for the finals (seats named after entrants), owner: the caller's name.
    """
    from arena.logs.matchlog import read_log
    from arena.viewer.frames import match_data
    from arena.viewer.page import match_page

    log = read_log(path)
    if seats is None:
        seats = [seat for seat, name in enumerate(log.names) if admin or (owner and name == owner)]
    return match_page(match_data(log, shown=set(seats)), back=back, back_label=back_label)


