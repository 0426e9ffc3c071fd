"""The contest server end to end: a real `arena serve`, real uploads, real builds in bubblewrap, a real ladder.

One server plays the whole story, in order: two students submit (a Python file through
`arena submit`, a C file through the API), broken submissions are refused with logs only
their owner sees, the ladder places and rates the good ones, every game replays and its
log verifies, the server is killed with SIGKILL mid-ladder and resumes without losing or
repeating a game, and the admin freezes submissions and plays finals that `arena verify`
accepts.
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import read_log
from tests.helpers import ROOT, require
from tests.server.fixtures import BROKEN_C, FEWEST, LADDER_CRASHER, archive_bot, slow, spy, talker
from tests.server.server import Server, make_server, wait_for

CBOT = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()
ILLEGAL = (ROOT / "tests" / "fixtures" / "illegal_bot.py").read_bytes()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require("bwrap")
    require("cc")
    server = make_server(tmp_path_factory.mktemp("contest"), max_games=12, build_timeout=15)
    server.add("alice", "bob", "carol")
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def games(server: Server) -> list[dict[str, Any]]:
    return server.get("/api/games").json()


def board(server: Server) -> dict[str, dict[str, Any]]:
    return {row["name"]: row for row in server.get("/api/leaderboard").json()}


def test_two_students_are_validated_placed_and_rated(server: Server) -> None:
    fewest = server.directory / "fewest.py"
    fewest.write_bytes(FEWEST)
    done = subprocess.run([sys.executable, "-m", "arena.cli", "submit", server.url, str(fewest), "--token",
                           server.tokens["alice"], "--wait", "--timeout", "240"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "status: active" in done.stdout
    answer = server.submit("bob", "cbot.c", CBOT)
    assert answer.status_code == 201, answer.text
    # The answer is the version as it is by then: the intake may have claimed it already.
    assert answer.json()["status"] in ("queued", "building") and answer.json()["language"] == "c"
    bob = server.settled("bob", answer.json()["id"])
    assert bob["status"] == "active", bob
    assert "cc -O2" in bob["build_log"] and "PASS" in bob["validation_log"]
    # Placement first: both versions play their 4 placement games, then appear rated.
    wait_for(lambda: all(board(server).get(name, {}).get("games", 0) >= 4 for name in ("alice", "bob")), 180,
             "placement games of both versions")
    rows = board(server)
    for name in ("alice", "bob"):
        assert rows[name]["version"] == 1 and rows[name]["low"] < rows[name]["mu"] < rows[name]["high"]
        assert isinstance(rows[name]["rating"], float) and rows[name]["last_change"] != 0
    page = server.get("/").text
    assert "last change" in page and " ago</td>" in page
    placements = [g for g in games(server) if g["kind"] == "placement"]
    assert len({tuple(g["submissions"]) for g in placements}) >= 2


def test_an_entrant_asks_for_unrated_test_games_within_a_limit(server: Server) -> None:
    bob = board(server)["bob"]["submission"]
    with server.client(server.tokens["alice"]) as alice:
        asked = [alice.post("/api/scrimmages", json={"opponent": bob}) for _ in range(7)]
        assert [a.status_code for a in asked] == [201] * 6 + [422]
        assert "per hour" in asked[-1].json()["error"]
        assert alice.post("/api/scrimmages", json={"opponent": 99999}).status_code == 422
    numbers = {a.json()["game"] for a in asked[:6]}
    wait_for(lambda: {g["id"] for g in games(server) if g["kind"] == "scrimmage" and g["status"] == "done"}
             >= numbers, 120, "the test games")


def test_a_version_that_fails_on_the_ladder_is_disabled_and_its_games_count_against_it(server: Server) -> None:
    answer = server.submit("carol", "crasher.py", LADDER_CRASHER)
    version = server.settled("carol", answer.json()["id"])
    assert version["status"] == "active"  # validation games went fine
    (server.state / "submissions" / "carol" / f"v{version['version']}" / "bot" / "crash").touch()  # now it crashes
    # A bot process is shown a copy of its folder made when it started: restarted, every process
    # of the version starts afresh and finds the file (a running one never sees a host file change).
    server.restart_playing_more()
    disabled = wait_for(lambda: (lambda s: s if s["status"] == "disabled" else None)(
        server.submission("carol", answer.json()["id"])), 120, "the crashing version to be disabled")
    assert "failures in" in disabled["detail"] and disabled["errors"] > 1
    assert "carol" not in board(server)


def test_a_broken_build_and_an_illegal_bot_are_refused_and_only_their_owner_sees_why(server: Server) -> None:
    broken = server.submit("carol", "broken.c", BROKEN_C)
    illegal = server.submit("carol", "illegal.py", ILLEGAL)
    assert broken.status_code == illegal.status_code == 201
    failed = server.settled("carol", broken.json()["id"])
    assert failed["status"] == "failed" and "error" in failed["build_log"]
    rejected = server.settled("carol", illegal.json()["id"])
    assert rejected["status"] == "rejected" and "illegal" in rejected["validation_log"]
    # Another entrant, no token, a wrong token: the submission does not exist for them.
    for token in (server.tokens["alice"], None, "not-a-token"):
        answer = server.get(f"/api/submissions/{illegal.json()['id']}", token)
        assert answer.status_code == 404 and "validation_log" not in answer.text
    page = server.get(f"/submissions/{illegal.json()['id']}", server.tokens["alice"])
    assert page.status_code == 404
    public = server.get("/entrants/carol").text
    assert "rejected" in public and "FAIL" not in public and "/submissions/" not in public
    assert "carol" not in board(server)  # never on the ladder


def test_uploads_without_a_valid_token_are_refused(server: Server) -> None:
    with server.client() as anonymous:
        refused = anonymous.post("/api/submissions", files={"file": ("a.py", FEWEST)})
        assert refused.status_code == 401
        assert refused.json()["error"] == "an entrant's token is needed (Authorization: Bearer TOKEN)"
    with server.client("wrong-token-" + "x" * 20) as wrong:
        refused = wrong.post("/api/submissions", files={"file": ("a.py", FEWEST)})
        assert refused.status_code == 401  # a token was given: the message says it names nobody
        assert refused.json()["error"].startswith("this token belongs to no entrant (mistyped, or of a disqualified")
    with server.client(server.tokens["carol"]) as carol:
        big = carol.post("/api/submissions", files={"file": ("big.py", b"#" * 300_000)})
        assert big.status_code == 413
        escape = carol.post("/api/submissions", files={"file": ("evil.tar.gz", _escaping_tar())})
        assert escape.status_code == 422 and "outside" in escape.json()["error"]


def _escaping_tar() -> bytes:
    from tests.server.fixtures import tar_of

    return tar_of({"arena.toml": b'run = "./bot"\n', "../../escaped": b"x"})


def test_a_build_that_forks_without_end_or_fills_its_disk_fails_alone(server: Server) -> None:
    bomb = server.submit("carol", "bomb.tar.gz", archive_bot("f() { f | f & }; f; sleep 30"))
    fill = server.submit("carol", "fill.tar.gz",
                         archive_bot("i=0; while head -c 50000000 /dev/zero > junk$i; do i=$((i+1)); done; false"))
    assert bomb.status_code == fill.status_code == 201
    for answer in (bomb, fill):
        result = server.settled("carol", answer.json()["id"], timeout=120)
        assert result["status"] == "failed", result
    assert "No space left" in server.submission("carol", fill.json()["id"])["build_log"]
    assert not (server.state / "submissions" / "carol" / "junk").exists()
    health = server.get("/health").json()
    assert health["ok"], health


def test_what_an_entrant_writes_is_escaped_and_pages_allow_only_the_servers_script(server: Server) -> None:
    answer = server.submit("carol", "xss.tar.gz", archive_bot("echo '<script>alert(1)</script>'; false"))
    failed = server.settled("carol", answer.json()["id"])
    assert "<script>alert(1)</script>" in failed["build_log"]  # the JSON API gives the text as written
    page = server.get(f"/submissions/{answer.json()['id']}", server.tokens["carol"])
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text and "<script>alert" not in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]


def test_a_bot_or_a_build_cannot_read_the_servers_secrets_nor_reach_its_port(server: Server) -> None:
    state = str(server.state)
    assert (server.state / "admin.token").is_file() and (server.state / "ladder" / "log.key").is_file()
    bot = server.submit("carol", "spy.py", spy(state, server.url))
    result = server.settled("carol", bot.json()["id"])
    assert result["status"] == "active", result["validation_log"]  # no LEAKED crash in any game
    probe = (f"cat {state}/admin.token || cat {state}/server.db || ls {state}/submissions || "
             f"python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {server.url.rsplit(':', 1)[1]}))' "
             "|| exit 0; exit 1")
    build = server.submit("carol", "probe.tar.gz", archive_bot(probe.replace('"', '\\"')))
    built = server.settled("carol", build.json()["id"])
    assert "No such file" in built["build_log"] and built["status"] != "failed", built["build_log"]


def test_every_game_replays_and_its_log_verifies(server: Server) -> None:
    played = [g for g in games(server) if g["status"] == "done"]
    assert played
    for game in played[:5]:
        page = server.get(game["replay"])
        assert page.status_code == 200 and 'id="board"' in page.text
        assert "<a id='back-link' href='/'>&#x2190; leaderboard</a>" in page.text  # the way back
    logs = sorted((server.state / "ladder" / "logs").glob("*.msgpack"))[:5]
    for log in logs:
        done = subprocess.run([sys.executable, "-m", "arena.cli", "replay", str(log), "--verify"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    # Validation and ladder games alike: the bots were sent an opaque id and no names.
    for log in [*logs, *sorted((server.state / "validation").glob("*/logs/*.msgpack"))]:
        assert_anonymous(read_log(log))


def assert_anonymous(log: Any) -> None:
    """The log's bots were sent an opaque match id and no names (and a talker saw just that)."""
    header = log.header
    assert header["reveal_names"] is False and re.fullmatch(r"[0-9a-f]{20}", header["bot_match"]), header
    for text in log.output.values():
        for match, names in re.findall(r"^seen (\S+) (.*)$", text, re.M):
            assert names == "None" and re.fullmatch(r"[0-9a-f]{20}", match), text


