"""Cross-site requests on a real `arena serve`: every route that changes something, attacked over HTTP, from Chromium.

Each state-changing route is sent the request that would succeed (the session cookie, the
form's right CSRF token, a valid body) as a page of another origin would send it, one sign at
a time (a foreign `Origin`, `Origin: null`, another port of the same host, `Sec-Fetch-Site:
cross-site` or `same-site`, a foreign `Referer`): each is answered 403 and changes nothing.
Beside each attack, its control: the same request from the server's own origin succeeds. The
API's changes take a bearer token only; the session cookie without the form's token is
refused whatever the body's content type.

Then in headless Chromium: the entrant logs in; a page served by the test on another port of
the same host (the same *site*: the browser sends the session cookie along) and on another
host (another site) posts, with the victim's cookie, what the JSON API and the forms take: a
bot uploaded by `fetch()` and by an HTML form, a remote key, the upload form with the
victim's own CSRF token (as if it had leaked). Every one is answered 403 and no version
appears. Beside them, from the server's own page: the upload form, and `fetch()` with the
bearer token, each make a version. A link from the other site opens the entrant's page
logged out (`SameSite=Strict`); from the same site, logged in.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.routing import Route

from arena.server.web.app import ROUTE_MODULES
from arena.server.web.origin import SAFE_METHODS
from protocol.keys import new_key_pair
from tests.helpers import require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server

# What the attacks and their controls upload: it fails its build at once, so the versions they
# make (counted) play no games on the shared machine.
UNBUILT = b"def broken(:\n"
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
    server = make_server(tmp_path_factory.mktemp("origins"), max_games=4, remote=True)
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
        "/submit": {"data": {"csrf": ada.csrf}, "files": {"file": ("bot.py", UNBUILT)}},
        "/remote": {"data": {"csrf": ada.csrf, "key": public_key(keys, "form")}},
        "/scrimmage": {"data": {"csrf": ada.csrf, "opponent": str(opponent(server))}},
        "/api/submissions": {"files": {"file": ("bot.py", UNBUILT)}, "headers": bearer},
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
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", UNBUILT)}}, ada.cookies, evil)
    remote = send(served, "/api/remote", {"content": key, "headers": {"Content-Type": "text/plain"}}, ada.cookies, evil)
    assert upload.status_code == remote.status_code == 403, (upload.text, remote.text)
    assert state(served) == before
    # The session alone, without any sign of a page (a browser too old to send one): the API takes tokens only.
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", UNBUILT)}}, ada.cookies, {})
    remote = send(served, "/api/remote", {"content": key, "headers": {"Content-Type": "text/plain"}}, ada.cookies, {})
    assert upload.status_code == remote.status_code == 401
    assert "not with a browser's session" in upload.json()["error"]
    assert state(served) == before
    # The bearer token, as scripts send it (no Origin): both work.
    bearer = {"Authorization": f"Bearer {served.tokens['ada']}"}
    upload = send(served, "/api/submissions", {"files": {"file": ("bot.py", UNBUILT)}, "headers": bearer}, {}, {})
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
        {"data": fields}, {"data": fields, "files": {"file": ("bot.py", UNBUILT)}},
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


# --- the same from real pages, in Chromium ------------------------------------------------

ATTACK = """<!doctype html><meta charset="utf-8"><title>free points</title>
<a id="link" href="{server}/entrants/ada">the leaderboard</a>
<form id="form" method="post" action="{server}/api/submissions" enctype="multipart/form-data">
<input type="file" name="file" id="file"></form>
<script>
const SERVER = {server_js}, BOT = {bot}, KEY = {key}, CSRF = {csrf};
function bot() {{ return new File([BOT], "bot.py", {{type: "text/x-python"}}); }}
function post(path, body) {{  // what any page may send another origin without asking: no preflight
  return fetch(SERVER + path, {{method: "POST", mode: "no-cors", credentials: "include", body: body}})
    .then(() => "sent", (error) => String(error));
}}
function upload() {{ const data = new FormData(); data.append("file", bot()); return post("/api/submissions", data); }}
function remote() {{ return post("/api/remote", KEY); }}
function leaked() {{
  const data = new FormData(); data.append("csrf", CSRF); data.append("file", bot()); return post("/submit", data);
}}
function submitForm() {{
  const files = new DataTransfer(); files.items.add(bot());
  document.getElementById("file").files = files.files;
  document.getElementById("form").submit();
}}
</script>
"""


class Pages(BaseHTTPRequestHandler):
    """The other origin's pages: whatever the test put in `pages`, by path."""

    pages: dict[str, str] = {}

    def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
        body = self.pages.get(self.path.split("?")[0], "").encode()
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def elsewhere() -> Iterator[int]:
    """The port of a web server of the attacker's, on this host (http://127.0.0.1:PORT and http://localhost:PORT)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def versions(server: Server) -> int:
    return len(server.get("/api/submissions", server.tokens["ada"]).json())


class Wire:
    """The headers Chromium really sent (Playwright's request headers lack the cookies of a no-cors fetch).

    A redirect is followed under the same request id: each id keeps its URLs and its cookie headers in order.
    """

    def __init__(self, context: Any, page: Any) -> None:
        self.urls: dict[str, list[str]] = {}
        self.cookies: dict[str, list[str]] = {}
        session = context.new_cdp_session(page)
        session.on("Network.requestWillBeSent",
                   lambda e: self.urls.setdefault(e["requestId"], []).append(e["request"]["url"]))
        session.on("Network.requestWillBeSentExtraInfo", lambda e: self.cookies.setdefault(e["requestId"], []).append(
            next((v for k, v in e["headers"].items() if k.lower() == "cookie"), "")))
        session.send("Network.enable")

    def cookie_sent(self, page: Any, url: str) -> bool:
        """Whether the last request to url carried the session cookie (once the browser has told what it sent)."""
        deadline = time.monotonic() + 10
        while True:
            found = [(request, urls.index(url)) for request, urls in self.urls.items() if url in urls]
            if found:
                request, hop = found[-1]
                if len(self.cookies.get(request, [])) > hop:
                    return "arena_session=" in self.cookies[request][hop]
            assert time.monotonic() < deadline, f"Chromium did not report the headers it sent to {url}"
            page.evaluate("() => new Promise(done => setTimeout(done, 20))")  # lets Playwright take the events in


def attack(page: Any, wire: Wire, server: Server, function: str, path: str) -> tuple[int, bool]:
    """Run one of the attack page's functions; the server's answer to its POST, and whether the cookie went along."""
    wire.urls.clear()
    with page.expect_response(lambda r: r.url == server.url + path and r.request.method == "POST") as answer:
        if function == "submitForm":
            with page.expect_navigation():
                page.evaluate("submitForm()")
        else:
            assert page.evaluate(f"{function}()") == "sent"
    return answer.value.status, wire.cookie_sent(page, server.url + path)


def test_pages_of_other_origins_change_nothing_and_the_servers_own_page_does(
        browser: Any, served: Server, elsewhere: int, tmp_path: Path) -> None:
    context = browser.new_context()
    page = context.new_page()
    wire = Wire(context, page)
    page.goto(served.url + "/login")
    page.fill("#token", served.tokens["ada"])
    page.click("#login-button")
    page.wait_for_url("**/entrants/ada")
    csrf = page.get_attribute("#upload-form input[name=csrf]", "value")
    public, _ = new_key_pair("ada", tmp_path)
    Pages.pages["/win.html"] = ATTACK.format(
        server=served.url, server_js=json.dumps(served.url), bot=json.dumps(UNBUILT.decode()),
        key=json.dumps(public.read_text()), csrf=json.dumps(csrf))
    before = versions(served)
    for origin, same_site in ((f"http://127.0.0.1:{elsewhere}", True), (f"http://localhost:{elsewhere}", False)):
        answers = {}
        for function, path in (("upload", "/api/submissions"), ("remote", "/api/remote"), ("leaked", "/submit"),
                               ("submitForm", "/api/submissions")):
            page.goto(origin + "/win.html")
            answers[function] = attack(page, wire, served, function, path)
        # Another port of the same host is the same site: the cookie goes along, and only the check of origins
        # stands between the page and the entrant's bot. From another site, SameSite=Strict keeps the cookie back.
        assert answers == {function: (403, same_site) for function in answers}, (origin, answers)
        assert versions(served) == before, origin
        page.goto(origin + "/win.html")
        page.click("#link")
        page.wait_for_url(served.url + "/entrants/ada")
        assert (page.locator("#upload-form").count() == 1) == same_site, origin  # logged in only from the same site
    # The control: the same changes from the server's own page.
    page.goto(served.url + "/entrants/ada")
    bot = tmp_path / "bot.py"
    bot.write_bytes(UNBUILT)
    page.set_input_files("#upload-file", str(bot))
    page.click("#upload-button")
    page.wait_for_url("**/entrants/ada")
    assert versions(served) == before + 1
    statuses = page.evaluate("""async ([token, key]) => {
        const data = new FormData();
        data.append("file", new File(["x = 1\\n"], "bot.py"));
        const bearer = {Authorization: "Bearer " + token};
        const upload = await fetch("/api/submissions", {method: "POST", headers: bearer, body: data});
        const remote = await fetch("/api/remote", {method: "POST", headers: bearer, body: key});
        const session = await fetch("/api/submissions", {method: "POST", credentials: "same-origin", body: data});
        return [upload.status, remote.status, session.status];
    }""", [served.tokens["ada"], public.read_text()])
    assert statuses == [201, 201, 401]  # the API takes the token; the session alone changes nothing there
    assert versions(served) == before + 3
    context.close()
