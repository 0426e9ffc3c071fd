"""Requests from other sites refused: a state-changing request a browser sent from a page of another origin gets 403.

A browser attaches the session cookie to a request another site's page makes (a form posted
to the server, a `fetch()` with credentials): `SameSite=Strict` keeps it from other sites,
but a page on another port or subdomain of the same site is the same *site*. What tells the
server where a request came from is what the browser adds and a page cannot set:
`Sec-Fetch-Site`, `Origin`, and in old browsers only `Referer`. Every request that is not
a GET, HEAD or OPTIONS is refused here, before any handler, when

- `Sec-Fetch-Site` is there and is neither `same-origin` nor `none` (a typed address), or
- `Origin` is there and is not the server's own (`null` included), or
- there is no `Origin` and `Referer` names another origin.

A request with none of them comes from no browser (a script with its bearer token) or from
one too old to say; the form's CSRF token still guards the session. The server's own origin
is the scheme and `Host` of the request (the scheme as a trusted proxy says), or one of
`server.trusted_origins` when a reverse proxy rewrites `Host`. Go's `CrossOriginProtection`
decides alike, but lets `Sec-Fetch-Site: same-origin` pass whatever `Origin` says; here both
must agree, so a proxy that rewrites `Host` is named in the refusal instead of being missed.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from arena.server.state.config import origin_of
from arena.server.web.auth import Caller
from arena.server.web.site import site, wants_json

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME = frozenset({"same-origin", "none"})  # Sec-Fetch-Site values of a request this server's own page made


def own_origins(request: Request, trusted: tuple[str, ...]) -> set[str]:
    """The origins the server's own pages have: the request's scheme and Host, and the trusted ones."""
    host = request.headers.get("host", "")
    own = origin_of(f"{request.url.scheme}://{host}") if host else None
    return set(trusted) | ({own} if own else set())


def cross_origin(request: Request, trusted: tuple[str, ...]) -> str:
    """Why the request came from a page of another origin ("" when it did not, or says nothing of it)."""
    headers = request.headers
    fetch_site = headers.get("sec-fetch-site")
    if fetch_site is not None and fetch_site.strip().lower() not in SAME:
        return f"it was sent from a page of another origin (Sec-Fetch-Site: {fetch_site[:40]})"
    ours = own_origins(request, trusted)
    expected = " or ".join(sorted(ours)) or "none (the request names no Host)"
    origin = headers.get("origin")
    if origin is not None:
        if origin_of(origin) in ours:
            return ""
        return f"it was sent from a page of {origin[:100]!r}, not of this server ({expected})"
    referer = headers.get("referer")
    if referer and origin_of(referer) not in ours:
        return f"it was sent from a page of {(origin_of(referer) or referer)[:100]!r}, not of this server ({expected})"
    return ""


class CrossOriginMiddleware:
    """Answers 403 to a state-changing request from another origin, before any handler reads it."""

    def __init__(self, app: Any, trusted_origins: tuple[str, ...] = ()) -> None:
        self.app = app
        self.trusted = tuple(origin_of(origin) or origin for origin in trusted_origins)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        why = cross_origin(request, self.trusted)
        if not why:
            await self.app(scope, receive, send)
            return
        site(request).contest.cross_origin_refused += 1
        await refusal(request, why)(scope, receive, send)


def refusal(request: Request, why: str) -> Response:
    """403, in one line: JSON for the API, a page for a browser."""
    message = (f"Refused: {why}. Changes are made from this server's own pages (or with a bearer token); behind a "
               "reverse proxy, it must pass Host on and be in server.trusted_proxies (for its X-Forwarded-Proto), "
               "or the site's address be in server.trusted_origins.")
    if wants_json(request) or request.headers.get("authorization"):
        return JSONResponse({"error": message}, status_code=403)
    return site(request).render(request, "message.html", Caller(), 403, title="Refused", message=message)
