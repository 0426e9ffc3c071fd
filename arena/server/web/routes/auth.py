"""Logging in and out: the login form and the session cookie."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from arena.server.web.auth import SESSION_COOKIE, SESSION_DAYS, Caller
from arena.server.web.site import site


async def login_page(request: Request) -> Response:
    """The login form."""
    web = site(request)
    return web.render(request, "login.html", web.contest.caller(request), error="")


async def login(request: Request) -> Response:
    """A token from the form: a session cookie, and the caller's own page."""
    web = site(request)
    caller = Caller()
    form = await web.checked_form(request, caller)
    if form is None:
        return web.forbidden(request, caller)
    who = web.contest.authenticate(request, str(form.get("token", "")))
    if not who.known:
        return web.render(request, "login.html", caller, 401, error="That token opens nothing.")
    target = "/admin" if who.admin else f"/entrants/{who.name}"
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(SESSION_COOKIE, web.contest.keys.session_cookie(who), max_age=SESSION_DAYS * 86400,
                        httponly=True, samesite="strict", secure=web.secure(request))
    return response


async def logout(request: Request) -> Response:
    """The session cookie removed."""
    web = site(request)
    caller = web.contest.caller(request)
    if await web.checked_form(request, caller) is None:
        return web.forbidden(request, caller)
    response = RedirectResponse("/", status_code=303)
    response.delete_cookie(SESSION_COOKIE, httponly=True, samesite="strict", secure=web.secure(request))
    return response


ROUTES = [
    Route("/login", login_page), Route("/login", login, methods=["POST"]),
    Route("/logout", logout, methods=["POST"]),
]
