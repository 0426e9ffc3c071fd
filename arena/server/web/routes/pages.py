"""The public pages: the leaderboard, an entrant's page, a game's and a submission's, the finals."""

from __future__ import annotations

import html
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from arena.server.engine.engine import ladder_log, live_log
from arena.server.engine.finals import finals_dir
from arena.server.state.db import GameStatus
from arena.server.uploads.sources import NAME
from arena.server.web.site import PRIVATE_HEADERS, TEMPLATES, Site, site

UNPLAYED = {  # what the page of a game without a replay says, by its status
    GameStatus.QUEUED: "Game {} is queued: it has not been played yet; its replay appears here when it ends.",
    GameStatus.RUNNING: "Game {} is being played; its replay appears here when it ends.",
    GameStatus.VOID: "Game {} was not counted (void): it was not played, or not to its end.",
}


async def home(request: Request) -> Response:
    """The leaderboard and the latest games."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    return web.render(request, "leaderboard.html", caller, board=contest.leaderboard(),
                      games=contest.games(caller, limit=15), finals=contest.db.setting("finals"),
                      ladder_error=contest.engine.error)


def remote_panel(web: Site) -> dict[str, object]:
    """What the entrant's own page says of remote bots."""
    from arena.server.engine.intake import wait_lease
    from arena.server.web.routes.remote import server_info

    info = server_info(web)
    return {**info, "wait_min": round(wait_lease(web.config) / 60)} if info["allowed"] else info


async def entrant_page(request: Request) -> Response:
    """An entrant's versions and games (its logs for itself and the admin)."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    entrant = contest.entrant_named(request.path_params["name"])
    if entrant is None:
        return web.not_found(request, caller, "entrant")
    private = contest.owns(caller, entrant.id)
    rows = contest.versions(entrant.id, newest_first=True)
    versions = [contest.submission_data(row, private) for row in rows]
    games = contest.versions_games(caller, [row.id for row in rows], limit=30)
    opponents = [b for b in contest.leaderboard() if b["entrant"] != entrant.name]
    return web.render(request, "entrant.html", caller, entrant=entrant, versions=versions, games=games,
                      private=private, opponents=opponents, placement=web.config.ladder.placement_games,
                      remote=remote_panel(web) if private else {"allowed": False})


async def game_page(request: Request) -> Response:
    """The viewer of a ladder game, with the private part of the caller's own seats."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    game = contest.game(request.path_params["number"])
    path = ladder_log(web.config, game) if game is not None else None
    if game is not None and path is None and (playing := live_log(web.config, game)) is not None:
        page = await run_in_threadpool(live_page, playing)
        return web.not_found(request, caller, "game") if page is None else HTMLResponse(page, headers=PRIVATE_HEADERS)
    if game is None:
        return web.not_found(request, caller, "game")
    if path is None:  # a game not played (yet): say which
        return web.render(request, "message.html", caller, title=f"Game {game.id}",
                          message=UNPLAYED.get(game.status, "This game has no replay.").format(game.id), back="/")
    seats = contest.own_seats(caller, game)
    return HTMLResponse(await run_in_threadpool(viewer_page, path, seats), headers=PRIVATE_HEADERS)


async def submission_log(request: Request) -> Response:
    """A submission's build and validation logs (its owner and the admin only)."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    row = contest.submission(request.path_params["number"])
    if row is None or not contest.owns(caller, row.entrant):
        return web.not_found(request, caller, "submission")
    return web.render(request, "submission.html", caller, sub=contest.submission_data(row, True))


async def finals_match(request: Request) -> Response:
    """The viewer of one match of the finals, once they are done."""
    web = site(request)
    contest = web.contest
    caller = contest.caller(request)
    name = request.path_params["name"].removesuffix(".html")
    path = finals_dir(web.config) / "logs" / f"{name}.msgpack"
    if contest.db.setting("finals") != "done" or not NAME.fullmatch(name) or not path.is_file():
        return web.not_found(request, caller, "finals match")
    page = await run_in_threadpool(viewer_page, path, None, caller.name if caller.entrant else "",
                                   caller.admin, "../", "finals")
    return HTMLResponse(page, headers=PRIVATE_HEADERS)


async def finals_page(request: Request) -> Response:
    """The finals' report, once they are done, under a line that leads back to the contest."""
    web = site(request)
    caller = web.contest.caller(request)
    report = finals_dir(web.config) / "report.html"
    if web.contest.db.setting("finals") != "done" or not report.is_file():
        return web.render(request, "message.html", caller, 404, title="Finals",
                          message="The finals have not been played yet.")
    text = await run_in_threadpool(report.read_text, "utf-8")
    return HTMLResponse(with_header(text, web.config.tournament.name, caller.admin))


def with_header(page: str, contest: str, admin: bool) -> str:
    """A report page with the contest's header line after its <body> tag: the contest's name, back to the board."""
    name = html.escape(contest)
    links = '<a href="/">leaderboard</a>' + (' · <a href="/admin">admin</a>' if admin else "")
    header = (f'<header id="contest-header" style="display:flex;gap:1rem;align-items:baseline;padding:.6rem 1rem;'
              f'border-bottom:1px solid #ccc;font:15px/1.45 system-ui,sans-serif"><b><a href="/">{name}</a></b>'
              f'<span>finals</span><span style="flex:1"></span>{links}</header>')
    at = page.find(">", page.find("<body")) + 1 if "<body" in page else 0
    return page[:at] + header + page[at:]


async def live_js(request: Request) -> Response:
    """The script that reloads a page when the contest changes."""
    return PlainTextResponse((TEMPLATES / "live.js").read_text(), media_type="text/javascript")


def viewer_page(path: Path, seats: list[int] | None = None, owner: str = "", admin: bool = False,
                back: str = "/", back_label: str = "leaderboard") -> str:
    """The viewer page of a game, with the private part (output, failure detail) of the caller's own seats only.

    seats: the caller's seats; or, for the finals (seats named after entrants), owner: the caller's name.
    """
    from arena.logs.matchlog import read_log
    from arena.viewer.frames import match_data
    from arena.viewer.page import match_page

    log = read_log(path)
    if seats is None:
        seats = [seat for seat, name in enumerate(log.names) if admin or (owner and name == owner)]
    return match_page(match_data(log, shown=set(seats)), back=back, back_label=back_label)


def live_page(path: Path) -> str | None:
    """The page of a game being played, as every seat may see it, for everyone (None: nothing written yet).

    Whoever asks, its owners and the admin included, and whatever the log holds by now: the
    game is not over until its result is recorded, and its seed stays secret till then.
    """
    from arena.logs.matchlog import LogError, read_log
    from arena.viewer.frames import live_data
    from arena.viewer.page import match_page

    try:
        return match_page(live_data(read_log(path)))
    except LogError:  # not even a header yet
        return None


ROUTES = [
    Route("/", home), Route("/entrants/{name}", entrant_page), Route("/games/{number:int}", game_page),
    Route("/finals", lambda request: RedirectResponse("/finals/", status_code=307)),
    Route("/finals/", finals_page), Route("/finals/report_matches/{name}", finals_match),
    Route("/submissions/{number:int}", submission_log), Route("/static/live.js", live_js),
    Route("/favicon.ico", lambda request: Response(status_code=204)),  # browsers ask; there is none
]
