"""A new version from the API or the entrant's page, answered alike: uploads' and remote keys'."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from arena.server.engine.intake import QuotaError
from arena.server.web.auth import Caller
from arena.server.web.site import Site, site

Made = tuple[int, str, int]  # (submission id, "", 201) or (0, why not, its HTTP status)
# what was sent -> the new version, or why not
Make = Callable[[Site, Caller, Any], Awaitable[Made]]
# the API's request -> what was sent, or a Response refusing it
Read = Callable[[Site, Request], Awaitable[Any]]
# a form refused before it is read, or None
Check = Callable[[Site, Request, Caller], "Response | None"]
Refusal = TypeVar("Refusal", bound=Exception)


async def new_version(
    make: Callable[[], int], refused: type[Refusal], status: Callable[[Refusal], int]
) -> Made:
    """Runs make (it stores the version) in a worker thread; a refusal or spent quota: a status."""
    try:
        return await run_in_threadpool(make), "", 201
    except QuotaError as exc:
        return 0, str(exc), 403
    except refused as exc:
        return 0, str(exc), status(exc)


async def api_version(request: Request, read: Read, make: Make) -> Response:
    """A new version over the API (a bearer token's entrant): 201 and its Location, or why not."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request, session=False)
    if caller.entrant is None:
        return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
    sent = await read(web, request)
    if isinstance(sent, Response):
        return sent
    number, error, status = await make(web, caller, sent)
    if error:
        return JSONResponse({"error": error}, status_code=status)
    return JSONResponse(
        contest.submission_data(contest.submission(number), True),
        status_code=201,
        headers={"Location": f"/api/submissions/{number}"},
    )


async def form_version(
    request: Request, field: str, make: Make, check: Check | None = None
) -> Response:
    """A new version from the entrant's page (a session and its CSRF token), sent as field."""
    web = site(request)
    caller = web.contest.caller(request)
    if caller.entrant is None:
        return RedirectResponse("/login", status_code=303)
    refusal = check(web, request, caller) if check else None
    if refusal is not None:
        return refusal
    form = await web.checked_form(request, caller)
    if form is None:
        return web.forbidden(request, caller)
    _, error, status = await make(web, caller, form.get(field))
    return back_to_page(web, request, caller, error, status)


def back_to_page(web: Site, request: Request, caller: Caller, error: str, status: int) -> Response:
    """After a form of the entrant's page: back to that page, or a page saying why not."""
    if error:
        return web.render(
            request, "message.html", caller, status, title="Not accepted", message=error
        )
    return RedirectResponse(f"/entrants/{caller.name}", status_code=303)
