"""The server's web face: server-rendered pages (no JavaScript needed) and the JSON API behind them.

Entrants authenticate with their token: `Authorization: Bearer TOKEN` on the API (its
changes take nothing else), or a login form that sets a signed session cookie (HttpOnly,
SameSite=Strict, Secure behind HTTPS). Every form that changes something carries the
session's CSRF token, and a change sent by a page of another origin is refused (origin.py).
What belongs to an entrant (build logs, validation reports, its bots' output in games) is
shown to that entrant and the admin only; for anyone else such a thing does not exist (404).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.server.state.config import ServerConfig
from arena.server.state.eventlog import tell
from arena.server.web.auth import Caller
from arena.server.web.contest import Contest
from arena.server.web.control import ControlSocket
from arena.server.web.net import ConnectionMiddleware
from arena.server.web.origin import CrossOriginMiddleware
from arena.server.web.ratelimit import RateLimited
from arena.server.web.routes import admin, api, auth, entrant, pages, remote, status
from arena.server.web.site import Site, site, wants_json

ROUTE_MODULES = (pages, api, entrant, remote, auth, admin, status)


def create_app(config: ServerConfig, start_engine: bool = True) -> Starlette:
    """The ASGI application of a contest."""
    contest = Contest(config, start_engine)

    control = ControlSocket(contest)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> Any:
        if contest.start_engine:
            contest.engine.start()
            control.start()
        yield
        contest.engine.stop_event.set()
        if contest.start_engine:
            control.close()
            await run_in_threadpool(contest.engine.stop)
            tell("stop", "the server stopped (the games in flight finished, or wait in the queue)")

    # The connection's own address is kept before a trusted proxy's headers name the client (net.py).
    middleware = [Middleware(ConnectionMiddleware)]
    if config.trusted_proxies:
        from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

        middleware.append(Middleware(ProxyHeadersMiddleware, trusted_hosts=list(config.trusted_proxies)))
    # After the proxy's headers: the scheme it says is part of the server's own origin.
    middleware.append(Middleware(CrossOriginMiddleware, trusted_origins=config.trusted_origins))
    routes = [route for module in ROUTE_MODULES for route in module.ROUTES]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={RateLimited: rate_limited})
    app.state.contest = contest
    app.state.site = Site(contest)
    return app


async def rate_limited(request: Request, exc: Exception) -> Response:
    """429 for a client that sent too many bad tokens: JSON for the API, a page for a browser."""
    assert isinstance(exc, RateLimited)
    headers = {"Retry-After": str(exc.retry_after)}
    if wants_json(request) or request.headers.get("authorization"):
        return JSONResponse({"error": str(exc)}, status_code=429, headers=headers)
    response = site(request).render(request, "message.html", Caller(), 429, title="Too many attempts",
                                    message=str(exc))
    response.headers.update(headers)
    return response
