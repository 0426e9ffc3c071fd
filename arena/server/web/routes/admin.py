"""The admin's pages: entrants and the queue, actions, the export, the integrity check, the metrics."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.integrity.model import ELO_PER_LOGIT
from arena.integrity.records import IntegrityError
from arena.server.engine.finals import finals_summary
from arena.server.state.eventlog import RECENT_EVENTS
from arena.server.web import actions, metrics
from arena.server.web.net import from_this_machine
from arena.server.web.site import bearer, site, wants_json

EVENTS_SHOWN = 50  # the latest events on the admin page


async def admin_page(request: Request) -> Response:
    """Entrants, the queue, the finals and the ladder's state."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    if not caller.admin:
        return RedirectResponse("/login", status_code=303)
    finals = await run_in_threadpool(finals_summary, web.config, contest.db)
    return web.render(request, "admin.html", caller, entrants=contest.entrants_overview(), queue=contest.queue(),
                      finals=finals["state"], finals_error=finals.get("error", ""), finals_summary=finals,
                      paused=contest.db.setting("paused") == "1", ladder_error=contest.engine.error,
                      events=RECENT_EVENTS.latest(EVENTS_SHOWN))


async def admin_action(request: Request) -> Response:
    """POST /admin/ACTION, from the admin page's forms or the API."""
    web = site(request)
    caller = web.contest.caller(request)
    if not caller.admin:
        return web.forbidden(request, caller, "Only the admin may do this.")
    api = bearer(request)
    form = await request.form() if api else await web.checked_form(request, caller)
    if form is None:
        return web.forbidden(request, caller)
    action = request.path_params["action"]
    answer = await run_in_threadpool(actions.admin_action, web.contest, action, dict(form))
    if api:
        return JSONResponse({"message": answer.message, "ok": answer.ok} | ({"token": answer.token} if answer.token
                                                                             else {}))
    if answer.token:  # shown once, never stored
        return web.render(request, "message.html", caller, title="Entrant added",
                          message=answer.message, token=answer.token)
    return web.render(request, "message.html", caller, title="Done" if answer.ok else "Not done",
                      message=answer.message, back="/admin")


async def export(request: Request) -> Response:
    """The whole contest as one JSON file."""
    contest = site(request).contest
    caller = contest.caller(request)
    if not caller.admin:
        return JSONResponse({"error": "only the admin may export"}, status_code=403)
    data = await run_in_threadpool(actions.export, contest)
    return JSONResponse(data, headers={"Content-Disposition": "attachment; filename=contest-export.json"})


async def integrity_page(request: Request) -> Response:
    """The collusion check of the contest: pairs whose results against each other the rest do not explain."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    if not caller.admin:
        if wants_json(request):
            return JSONResponse({"error": "only the admin may see the integrity check"}, status_code=403)
        return RedirectResponse("/login", status_code=303)
    try:
        reports, error = await run_in_threadpool(contest.integrity), ""
    except IntegrityError as exc:
        reports, error = [], str(exc)
    if wants_json(request):
        return JSONResponse({"reports": [r.to_data() for r in reports], "flagged": sum(len(r.flagged) for r in reports),
                             "error": error})
    return web.render(request, "integrity.html", caller, reports=reports, error=error, elo=ELO_PER_LOGIT)


async def metrics_page(request: Request) -> Response:
    """The metrics, for the admin or a scraper on the server's own machine."""
    web = site(request)
    caller = web.contest.caller(request)
    if not (caller.admin or from_this_machine(request, web.config.trusted_proxies)):
        return PlainTextResponse("metrics: send the admin's token, or ask from the server's own machine\n",
                                 status_code=403)
    text = await run_in_threadpool(metrics.render, web.contest)
    return Response(text, media_type=metrics.CONTENT_TYPE)


ROUTES = [
    Route("/admin", admin_page), Route("/admin/export", export), Route("/admin/integrity", integrity_page),
    Route("/admin/{action}", admin_action, methods=["POST"]), Route("/metrics", metrics_page),
]
