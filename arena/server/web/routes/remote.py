"""Remote entrants' routes: register a public key (API or form), and the server's key to connect with."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.server.engine.remotes import RemoteRefused, accept_key, server_public
from arena.server.web.auth import Caller
from arena.server.web.routes.versions import Made, api_version, form_version, new_version
from arena.server.web.site import Site, site

MAX_KEY_BYTES = 4096  # a NAME.key file is about 300 bytes


def server_info(web: Site) -> dict[str, object]:
    """What a remote bot needs to connect: the endpoint and the server's public key (or that none may)."""
    remote = web.config.remote
    if not remote.allowed:
        return {"allowed": False}
    return {"allowed": True, "listen": remote.listen, "server_key": server_public(web.config),
            "network_grace_ms": remote.network_grace_ms, "finals": remote.finals}


async def register(web: Site, caller: Caller, text: object) -> Made:
    """The public key registered as a new version, or why not."""
    if not isinstance(text, str) or not text.strip():
        return 0, "no key: send the content of NAME.key as 'key'", 422
    key, config, contest = text, web.config, web.contest
    entrant = contest.entrant(caller.entrant)
    return await new_version(lambda: accept_key(config, contest.db, entrant, key), RemoteRefused,
                             lambda exc: 403 if not config.remote.allowed else 422)


async def read_api_key(web: Site, request: Request) -> Any:
    """The key: the body (NAME.key itself) or JSON's "key"; a Response when it is too long or not JSON."""
    body = (await request.body())[:MAX_KEY_BYTES + 1]
    if len(body) > MAX_KEY_BYTES:
        return JSONResponse({"error": f"over {MAX_KEY_BYTES} bytes: send NAME.key, the public key"}, status_code=413)
    if not request.headers.get("content-type", "").startswith("application/json"):
        return body.decode("utf-8", errors="replace")
    try:
        return json.loads(body).get("key")
    except (ValueError, AttributeError):
        return JSONResponse({"error": "send JSON: {\"key\": \"...\"} or the NAME.key file as the body"},
                            status_code=422)


async def api_remote(request: Request) -> Response:
    """GET /api/remote: where and with which server key remote bots connect; POST: register a public key (a token)."""
    if request.method == "GET":
        return JSONResponse(server_info(site(request)))
    return await api_version(request, read_api_key, register)


async def form_remote(request: Request) -> Response:
    """POST /remote: register a public key from the entrant's page."""
    return await form_version(request, "key", register)


ROUTES = [
    Route("/api/remote", api_remote, methods=["GET", "POST"]), Route("/remote", form_remote, methods=["POST"]),
]