def test_a_bots_output_is_shown_to_its_owner_only(server: Server) -> None:
    versions = {}
    for name in ("alice", "bob"):
        answer = server.submit(name, "talker.py", talker(f"diary of {name}"))
        versions[name] = server.settled(name, answer.json()["id"])
        assert versions[name]["status"] == "active"
    with server.client(server.tokens["bob"]) as bob:
        asked = bob.post("/api/scrimmages", json={"opponent": versions["alice"]["id"]})
        assert asked.status_code == 201, asked.text
    number = asked.json()["game"]
    game = wait_for(lambda: next((g for g in games(server) if g["id"] == number and g["status"] == "done"), None),
                    120, "the test game")
    pages = {who: server.get(game["replay"], token).text for who, token in
             (("alice", server.tokens["alice"]), ("bob", server.tokens["bob"]), ("anyone", None),
              ("carol", server.tokens["carol"]), ("admin", server.admin))}
    assert "diary of alice" in pages["alice"] and "diary of bob" not in pages["alice"]
    assert "diary of bob" in pages["bob"] and "diary of alice" not in pages["bob"]
    for who in ("anyone", "carol"):
        assert "diary of" not in pages[who]
    assert "diary of alice" in pages["admin"] and "diary of bob" in pages["admin"]


def _csrf(client: Any, path: str) -> str:
    import re

    return re.search(r'name="csrf" value="([^"]+)"', client.get(path).text).group(1)


