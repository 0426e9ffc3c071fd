"""What an entrant does: upload a bot (form or API) and ask for a test game."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.engine.intake import accept_upload
from arena.server.uploads.sources import SubmissionError
from arena.server.web import actions
from arena.server.web.auth import Caller
from arena.server.web.routes.versions import (
    Made,
    api_version,
    back_to_page,
    form_version,
    new_version,
)
from arena.server.web.site import Site, bearer, site


def too_large(web: Site, request: Request) -> bool:
    """True when the request says it is larger than an upload may be."""
    length = request.headers.get("content-length")
    return length is not None and length.isdigit() and int(length) > web.config.uploads.max_bytes + 65536


async def take_upload(web: Site, caller: Caller, upload: Any) -> Made:
    """The upload stored as a new version, or why not."""
    if not isinstance(upload, UploadFile) or not upload.filename:
        return 0, "no file: send the bot as the multipart field 'file'", 422
    config, contest = web.config, web.contest
    data = await upload.read(config.uploads.max_bytes + 1)
    entrant = contest.entrant(caller.entrant)
    filename = upload.filename
    return await new_version(lambda: accept_upload(config, contest.db, entrant, filename, data),
                             SubmissionError, lambda exc: exc.status)


async def read_api_upload(web: Site, request: Request) -> Any:
    """The multipart field 'file', or 413 when the request is over the upload limit."""
    if too_large(web, request):
        return JSONResponse({"error": f"over the upload limit of {web.config.uploads.max_bytes} bytes"},
                            status_code=413)
    form = await request.form(max_files=1, max_fields=5, max_part_size=web.config.uploads.max_bytes + 1)
    return form.get("file")


def form_too_large(web: Site, request: Request, caller: Caller) -> Response | None:
    """A page saying the upload is over the limit, or None."""
    if not too_large(web, request):
        return None
    return web.render(request, "message.html", caller, 413, title="Too large",
                      message=f"Uploads are limited to {web.config.uploads.max_bytes} bytes.")


async def api_submit(request: Request) -> Response:
    """POST /api/submissions: a new version, from the multipart field 'file' (a bearer token's entrant only)."""
    return await api_version(request, read_api_upload, take_upload)


async def form_submit(request: Request) -> Response:
    """POST /submit: a new version, from the entrant's page."""
    return await form_version(request, "file", take_upload, form_too_large)


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
    return back_to_page(web, request, caller, error, 422)


ROUTES = [
    Route("/submit", form_submit, methods=["POST"]), Route("/api/submissions", api_submit, methods=["POST"]),
    Route("/scrimmage", scrimmage, methods=["POST"]), Route("/api/scrimmages", scrimmage, methods=["POST"]),
]
