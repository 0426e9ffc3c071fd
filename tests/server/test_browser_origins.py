"""Pages of other origins attack a logged-in entrant in real headless Chromium; the server's own page, beside them, works.

The entrant logs in; a page served by the test on another port of the same host (the same
*site*: the browser sends the session cookie along) and on another host (another site) then
posts, with the victim's cookie, what the contest server's JSON API and forms take: a bot
uploaded by `fetch()` and by an HTML form, a remote key, the upload form with the victim's
own CSRF token (as if it had leaked). Every one is answered 403 and no version appears.
Beside them, from the server's own page: the upload form, and `fetch()` with the bearer
token, each make a version. A link from the other site opens the entrant's page logged out
(`SameSite=Strict`); from the same site, logged in.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from protocol.keys import new_key_pair
from tests.helpers import free_port, require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server

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
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("browser-origins"), max_games=4)
    server.config.write_text(server.config.read_text()
                             + f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{free_port()}"\n')
    server.add("ada")
    server.start()
    yield server
    server.stop()


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
        server=served.url, server_js=json.dumps(served.url), bot=json.dumps(FEWEST.decode()),
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
    bot.write_bytes(FEWEST)
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
