"""What every page handler shares: the contest, the templates, rendering, CSRF checks, refusals.

Handlers find it as `site(request)`: the application keeps one `Site` in its state.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.templating import Jinja2Templates

from arena.server.state.config import ServerConfig
from arena.server.web.auth import SESSION_COOKIE, Caller
from arena.server.web.contest import Contest

TEMPLATES = Path(__file__).with_name("templates")
PRESESSION_COOKIE = "arena_form"  # a visitor's random seed for the login form's CSRF token
PAGE_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:"
# A page that differs by viewer (its owner sees the bots' output) is never kept by a shared cache.
PRIVATE_HEADERS = {"Cache-Control": "private, no-store", "Vary": "Authorization, Cookie"}
EXPIRED = "The form expired or came from another site; reload the page."


class Site:
    """The contest and its templates, with the helpers every handler uses."""

    def __init__(self, contest: Contest) -> None:
        import jinja2

        self.contest = contest
        self.config: ServerConfig = contest.config
        # Autoescape everything: names, logs and details are written by entrants.
        environment = jinja2.Environment(loader=jinja2.FileSystemLoader(str(TEMPLATES)), autoescape=True)
        environment.filters["ago"] = ago
        self.templates = Jinja2Templates(env=environment)

    def render(self, request: Request, name: str, caller: Caller, status: int = 200, **context: Any) -> Response:
        """A template as a page, with the caller, the form's CSRF token and the contest's state."""
        seed = self.csrf_seed(request, caller)
        fresh = not seed
        if fresh:  # a visitor without a session gets a random seed of its own for the login form
            seed = secrets.token_urlsafe(24)
        contest, config = self.contest, self.config
        context |= {"caller": caller, "csrf": contest.keys.csrf(seed), "contest": config.tournament.name,
                    "game": config.game, "frozen": contest.db.setting("frozen") == "1"}
        response = self.templates.TemplateResponse(request, name, context, status_code=status)
        response.headers["Content-Security-Policy"] = PAGE_CSP
        if fresh:
            response.set_cookie(PRESESSION_COOKIE, seed, httponly=True, samesite="strict",
                                secure=self.secure(request))
        return response

    def secure(self, request: Request) -> bool:
        """Whether cookies set on this request are marked Secure."""
        return self.config.secure_cookies or request.url.scheme == "https"

    def csrf_seed(self, request: Request, caller: Caller) -> str:
        """What a form's CSRF token is derived from: the session, else the visitor's pre-session cookie."""
        if caller.known and request.cookies.get(SESSION_COOKIE):
            return request.cookies[SESSION_COOKIE]
        return request.cookies.get(PRESESSION_COOKIE, "")

    def not_found(self, request: Request, caller: Caller, what: str = "page") -> Response:
        """404: JSON for the API, a page for a browser."""
        if wants_json(request):
            return JSONResponse({"error": f"no such {what}"}, status_code=404)
        return self.render(request, "message.html", caller, 404, title="Not found", message=f"There is no such {what}.")

    async def checked_form(self, request: Request, caller: Caller) -> Any:
        """The form of a POST from the browser, after its CSRF check (None: refused)."""
        form = await request.form(max_files=1, max_fields=20, max_part_size=self.config.uploads.max_bytes + 1)
        sent = form.get("csrf", "")
        seed = self.csrf_seed(request, caller)
        if not seed or not isinstance(sent, str) or not self.contest.keys.check_csrf(seed, sent):
            return None
        return form

    def forbidden(self, request: Request, caller: Caller, message: str = EXPIRED) -> Response:
        """403 as a page."""
        return self.render(request, "message.html", caller, 403, title="Refused", message=message)


def site(request: Request) -> Site:
    """The site of the application that serves the request."""
    return request.app.state.site  # type: ignore[no-any-return]


def wants_json(request: Request) -> bool:
    """True for the API's paths and for clients that ask for JSON."""
    return request.url.path.startswith("/api/") or "application/json" in request.headers.get("accept", "")


def bearer(request: Request) -> bool:
    """True when the request carries a bearer token (the API), not a session cookie (a browser)."""
    return request.headers.get("authorization", "").lower().startswith("bearer ")


def ago(stamp: float) -> str:
    """How long ago a time was, in the largest whole unit ("never" for 0)."""
    if not stamp:
        return "never"
    seconds = max(0, int(time.time() - stamp))
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{seconds // size} {unit} ago"
    return f"{seconds} s ago"
