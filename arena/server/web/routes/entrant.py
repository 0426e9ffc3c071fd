"""What an entrant does: upload a bot (form or API) and ask for a test game."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.web import actions
from arena.server.web.auth import Caller
from arena.server.engine.intake import QuotaError, accept_upload
from arena.server.uploads.sources import SubmissionError
from arena.server.web.site import Site, bearer, site


def too_large(web: Site, request: Request) -> bool:
    """True when the request says it is larger than an upload may be."""
    length = request.headers.get("content-length")
    return length is not None and length.isdigit() and int(length) > web.config.uploads.max_bytes + 65536


async def take_upload(web: Site, caller: Caller, upload: Any) -> tuple[int, str, int]:
    """(submission id, "", 201) or (0, the error, its HTTP status)."""
    if not isinstance(upload, UploadFile) or not upload.filename:
        return 0, "no file: send the bot as the multipart field 'file'", 422
    config, contest = web.config, web.contest
    data = await upload.read(config.uploads.max_bytes + 1)
    entrant = contest.entrant(caller.entrant)
    try:
        return await run_in_threadpool(accept_upload, config, contest.db, entrant, upload.filename, data), "", 201
    except SubmissionError as exc:
        return 0, str(exc), exc.status
    except QuotaError as exc:
        return 0, str(exc), 403


async def api_submit(request: Request) -> Response:
    """POST /api/submissions: a new version, from the multipart field 'file' (a bearer token's entrant only)."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request, session=False)
    if caller.entrant is None:
        return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
    if too_large(web, request):
        return JSONResponse({"error": f"over the upload limit of {web.config.uploads.max_bytes} bytes"},
                            status_code=413)
    form = await request.form(max_files=1, max_fields=5, max_part_size=web.config.uploads.max_bytes + 1)
    number, error, status = await take_upload(web, caller, form.get("file"))
    if error:
        return JSONResponse({"error": error}, status_code=status)
    row = contest.submission(number)
    return JSONResponse(contest.submission_data(row, True), status_code=201,
                        headers={"Location": f"/api/submissions/{number}"})


async def form_submit(request: Request) -> Response:
    """POST /submit: a new version, from the entrant's page."""
    web = site(request)
    caller = web.contest.caller(request)
    if caller.entrant is None:
        return RedirectResponse("/login", status_code=303)
    if too_large(web, request):
        return web.render(request, "message.html", caller, 413, title="Too large",
                          message=f"Uploads are limited to {web.config.uploads.max_bytes} bytes.")
    form = await web.checked_form(request, caller)
    if form is None:
        return web.forbidden(request, caller)
    _, error, status = await take_upload(web, caller, form.get("file"))
    if error:
        return web.render(request, "message.html", caller, status, title="Not accepted", message=error)
    return RedirectResponse(f"/entrants/{caller.name}", status_code=303)


async def scrimmage(request: Request) -> Response:
    """A test game against a chosen version: JSON from the API (a bearer token), a form from the page (CSRF)."""
    web = site(request)
    contest = web.contest
    api = bearer(request) or request.url.path.startswith("/api/")
    caller = contest.caller(request, session=not api)
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
        form = await web.checked_form(request, caller)
        if form is None:
            return web.forbidden(request, caller)
        opponent = form.get("opponent")
    error, number = await run_in_threadpool(actions.scrimmage, contest, caller, opponent)
    if api:
        return JSONResponse({"error": error} if error else {"game": number}, status_code=422 if error else 201)
    if error:
        return web.render(request, "message.html", caller, 422, title="Not accepted", message=error)
    return RedirectResponse(f"/entrants/{caller.name}", status_code=303)


ROUTES = [
    Route("/submit", form_submit, methods=["POST"]), Route("/api/submissions", api_submit, methods=["POST"]),
    Route("/scrimmage", scrimmage, methods=["POST"]), Route("/api/scrimmages", scrimmage, methods=["POST"]),
]
