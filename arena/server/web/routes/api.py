"""The JSON API's readings: the leaderboard, games, an entrant's submissions."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.server.web.site import site


async def api_leaderboard(request: Request) -> Response:
    """The leaderboard as JSON."""
    return JSONResponse(site(request).contest.leaderboard())


async def api_games(request: Request) -> Response:
    """Recent games, of one version with ?submission=ID."""
    contest = site(request).contest
    caller = contest.caller(request)
    version = request.query_params.get("submission", "")
    if version.isdigit():
        return JSONResponse(contest.games(caller, "(g.a = ? OR g.b = ?)", int(version), int(version), limit=200))
    return JSONResponse(contest.games(caller, limit=200))


async def api_submission(request: Request) -> Response:
    """One of the caller's submissions, with its logs."""
    contest = site(request).contest
    caller = contest.caller(request)
    row = contest.submission(request.path_params["number"])
    if row is None or not contest.owns(caller, row.entrant):
        return JSONResponse({"error": "no such submission"}, status_code=404)
    return JSONResponse(contest.submission_data(row, True))


async def api_submissions(request: Request) -> Response:
    """Every submission of the caller."""
    contest = site(request).contest
    caller = contest.caller(request)
    if caller.entrant is None:
        return JSONResponse({"error": contest.no_entrant(request, caller)}, status_code=401)
    return JSONResponse([contest.submission_data(row, True) for row in contest.versions(caller.entrant)])


ROUTES = [
    Route("/api/leaderboard", api_leaderboard), Route("/api/submissions", api_submissions),
    Route("/api/submissions/{number:int}", api_submission), Route("/api/games", api_games),
]