def test_a_login_form_from_another_visitor_is_refused(server: Server) -> None:
    with server.client() as attacker, server.client() as victim:
        token = _csrf(attacker, "/login")  # the attacker's own form, planted in a page the victim opens
        assert victim.post("/login", data={"token": server.tokens["carol"], "csrf": token}).status_code == 403
        _csrf(victim, "/login")  # the victim has a form seed of its own: still not the attacker's token
        assert victim.post("/login", data={"token": server.tokens["carol"], "csrf": token}).status_code == 403


def test_cookies_are_http_only_and_secure_behind_an_https_proxy(server: Server) -> None:
    plain = server.get("/login").headers["set-cookie"]
    with server.client() as proxied:
        forwarded = proxied.get("/login", headers={"X-Forwarded-Proto": "https"}).headers["set-cookie"]
    assert "HttpOnly" in plain and "SameSite=strict" in plain and "Secure" not in plain
    assert "Secure" in forwarded


def test_forms_without_the_sessions_csrf_token_are_refused(server: Server) -> None:
    with server.client() as browser:
        login = browser.post("/login", data={"token": server.tokens["bob"], "csrf": _csrf(browser, "/login")})
        assert login.status_code == 303
        browser.cookies = login.cookies
        before = server.get("/api/submissions", server.tokens["bob"]).json()
        forged = browser.post("/submit", data={"csrf": "forged"}, files={"file": ("x.py", FEWEST)})
        missing = browser.post("/submit", files={"file": ("x.py", FEWEST)})
        assert forged.status_code == missing.status_code == 403
        assert len(server.get("/api/submissions", server.tokens["bob"]).json()) == len(before)
        good = browser.post("/submit", data={"csrf": _csrf(browser, "/entrants/bob")},
                            files={"file": ("again.c", CBOT)})
        assert good.status_code == 303
    assert len(server.get("/api/submissions", server.tokens["bob"]).json()) == len(before) + 1


