"""The organiser's day from the command line: a real `arena serve` tells each step, and `arena serve ACTION` runs it.

One server (JSON event lines) takes three uploads and a refused one, builds, validates and
rates them, comes to rest, and tells each of those steps on stderr and on the admin page.
The admin pauses and resumes it, closes submissions and plays the finals with `arena serve
ACTION CONFIG` (exit statuses a script can use), and the finals, once done, are shown with
their results, are not offered again, play games_per_pairing games per pairing, and are
exported as an object.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections import Counter
from typing import Any

import pytest

from tests.helpers import require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server, wait_for

BROKEN = b"def turn(self:\n"  # a syntax error: its build (py_compile) fails


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("operations"), max_games=6)
    text = server.config.read_text().replace('references = ["random", "maxblock", "perfect"]',
                                             'references = ["random", "maxblock"]')
    text = text.replace("fixed = { rows = 5, cols = 6 }",
                        "maps = [{ rows = 5, cols = 6 }, { rows = 6, cols = 5 }, { rows = 5, cols = 5 }]")
    server.config.write_text(text.replace("[server]\n", "[server]\nlog_every = 5\n"))
    server.add("alice", "bob", "carol", "dave")
    server.start(["--log-format", "json"])
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=120)


def events(server: Server) -> list[dict[str, Any]]:
    """The server's stderr so far, each line a JSON event."""
    return [json.loads(line) for line in list(server.output)]


def told(server: Server, event: str, words: str) -> bool:
    return any(e["event"] == event and words in e["message"] for e in events(server))


def test_the_terminal_tells_each_upload_build_validation_and_the_ladder(server: Server) -> None:
    ids = {name: server.submit(name, "bot.py", data).json()["id"]
           for name, data in (("alice", FEWEST), ("bob", BROKEN), ("carol", FEWEST))}
    assert server.submit("dave", "bot.exe", b"MZ").status_code == 422
    for name, number in ids.items():
        server.settled(name, number)
    for step in (("upload", "alice v1: bot.py (python, "), ("build", "alice v1: building (python, submission "),
                 ("build", "alice v1: built in "), ("validation", "alice v1: PASS: no failure in 4 games"),
                 ("version", "alice v1: active, on the ladder"), ("version", "bob v1: failed: build failed: the "),
                 ("upload", "dave: bot.exe refused: bot.exe: unknown kind of file")):
        assert told(server, *step), step
    assert told(server, "build", "submission 4): python -m py_compile bot.py")  # the arena's Python, named `python`
    wait_for(lambda: told(server, "ladder", "at rest: every entrant's version has played its 6 games"), 180,
             "the ladder to rest")
    assert told(server, "ladder", "games played (the last 5 in ")
    assert all(e["time"] and e["level"] in ("info", "warning") for e in events(server))  # no error, all JSON
    page = server.get("/admin", server.admin).text
    assert 'id="event-log"' in page and "alice v1: active, on the ladder" in page and "at rest:" in page
    assert "at rest:" not in server.get("/").text  # the events are the admin's


def test_admin_commands_act_on_the_running_server_with_exit_statuses(server: Server) -> None:
    config = str(server.config)
    status = arena("serve", "status", config, "--json")
    assert status.returncode == 0 and json.loads(status.stdout)["url"] == server.url + "/"
    paused = arena("serve", "pause", config)
    assert (paused.returncode, paused.stdout) == (0, "The ladder is paused: the games in flight end, no new one "
                                                     "starts.\n")
    assert server.get("/health").json()["paused"] is True
    assert "ladder paused," in arena("serve", "status", config).stdout
    # A test game asked for while paused waits: its page says so.
    board = {row["name"]: row["submission"] for row in server.get("/api/leaderboard").json()}
    with server.client(server.tokens["alice"]) as alice:
        game = alice.post("/api/scrimmages", json={"opponent": board["carol"]}).json()["game"]
    page = server.get(f"/games/{game}")
    assert page.status_code == 200 and f"Game {game} is queued: it has not been played yet" in page.text
    assert server.get("/games/999999").status_code == 404
    assert arena("serve", "resume", config).returncode == 0 and server.get("/health").json()["paused"] is False
    early = arena("serve", "finals", config)
    assert (early.returncode, early.stdout) == (1, "") and early.stderr.startswith("arena serve finals: Freeze")
    assert early.stderr.count("\n") == 1
    assert arena("serve", "freeze", config).returncode == 0
    again = arena("serve", "freeze", config)
    assert again.returncode == 0 and "already" in again.stdout
    opened = arena("serve", "unfreeze", config)
    assert (opened.returncode, opened.stdout) == (0, "Submissions are open again.\n")
    assert arena("serve", "finals", config).returncode == 1  # open again: no finals
    assert arena("serve", "freeze", config).returncode == 0
    finals = arena("serve", "finals", config)
    assert finals.returncode == 0 and "started with 2 entrants, 2 games per pairing" in finals.stdout
    wait_for(lambda: json.loads(arena("serve", "status", config, "--json").stdout)["finals"]["state"] == "done", 240,
             "the finals to end")
    assert told(server, "finals", "started: 2 entrants, round-robin, 2 games per pairing")
    assert told(server, "finals", "done: 1. ") and told(server, "admin", "submissions closed")
    assert told(server, "admin", "submissions open") and told(server, "admin", "ladder paused")


def test_the_finals_once_done_show_their_results_and_are_not_offered_again(server: Server) -> None:
    second = arena("serve", "finals", str(server.config))
    assert second.returncode == 1 and "The finals are over" in second.stderr
    with sqlite3.connect(server.state / "finals" / "results.sqlite") as db:
        pairings = Counter(tuple(sorted(json.loads(row[0]))) for row in db.execute("SELECT bots FROM matches"))
    assert list(pairings.values()) == [2]  # games_per_pairing = 2: two games, one setup in both seats
    page = server.get("/admin", server.admin).text
    assert 'id="finals-button"' not in page and 'id="finals-standings"' in page and ">carol<" in page
    assert "2 of 2 games played — done" in page
    with server.client(server.admin) as admin:
        assert admin.post("/admin/finals").json() == {"message": "The finals are over: their results are on the "
                                                                 "admin page and at /finals/.", "ok": False}
    exported = json.loads(arena("serve", "export", str(server.config)).stdout)["finals"]
    assert exported["state"] == "done" and exported["games_per_pairing"] == 2 and exported["report"] == "/finals/"
    assert {row["name"] for row in exported["standings"]} == {"alice", "carol"}
    assert sum(row["games"] for row in exported["standings"]) == 4
    report = server.get("/finals/").text
    assert '<header id="contest-header"' in report and '<a href="/">class</a>' in report
    listed = arena("entrants", "list", str(server.config)).stdout
    assert "alice\t1 version\n" in listed and "dave\t0 versions\n" in listed


def test_a_stopped_server_is_said_to_be_stopped_in_one_line(server: Server) -> None:
    server.stop()
    assert told(server, "stop", "the server stopped")
    gone = arena("serve", "status", str(server.config))
    assert gone.returncode == 3 and gone.stdout == "" and gone.stderr.count("\n") == 1
    assert "no server runs for" in gone.stderr and not (server.state / "admin.sock").exists()
    assert gone.stderr.endswith(f"start it with arena serve {server.config}\n")
