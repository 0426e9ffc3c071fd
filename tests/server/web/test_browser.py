"""An entrant's and the admin's journeys in real headless Chromium against a real `arena serve`.

The entrant logs in with a token, uploads a bot through the form, watches its status turn
active and its placement games appear without reloading (server-sent events), reads its
build log and opens a replay. The admin logs in, freezes submissions and runs the finals.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import ROOT, require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server, wait_for


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    require("bwrap")
    require("cc")
    server = make_server(tmp_path_factory.mktemp("browser"), max_games=8)
    server.add("dave", "erin")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    yield page
    context.close()


def log_in(page: Any, server: Server, token: str) -> None:
    page.goto(server.url + "/login")
    page.fill("#token", token)
    page.click("#login-button")


def test_an_entrant_uploads_watches_placement_and_replays(served: Server, page: Any, tmp_path: Any) -> None:
    log_in(page, served, served.tokens["dave"])
    page.wait_for_url("**/entrants/dave")
    bot = tmp_path / "fewest.py"
    bot.write_bytes(FEWEST)
    page.set_input_files("#upload-file", str(bot))
    page.click("#upload-button")
    page.wait_for_url("**/entrants/dave")
    assert page.locator("#versions tr[data-version='1']").count() == 1
    # No reload from here on: the page follows the server's events.
    page.wait_for_selector("#versions tr[data-version='1'][data-status='active']", timeout=120_000)
    page.wait_for_selector("table.games tr[data-kind='placement'][data-status='done']", timeout=120_000)
    page.click("#versions tr[data-version='1'] a.logs")
    page.wait_for_url("**/submissions/*")
    assert "py_compile" in page.inner_text("#build-log")
    assert "PASS" in page.inner_text("#validation-log")
    page.go_back()
    page.click("table.games a.replay >> nth=0")
    page.wait_for_selector("#board [data-cell]")
    assert page.locator("#board [data-cell]").count() == 30  # the 5 x 6 board
    assert not page.errors, page.errors


def test_another_entrant_cannot_open_the_first_ones_logs(served: Server, page: Any) -> None:
    log_in(page, served, served.tokens["erin"])
    page.wait_for_url("**/entrants/erin")
    page.goto(served.url + "/entrants/dave")
    assert page.locator("a.logs").count() == 0
    number = page.get_attribute("#versions tr[data-version='1']", "data-id")
    response = page.goto(f"{served.url}/submissions/{number}")
    assert response.status == 404


def test_the_admin_freezes_and_runs_the_finals(served: Server, page: Any) -> None:
    answer = served.submit("erin", "cbot.c", (ROOT / "bots" / "examples" / "cbot.c").read_bytes())
    assert served.settled("erin", answer.json()["id"])["status"] == "active"
    log_in(page, served, served.admin)
    page.wait_for_url("**/admin")
    page.click("#freeze-button")
    assert "closed" in page.inner_text("#message")
    page.goto(served.url + "/admin")
    assert page.inner_text("#frozen-state") == "closed"
    page.click("#finals-button")
    assert "finals started with 2 entrants" in page.inner_text("#message")
    wait_for(lambda: served.get("/health").json()["finals"] == "done", 240, "the finals to end")
    page.goto(served.url + "/")
    page.click("#finals-link")
    assert "dave" in page.content() and "erin" in page.content()
    page.click("a[data-match] >> nth=0")
    page.wait_for_selector("#board [data-cell]")
    assert page.locator("#board [data-cell]").count() == 30
    page.click("#back-link")
    page.wait_for_url("**/finals/")
    assert not page.errors, page.errors