def _results(server: Server) -> dict[int, tuple[str, str, str]]:
    with sqlite3.connect(server.state / "server.db") as db:
        return {row[0]: (row[1], row[2], row[3]) for row in
                db.execute("SELECT id, scores, ranks, reason FROM games WHERE status = 'done'")}


def test_a_server_killed_mid_ladder_resumes_without_losing_or_repeating_a_game(server: Server) -> None:
    answer = server.submit("alice", "slow.py", slow())  # a new version: placement games of about a second each
    assert server.settled("alice", answer.json()["id"])["status"] == "active"
    wait_for(lambda: server.get("/health").json()["games_running"] > 0 or None, 60, "a game in flight")
    server.stop(signal.SIGKILL)
    before = _results(server)
    with sqlite3.connect(server.state / "server.db") as db:
        running = [row[0] for row in db.execute("SELECT id FROM games WHERE status = 'running'")]
    server.process = None
    server.start()
    after = wait_for(lambda: (lambda r: r if all(g in r for g in running) and len(r) > len(before) else None)(
        _results(server)), 120, "the interrupted games to be played after the restart")
    assert all(after[game] == result for game, result in before.items())  # nothing played is lost or replayed
    with sqlite3.connect(server.state / "server.db") as db:
        attempts = dict(db.execute("SELECT id, attempts FROM games"))
    assert all(attempts[game] == 1 for game in before if game not in running)
    assert server.get("/health").json()["ok"]


def test_the_admin_freezes_and_plays_finals_that_verify(server: Server) -> None:
    admin = server.admin
    with server.client(admin) as client:
        assert client.post("/admin/freeze").json()["message"].startswith("Submissions are closed")
    refused = server.submit("alice", "late.py", FEWEST)
    assert refused.status_code == 403 and "frozen" in refused.json()["error"]
    with server.client(admin) as client:
        assert "finals started" in client.post("/admin/finals").json()["message"]

    def finals_rows() -> int:
        try:
            with sqlite3.connect(server.state / "finals" / "results.sqlite") as db:
                return db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        except sqlite3.Error:
            return 0

    wait_for(lambda: finals_rows() >= 1, 120, "a first result of the finals")
    server.stop(signal.SIGKILL)  # mid-finals: alice's slow version makes them last
    kept = finals_rows()
    server.process = None
    server.start()
    wait_for(lambda: server.get("/health").json()["finals"] == "done", 240, "the resumed finals to end")
    assert kept < 6 and finals_rows() == 6
    finals = server.state / "finals"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "verify", str(finals)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    standings = json.loads((finals / "standings.json").read_text())
    assert {row["name"] for row in standings["bots"]} == {"alice", "bob", "carol"}  # carol's spy is active
    report = server.get("/finals/")
    assert report.status_code == 200 and server.get("/finals").status_code == 307
    import re

    pages = re.findall(r"href='(report_matches/[^']+)'", report.text)
    assert len(pages) == 6
    views = [{who: server.get("/finals/" + page, token).text for who, token in
              (("admin", admin), ("alice", server.tokens["alice"]), ("bob", server.tokens["bob"]), ("anyone", None))}
             for page in pages]
    alices = [view for view in views if "slow diary" in view["admin"]]
    assert len(alices) == 4 and all('id="board"' in view["anyone"] for view in views)  # alice plays 4 of 6
    for view in alices:
        assert "slow diary" in view["alice"] and "slow diary" not in view["bob"] + view["anyone"]
    finals_logs = [read_log(path) for path in sorted((finals / "logs").glob("*.msgpack"))]
    assert len(finals_logs) == 6 and sum("seen " in text for log in finals_logs for text in log.output.values()) >= 4
    for log in finals_logs:
        assert_anonymous(log)
    assert server.get("/finals/report_matches/..%2Fserver.db").status_code == 404


