"""Remote entrants' routes: register a public key (API or form), and the server's key to connect with."""

from __future__ import annotations

import json

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.web.auth import Caller
from arena.server.engine.intake import QuotaError
from arena.server.engine.remotes import RemoteRefused, accept_key, server_public
from arena.server.web.site import Site, site

MAX_KEY_BYTES = 4096  # a NAME.key file is about 300 bytes


def server_info(web: Site) -> dict[str, object]:
    """What a remote bot needs to connect: the endpoint and the server's public key (or that none may)."""
    remote = web.config.remote
    if not remote.allowed:
        return {"allowed": False}
    return {"allowed": True, "listen": remote.listen, "server_key": server_public(web.config),
            "network_grace_ms": remote.network_grace_ms, "finals": remote.finals}


async def register(web: Site, caller: Caller, text: object) -> tuple[int, str, int]:
    """(submission id, "", 201) or (0, the error, its HTTP status)."""
    if not isinstance(text, str) or not text.strip():
        return 0, "no key: send the content of NAME.key as 'key'", 422
    entrant = web.contest.entrant(caller.entrant)
    try:
        return await run_in_threadpool(accept_key, web.config, web.contest.db, entrant, text), "", 201
    except RemoteRefused as exc:
        return 0, str(exc), 403 if not web.config.remote.allowed else 422
    except QuotaError as exc:
        return 0, str(exc), 403


async def api_remote(request: Request) -> Response:
    """GET /api/remote: where and with which server key remote bots connect; POST: register a public key (a token)."""
    web = site(request)
    if request.method == "GET":
        return JSONResponse(server_info(web))
    contest = web.contest
    caller = contest.caller(request, session=False)
    if caller.entrant is None:
        return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
    body = (await request.body())[:MAX_KEY_BYTES + 1]
    if len(body) > MAX_KEY_BYTES:
        return JSONResponse({"error": f"over {MAX_KEY_BYTES} bytes: send NAME.key, the public key"}, status_code=413)
    text: object = body.decode("utf-8", errors="replace")
    if request.headers.get("content-type", "").startswith("application/json"):
        try:
            text = json.loads(body).get("key")
        except (ValueError, AttributeError):
            return JSONResponse({"error": "send JSON: {\"key\": \"...\"} or the NAME.key file as the body"},
                                status_code=422)
    number, error, status = await register(web, caller, text)
    if error:
        return JSONResponse({"error": error}, status_code=status)
    return JSONResponse(contest.submission_data(contest.submission(number), True), status_code=201,
                        headers={"Location": f"/api/submissions/{number}"})


async def form_remote(request: Request) -> Response:
    """POST /remote: register a public key from the entrant's page."""
    web = site(request)
    caller = web.contest.caller(request)
    if caller.entrant is None:
        return RedirectResponse("/login", status_code=303)
    form = await web.checked_form(request, caller)
    if form is None:
        return web.forbidden(request, caller)
    _, error, status = await register(web, caller, form.get("key"))
    if error:
        return web.render(request, "message.html", caller, status, title="Not accepted", message=error)
    return RedirectResponse(f"/entrants/{caller.name}", status_code=303)


ROUTES = [
    Route("/api/remote", api_remote, methods=["GET", "POST"]), Route("/remote", form_remote, methods=["POST"]),
]
