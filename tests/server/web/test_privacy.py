"""What an entrant's bot wrote stays its owner's, and a bot cannot tell validation from the ladder: a real server.

One server, in order: a bot that records everything it is sent plays its validation and its
ladder games, and the two are compared; a bot that plays only while it believes it is being
validated is caught by its validation; a bot that writes secrets into its diary and its crash
is seen crashing by everyone, and read by its owner and the admin only; and the organiser's
side: the metrics and the limit on failed logins.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest

from arena.logs.matchlog import read_log
from arena.server.engine.draws import validation_setups
from arena.server.state.config import load_server_config
from tests.helpers import require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server, wait_for

SETUPS = "maps = [{ rows = 5, cols = 6 }, { rows = 6, cols = 5 }, { rows = 4, cols = 7 }]"

# Records every message it is sent (by wrapping the SDK's answer()), and at every init what a
# process can see of where it runs: argv, folder, environment, its own path.
RECORDER = FEWEST.replace(b"from protocol import Bot", b'''import json
import os
import sys

import protocol.run as _run
from protocol import Bot


def _record(kind, msg):
    print("MSG " + json.dumps(msg, sort_keys=True), file=sys.stderr, flush=True)
    if kind == "init":
        seen = {"argv": sys.argv, "cwd": os.getcwd(), "file": __file__, "env": dict(os.environ),
                "folder": sorted(os.listdir(os.path.dirname(os.path.abspath(__file__))))}
        print("ENV " + json.dumps(seen, sort_keys=True), file=sys.stderr, flush=True)


for _module in {id(m): m for m in (sys.modules.get("__main__"), _run) if hasattr(m, "answer")}.values():
    def _answer(bot, kind, msg, _inner=_module.answer):
        _record(kind, msg)
        return _inner(bot, kind, msg)
    _module.answer = _answer
''')

# The attack of the issue: play well while the match id looks like a validation game's
# (`s0-r0-b0-b1`), crash otherwise.
VALIDATION_ONLY = FEWEST.replace(b"        rows, cols = setup[\"rows\"], setup[\"cols\"]", b'''        import re
        import sys
        if not re.fullmatch(r"s\\d+-r\\d+-.*", match):
            print("ATTACK tell-validation: believes this is the ladder (" + match + "); crashing", file=sys.stderr)
            raise SystemExit(4)
        print("ATTACK tell-validation: believes this is validation", file=sys.stderr)
        rows, cols = setup["rows"], setup["cols"]''')

SECRET = "ALICE-PRIVATE-DEBUG my secret eval weights are 9,2,7"
# Writes its secret diary in every game; once a file `crash` lies beside it, crashes at its
# second move with its secret as the last line of its output (the detail of the crash).
LEAKER = FEWEST.replace(b"        rows, cols = setup[\"rows\"], setup[\"cols\"]", f'''        import os
        import sys
        print({SECRET!r}, file=sys.stderr, flush=True)
        self.moves = 0
        self.crash = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "crash"))
        rows, cols = setup["rows"], setup["cols"]'''.encode()).replace(
    b"        r, c = min(self.free", f'''        self.moves += 1
        if self.crash and self.moves == 2:
            import sys
            print({SECRET + " (crash)"!r}, file=sys.stderr, flush=True)
            raise SystemExit(1)
        r, c = min(self.free'''.encode())


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("privacy"), max_games=8)
    server.config.write_text(server.config.read_text().replace("fixed = { rows = 5, cols = 6 }", SETUPS)
                             .replace('references = ["random", "maxblock", "perfect"]',
                                      'references = ["random", "maxblock"]'))
    server.add("alice", "bob", "carol", "dave")
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def games(server: Server, token: str | None = None, query: str = "") -> list[dict[str, Any]]:
    answer = server.get("/api/games" + query, token)
    answer.raise_for_status()
    return answer.json()


def lines(log_path: Path, name: str, prefix: str) -> list[Any]:
    """The JSON records a recorder wrote in one log, as the seat named name."""
    log = read_log(log_path)
    found = []
    for seat, text in log.output.items():
        if log.names[int(seat)] == name:
            found += [json.loads(line[len(prefix):]) for line in text.splitlines() if line.startswith(prefix)]
    return found


def shape(seen: dict[str, Any]) -> dict[str, Any]:
    """What a process sees of where it runs, with the values drawn afresh for each process made alike."""
    text = json.dumps(seen, sort_keys=True)
    text = re.sub(r"arena-(bot|hub)-[A-Za-z0-9_]+", r"arena-\1-RANDOM", text)
    text = re.sub(r"seat\d+\.sock", "seatN.sock", text)  # the seat, which init says anyway
    data = json.loads(text)
    data["env"]["ARENA_BOT_MARK"] = re.sub(r"[0-9a-f]{16}", "MARK", data["env"].get("ARENA_BOT_MARK", ""))
    data["env"]["ARENA_TOKEN"] = re.sub(r"[0-9a-f]{32}", "TOKEN", data["env"].get("ARENA_TOKEN", ""))
    return data


def test_a_bot_is_sent_the_same_in_validation_and_on_the_ladder(server: Server) -> None:
    carol = server.submit("carol", "recorder.py", RECORDER).json()
    bob = server.submit("bob", "fewest.py", FEWEST).json()
    assert server.settled("carol", carol["id"])["status"] == "active"
    assert server.settled("bob", bob["id"])["status"] == "active"
    wait_for(lambda: sum(g["status"] == "done" and carol["id"] in g["submissions"] for g in games(server)) >= 6,
             120, "ladder games of the recorder")
    validation = sorted((server.state / "validation" / str(carol["id"]) / "logs").glob("*.msgpack"))
    ladder = [server.state / "ladder" / "logs" / f"g{g['id']}.msgpack" for g in games(server)
              if g["status"] == "done" and carol["id"] in g["submissions"]]
    assert len(validation) == 4 and len(ladder) >= 6
    sent = {kind: [m for path in paths for m in lines(path, "carol-v1", "MSG ")]
            for kind, paths in (("validation", validation), ("ladder", ladder))}
    seen = {kind: [s for path in paths for s in lines(path, "carol-v1", "ENV ")]
            for kind, paths in (("validation", validation), ("ladder", ladder))}
    for kind in ("validation", "ladder"):
        assert {m["type"] for m in sent[kind]} >= {"init", "turn", "end"}, kind
    # The messages: the same types with the same keys, ids of one form, no names, the same clock.
    keys = {kind: {(m["type"], tuple(sorted(m))) for m in sent[kind]} for kind in sent}
    assert keys["validation"] == keys["ladder"]
    for kind, messages in sent.items():
        inits = [m for m in messages if m["type"] == "init"]
        assert all(re.fullmatch(r"[0-9a-f]{20}", m["match"]) for m in messages if "match" in m), kind
        assert len({m["match"] for m in inits}) == len(inits)  # a fresh id for every game
        assert all("names" not in m and m["time_left_ms"] == 3000 and m["game"] == "blocking" for m in inits)
    # The setups: drawn from the contest's, by the ladder's generator in both.
    config = load_server_config(server.config)
    contest_setups = [s.setup for s in config.tournament.setups]
    with sqlite3.connect(server.state / "server.db") as db:
        secret = db.execute("SELECT value FROM settings WHERE key = 'draw_secret'").fetchone()[0]
    drawn = [contest_setups[i] for i in validation_setups(config, secret, carol["id"], 1)]
    assert {json.dumps(m["setup"], sort_keys=True) for m in sent["validation"] if m["type"] == "init"} == \
        {json.dumps(s, sort_keys=True) for s in drawn}
    assert all(m["setup"] in contest_setups for m in sent["ladder"] if m["type"] == "init")
    # Where it runs: the same command, folder, environment and files, values drawn per process aside.
    shapes = {kind: {json.dumps(shape(s), sort_keys=True) for s in seen[kind]} for kind in seen}
    assert len(shapes["validation"]) == 1 and shapes["validation"] == shapes["ladder"], shapes
    assert seen["ladder"][0]["file"] == "/bot/recorder.py" and "recorder.py" in seen["ladder"][0]["folder"]
    # Nothing it was sent or shown names the server's directory.
    everything = "".join(json.dumps(read_log(path).output) for path in [*validation, *ladder])
    assert str(server.state) not in everything and str(server.directory) not in everything


def test_a_bot_that_plays_only_while_it_believes_it_is_validated_is_caught_there(server: Server) -> None:
    answer = server.submit("dave", "sly.py", VALIDATION_ONLY).json()
    result = server.settled("dave", answer["id"])
    assert result["status"] == "rejected", result  # it believed every validation game was the ladder's
    assert "crash" in result["validation_log"] and "believes this is the ladder" in result["validation_log"]
    logs = sorted((server.state / "validation" / str(answer["id"]) / "logs").glob("*.msgpack"))
    said = "".join(text for path in logs for text in read_log(path).output.values())
    assert "ATTACK tell-validation: believes this is the ladder" in said
    assert "believes this is validation" not in said


def _everything_public(server: Server, token: str | None, game: dict[str, Any], alice: int) -> dict[str, str]:
    pages = {path: server.get(path, token) for path in (
        "/", "/api/games", f"/api/games?submission={alice}", f"/games/{game['id']}", "/entrants/alice",
        "/entrants/bob", "/api/leaderboard", "/health")}
    assert all(page.status_code == 200 for page in pages.values()), {p: a.status_code for p, a in pages.items()}
    return {path: page.text for path, page in pages.items()}


def test_a_bots_diary_and_crash_reach_its_owner_and_the_admin_only(server: Server) -> None:
    answer = server.submit("alice", "leaker.py", LEAKER).json()
    alice = server.settled("alice", answer["id"])
    assert alice["status"] == "active", alice["validation_log"]
    (server.state / "submissions" / "alice" / "v1" / "bot" / "crash").touch()
    server.restart_playing_more()  # every process of the version starts afresh, and finds the file
    crashed = wait_for(lambda: next((g for g in games(server) if g["reason"] == "crash"
                                     and g["submissions"][g["offender"]] == alice["id"]), None),
                       120, "a ladder game alice's bot crashes in")
    assert crashed["detail"] == f"crashed after {crashed['plies']} plies"  # what the public reads
    assert re.fullmatch(r"crashed after \d+ plies", crashed["detail"])
    viewers = {"anyone": None, "bob": server.tokens["bob"], "carol": server.tokens["carol"]}
    for who, token in viewers.items():
        for path, text in _everything_public(server, token, crashed, alice["id"]).items():
            assert "ALICE-PRIVATE" not in text and "my secret" not in text, (who, path)
    page = server.get(f"/games/{crashed['id']}").text
    assert "crashed after" in page and 'id="board"' in page  # the public sees the game and why it ended
    for who, token in (("alice", server.tokens["alice"]), ("admin", server.admin)):
        mine = next(g for g in games(server, token) if g["id"] == crashed["id"])
        assert SECRET + " (crash)" in mine["detail"] and "exited with status 1" in mine["detail"], who
        page = server.get(f"/games/{crashed['id']}", token).text
        assert SECRET in page and "(crash)" in page, who
    # The export is for publication: what anyone may read.
    export = server.get("/admin/export", server.admin)
    assert export.status_code == 200 and "ALICE-PRIVATE" not in export.text
    assert any(g["id"] == crashed["id"] and g["detail"].startswith("crashed after") for g in export.json()["games"])
    # The live updates carry a change counter, nothing of any game.
    with httpx.Client(base_url=server.url, timeout=30) as client, client.stream("GET", "/events") as stream:
        first = next(line for line in stream.iter_lines() if line.startswith("data:"))
    assert re.fullmatch(r"data: \d+-\d+\.\d+", first)


def metrics(text: str) -> dict[str, float]:
    """The samples of a text exposition; fails on a line the format does not allow."""
    samples: dict[str, float] = {}
    described: dict[str, set[str]] = {}
    for line in text.splitlines():
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            _, what, name, rest = line.split(" ", 3)
            described.setdefault(name, set()).add(what)
            if what == "TYPE":
                assert rest in ("counter", "gauge"), line
            continue
        found = re.fullmatch(r'([a-z_]+)(\{([a-z_]+="[^"\\]*"(,[a-z_]+="[^"\\]*")*)\})? (-?[0-9.e+]+)', line)
        assert found, f"not a sample line: {line!r}"
        assert described.get(found.group(1)) == {"HELP", "TYPE"}, f"{found.group(1)} has no HELP and TYPE"
        samples[found.group(1) + (found.group(2) or "")] = float(found.group(5))
    return samples


def test_the_metrics_are_for_the_admin_and_this_machine_only(server: Server) -> None:
    again = server.submit("bob", "fewest.py", FEWEST).json()
    assert server.settled("bob", again["id"])["status"] == "active"  # a build this process made
    local = server.get("/metrics")
    assert local.status_code == 200 and local.headers["content-type"].startswith("text/plain; version=0.0.4")
    found = metrics(local.text)
    assert found["arena_up"] == 1
    assert found['arena_games_total{kind="placement",status="done"}'] >= 4
    assert found['arena_game_failures_total{reason="crash"}'] >= 1
    assert found['arena_submissions{status="rejected"}'] == 1  # dave's
    assert found['arena_builds_total{result="active"}'] >= 1 and found["arena_builds_last_minute"] >= 1
    for name in ("arena_games_queued", "arena_games_running", "arena_games_last_minute", "arena_builds_waiting",
                 "arena_builds_last_minute", "arena_ladder_lag_seconds", "arena_ladder_idle_seconds",
                 "arena_build_queue_age_seconds", "arena_auth_failures_total"):
        assert name in found, name
    with sqlite3.connect(server.state / "server.db") as db:
        crashes = db.execute("SELECT COUNT(*) FROM games WHERE status = 'done' AND reason = 'crash'").fetchone()[0]
    assert found['arena_game_failures_total{reason="crash"}'] <= crashes + 50  # counted from the database
    # Through the proxy, from elsewhere: the admin's token, or nothing.
    remote = {"X-Forwarded-For": "203.0.113.7"}
    with server.client() as anyone:
        assert anyone.get("/metrics", headers=remote).status_code == 403
    with server.client(server.tokens["bob"]) as bob:
        assert bob.get("/metrics", headers=remote).status_code == 403
    with server.client(server.admin) as admin:
        assert admin.get("/metrics", headers=remote).status_code == 200


def test_failed_logins_and_bad_tokens_are_limited_per_address(server: Server) -> None:
    attacker, neighbour = {"X-Forwarded-For": "198.51.100.1"}, {"X-Forwarded-For": "198.51.100.2"}
    with server.client("not-a-token-" + "x" * 30) as wrong:
        answers = [wrong.get("/api/submissions", headers=attacker) for _ in range(20)]
        assert {a.status_code for a in answers} == {401}
        held = wrong.get("/api/submissions", headers=attacker)
    assert held.status_code == 429 and 1 <= int(held.headers["retry-after"]) <= 60
    assert "too many failed logins" in held.json()["error"]
    with server.client(server.tokens["bob"]) as bob:
        assert bob.get("/api/submissions", headers=attacker).status_code == 429  # a right token waits too
        assert bob.get("/api/submissions", headers=neighbour).status_code == 200  # another address does not
    with server.client() as browser:  # the login form counts and is held back alike
        form = browser.get("/login", headers=attacker)
        csrf = re.search(r'name="csrf" value="([^"]+)"', form.text).group(1)  # type: ignore[union-attr]
        refused = browser.post("/login", data={"token": server.tokens["bob"], "csrf": csrf}, headers=attacker)
        assert refused.status_code == 429 and "retry-after" in refused.headers
        assert browser.get("/", headers=attacker).status_code == 200  # the public pages stay open
    counted = metrics(server.get("/metrics").text)
    assert counted["arena_auth_failures_total"] >= 20 and counted["arena_auth_refused_total"] >= 2


def test_bad_tokens_from_fresh_addresses_of_one_ipv6_64_are_held_back_together(server: Server) -> None:
    import ipaddress
    import random

    draw = random.Random(64)

    def within(network: int) -> dict[str, str]:  # a fresh address of 2001:db8:36:NETWORK::/64 each time
        return {"X-Forwarded-For": str(ipaddress.IPv6Address((0x2001_0DB8_0036 << 80) | (network << 64)
                                                             | draw.getrandbits(64)))}

    with server.client("not-a-token-" + "y" * 30) as wrong:
        answers = [wrong.get("/api/submissions", headers=within(1)).status_code for _ in range(20)]
        assert set(answers) == {401}
        held = wrong.get("/api/submissions", headers=within(1))
    assert held.status_code == 429 and "from this network" in held.json()["error"]
    with server.client(server.tokens["bob"]) as bob:
        assert bob.get("/api/submissions", headers=within(1)).status_code == 429  # anyone in that /64 waits
        assert bob.get("/api/submissions", headers=within(2)).status_code == 200  # the next /64 does not