def test_the_admin_disqualifies_an_entrant_and_only_the_admin_may(server: Server) -> None:
    with server.client(server.tokens["alice"]) as alice:
        assert alice.post("/admin/disqualify", data={"name": "carol"}).status_code == 403
    assert "carol" in board(server)
    with server.client(server.admin) as admin:
        assert admin.post("/admin/disqualify", data={"name": "carol"}).json()["message"] == "carol is disqualified."
    assert "carol" not in board(server)
    assert server.get("/login").status_code == 200
    with server.client(server.tokens["carol"]) as carol:  # her token opens nothing any more
        assert carol.post("/api/submissions", files={"file": ("a.py", FEWEST)}).status_code == 401


def test_a_graceful_stop_leaves_nothing_running(server: Server) -> None:
    code = server.stop(signal.SIGTERM)
    assert code in (0, -signal.SIGTERM)  # uvicorn re-raises the signal it handled, once shut down
    assert any("stop: the server stopped" in line for line in server.output)
    with sqlite3.connect(server.state / "server.db") as db:
        assert db.execute("SELECT COUNT(*) FROM games WHERE status = 'running'").fetchone()[0] == 0


def verify(directory: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "verify", str(directory)], capture_output=True,
                          text=True, timeout=600)


def test_the_contest_directory_verifies_and_a_forged_result_or_rating_does_not(server: Server) -> None:
    done = verify(server.state)
    assert done.returncode == 0, done.stdout + done.stderr
    played = _results(server)
    finals = 3 * 2  # three entrants, two games per pairing
    assert f"verified {len(played) + finals} matches, {len(played) + finals} logs: OK" in done.stdout
    copy = server.directory / "forged"
    subprocess.run(["cp", "-a", str(server.state), str(copy)], check=True)
    with sqlite3.connect(copy / "server.db") as db:
        game = db.execute("SELECT id, ranks FROM games WHERE status = 'done' AND kind != 'scrimmage' AND "
                          "json_extract(ranks, '$[0]') != json_extract(ranks, '$[1]') LIMIT 1").fetchone()
        ranks = json.loads(game[1])
        db.execute("UPDATE games SET ranks = ? WHERE id = ?", (json.dumps(ranks[::-1]), game[0]))
        db.execute("UPDATE submissions SET mu = mu + 1 WHERE id = (SELECT MIN(id) FROM submissions)")
    logs = sorted((copy / "ladder" / "logs").glob("g*.msgpack"))
    (copy / "ladder" / "logs" / "g999999.msgpack").write_bytes(logs[0].read_bytes())  # a log of no game
    forged = verify(copy)
    assert forged.returncode == 1
    assert f"match g{game[0]}: ranks {ranks[::-1]} in the store, {ranks} in its log" in forged.stdout
    assert "rating" in forged.stdout and "from its games" in forged.stdout
    assert "g999999.msgpack: a log no played game names" in forged.stdout


def test_export_names_no_token(server: Server) -> None:
    data = Path(server.state / "server.db").read_bytes()
    assert all(token.encode() not in data for token in server.tokens.values())
