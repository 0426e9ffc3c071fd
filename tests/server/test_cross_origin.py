"""Cross-site requests on a real `arena serve`, over HTTP: every route that changes something, attacked.

Each state-changing route is sent the request that would succeed (the session cookie, the
form's right CSRF token, a valid body) as a page of another origin would send it, one sign at
a time (a foreign `Origin`, `Origin: null`, another port of the same host, `Sec-Fetch-Site:
cross-site` or `same-site`, a foreign `Referer`): each is answered 403 and changes nothing.
Beside each attack, its control: the same request from the server's own origin succeeds. The
API's changes take a bearer token only; the session cookie without the form's token is
refused whatever the body's content type. tests/server/test_browser_origins.py sends the
same from real pages of other origins in Chromium.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Route

from arena.server.app import ROUTE_MODULES
from arena.server.origin import SAFE_METHODS
from protocol.keys import new_key_pair
from tests.helpers import free_port, require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server

ADMIN_ACTION = "entrants"  # the admin's action the attacks try: adding an entrant (named mallory)


@dataclass
class Session:
    """A logged-in browser's cookie and the CSRF token of its forms."""

    cookie: str
    csrf: str
    cookies: dict[str, str] = field(default_factory=dict)


def form_token(client: httpx.Client, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None, path
    return found.group(1)


def log_in(server: Server, token: str, page: str) -> Session:
    with server.client() as browser:
        answer = browser.post("/login", data={"token": token, "csrf": form_token(browser, "/login")})
        assert answer.status_code == 303, answer.text
        browser.cookies = answer.cookies
        return Session(answer.cookies["arena_session"], form_token(browser, page), dict(browser.cookies))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("origins"), max_games=4)
    server.config.write_text(server.config.read_text()
                             + f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{free_port()}"\n')
    server.add("ada")
    server.start()
    # ada has an active version: her test games are accepted, so an attack on them could succeed.
    number = server.submit("ada", "fewest.py", FEWEST).json()["id"]
    assert server.settled("ada", number)["status"] == "active"
    yield server
    server.stop()


def state(server: Server) -> tuple[Any, ...]:
    """What an attack could change: versions, test games, entrants, the admin's switches."""
    with sqlite3.connect(server.state / "server.db") as db:
        return (db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM games WHERE kind = 'scrimmage'").fetchone()[0],
                db.execute("SELECT COUNT(*) FROM entrants").fetchone()[0],
                sorted(db.execute("SELECT key, value FROM settings WHERE key IN ('frozen', 'paused', 'finals')")))


def public_key(directory: Path, name: str) -> str:
    """A fresh NAME.key for a remote version."""
    directory.mkdir(parents=True, exist_ok=True)
    public, _ = new_key_pair(name, directory)
    return public.read_text()


def opponent(server: Server) -> int:
    """A reference bot's active version, to ask a test game against."""
    board = server.get("/api/leaderboard").json()
    return int(next(row["submission"] for row in board if row["reference"]))


def unsafe_paths() -> list[str]:
    """Every route that takes a method other than GET, HEAD or OPTIONS, as the app declares them."""
    return sorted({route.path.replace("{action}", ADMIN_ACTION) for module in ROUTE_MODULES
                   for route in module.ROUTES if isinstance(route, Route) and set(route.methods or ()) - SAFE_METHODS})


def succeeding(server: Server, path: str, keys: Path) -> tuple[dict[str, Any], dict[str, str]]:
    """The request that changes something at path (httpx arguments, and the cookies a browser would send)."""
    ada = log_in(server, server.tokens["ada"], "/entrants/ada")
    bearer = {"Authorization": f"Bearer {server.tokens['ada']}"}
    if path == "/login":
        with server.client() as browser:
            csrf = form_token(browser, "/login")
            return {"data": {"token": server.tokens["ada"], "csrf": csrf}}, dict(browser.cookies)
    if path == "/logout":
        return {"data": {"csrf": ada.csrf}}, ada.cookies
    if path.startswith("/admin/"):
        admin = log_in(server, server.admin, "/admin")
        return {"data": {"csrf": admin.csrf, "name": "mallory"}}, admin.cookies
    arguments: dict[str, dict[str, Any]] = {
        "/submit": {"data": {"csrf": ada.csrf}, "files": {"file": ("bot.py", FEWEST)}},
        "/remote": {"data": {"csrf": ada.csrf, "key": public_key(keys, "form")}},
        "/scrimmage": {"data": {"csrf": ada.csrf, "opponent": str(opponent(server))}},
        "/api/submissions": {"files": {"file": ("bot.py", FEWEST)}, "headers": bearer},
        "/api/remote": {"content": public_key(keys, "api"), "headers": bearer | {"Content-Type": "text/plain"}},
        "/api/scrimmages": {"json": {"opponent": opponent(server)}, "headers": bearer},
    }
    return arguments[path], ada.cookies


def send(server: Server, path: str, arguments: dict[str, Any], cookies: dict[str, str],
         signs: dict[str, str]) -> httpx.Response:
    with httpx.Client(base_url=server.url, cookies=cookies, timeout=60) as client:
        headers = {**arguments.get("headers", {}), **signs}
        return client.post(path, **{key: value for key, value in arguments.items() if key != "headers"},
                           headers=headers)


def foreign_signs(server: Server) -> list[dict[str, str]]:
    """What a browser adds to a request made by a page of another origin (one sign at a time)."""
    port = int(server.url.rsplit(":", 1)[1])
    return [{"Origin": "http://evil.example"}, {"Origin": "null"},
            {"Origin": f"http://127.0.0.1:{port + 1}"},  # another port of the same host: the same site
            {"Origin": f"http://localhost:{port}"}, {"Origin": f"https://127.0.0.1:{port}"},
            {"Sec-Fetch-Site": "cross-site"}, {"Sec-Fetch-Site": "same-site"},
            {"Referer": "http://evil.example/win.html"},
            {"Sec-Fetch-Site": "same-origin", "Origin": "http://evil.example"}]


def test_every_state_changing_route_is_known_to_these_tests() -> None:
    assert unsafe_paths() == ["/admin/entrants", "/api/remote", "/api/scrimmages", "/api/submissions",
                              "/login", "/logout", "/remote", "/scrimmage", "/submit"]


@pytest.mark.parametrize("path", unsafe_paths())
def test_a_change_sent_from_another_origin_is_refused_and_the_same_from_this_one_is_made(
        served: Server, path: str, tmp_path: Path) -> None:
    arguments, cookies = succeeding(served, path, tmp_path)
    for signs in foreign_signs(served):
        before = state(served)
        answer = send(served, path, arguments, cookies, signs)
        assert answer.status_code == 403, (signs, answer.status_code, answer.text[:300])
        assert "Refused" in answer.text and "arena_session" not in answer.headers.get("set-cookie", "")
        assert state(served) == before, signs
    refused = served.get("/metrics").text
    assert re.search(r"^arena_cross_origin_refused_total [1-9]", refused, re.M)
    # The control: the same request, from a page of the server's own origin.
    before = state(served)
    own = {"Origin": served.url, "Sec-Fetch-Site": "same-origin", "Referer": served.url + "/entrants/ada"}
    answer = send(served, path, arguments, cookies, own)
    assert answer.status_code in (200, 201, 303), (path, answer.status_code, answer.text[:300])
    if path in ("/login", "/logout"):
        assert "arena_session" in answer.headers["set-cookie"]  # set, or removed
    else:
        assert state(served) != before, path


def test_the_issues_cross_site_posts_get_403_and_create_nothing_and_the_bearer_post_still_works(
        served: Server, tmp_path: Path) -> None:
    ada = log_in(served, served.tokens["ada"], "/entrants/ada")
    evil = {"Origin": "http://evil.example"}
    key = public_key(tmp_path, "issue")
    before = state(served)
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", FEWEST)}}, ada.cookies, evil)
    remote = send(served, "/api/remote", {"content": key, "headers": {"Content-Type": "text/plain"}}, ada.cookies, evil)
    assert upload.status_code == remote.status_code == 403, (upload.text, remote.text)
    assert state(served) == before
    # The session alone, without any sign of a page (a browser too old to send one): the API takes tokens only.
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", FEWEST)}}, ada.cookies, {})
    remote = send(served, "/api/remote", {"content": key, "headers": {"Content-Type": "text/plain"}}, ada.cookies, {})
    assert upload.status_code == remote.status_code == 401
    assert "not with a browser's session" in upload.json()["error"]
    assert state(served) == before
    # The bearer token, as scripts send it (no Origin): both work.
    bearer = {"Authorization": f"Bearer {served.tokens['ada']}"}
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", FEWEST)}, "headers": bearer}, {}, {})
    remote = send(served, "/api/remote", {"content": key, "headers": bearer | {"Content-Type": "text/plain"}}, {}, {})
    assert upload.status_code == remote.status_code == 201, (upload.text, remote.text)
    assert state(served)[0] == before[0] + 2


@pytest.mark.parametrize("path", unsafe_paths())
def test_the_session_without_the_forms_token_changes_nothing_whatever_the_content_type(
        served: Server, path: str, tmp_path: Path) -> None:
    arguments, cookies = succeeding(served, path, tmp_path)
    fields = {key: value for key, value in arguments.get("data", {}).items() if key != "csrf"}
    fields.setdefault("key", public_key(tmp_path, "bare"))
    bodies: list[dict[str, Any]] = [
        {"data": fields}, {"data": fields, "files": {"file": ("bot.py", FEWEST)}},
        {"json": fields | {"opponent": opponent(served)}},
        {"content": fields["key"], "headers": {"Content-Type": "text/plain"}},
    ]
    for body in bodies:
        before = state(served)
        answer = send(served, path, body, cookies, {})
        assert answer.status_code in (401, 403), (path, body.keys(), answer.status_code, answer.text[:300])
        assert state(served) == before and "arena_session" not in answer.headers.get("set-cookie", "")


def test_behind_an_https_proxy_the_origin_is_the_one_the_proxy_says(served: Server) -> None:
    ada = log_in(served, served.tokens["ada"], "/entrants/ada")
    host = served.url.split("://", 1)[1]
    form = {"data": {"csrf": ada.csrf, "opponent": str(opponent(served))}}
    proxied = {"X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.5"}  # the config trusts 127.0.0.1
    before = state(served)
    assert send(served, "/scrimmage", form, ada.cookies, proxied | {"Origin": f"http://{host}"}).status_code == 403
    assert state(served) == before
    assert send(served, "/scrimmage", form, ada.cookies, proxied | {"Origin": f"https://{host}"}).status_code == 303
    assert state(served) != before


def test_the_session_cookie_is_same_site_strict(served: Server) -> None:
    with served.client() as browser:
        login = browser.post("/login", data={"token": served.tokens["ada"], "csrf": form_token(browser, "/login")})
    cookie = login.headers["set-cookie"]
    assert "arena_session=" in cookie and "SameSite=strict" in cookie and "HttpOnly" in cookie
    assert "SameSite=strict" in served.get("/login").headers["set-cookie"]  # the login form's seed too
