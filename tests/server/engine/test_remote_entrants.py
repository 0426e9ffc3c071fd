"""Remote entrants on a real server: a key registered over the API, a bot from SPEC alone connecting with CURVE.

The bot is tests/fixtures/remote_bot.py in its own process with its own keys; the server's
public key is the one `GET /api/remote` gives. Checked: `[remote] allowed = false` refuses a
key; a registered key's bot passes validation once connected, plays ladder games and is marked
remote on the board; an unknown key gets nothing; a bot that goes away is no longer scheduled.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from protocol.keys import new_key_pair
from tests.helpers import free_port, require
from tests.server.server import ROOT, Server, make_server, wait_for

REMOTE_BOT = Path(__file__).resolve().parents[2] / "fixtures" / "remote_bot.py"
CBOT = (Path(__file__).resolve().parents[3] / "bots" / "examples" / "cbot.c").read_bytes()


@pytest.fixture
def processes(children: list[subprocess.Popen[str]]) -> list[subprocess.Popen[str]]:
    """The remote bots a test starts (killed and reaped after it)."""
    return children


def serve(tmp_path: Path, remote: str, max_games: int = 400) -> Server:
    server = make_server(tmp_path, max_games=max_games)
    server.config.write_text(server.config.read_text() + remote)
    server.add("ada", "bob")
    server.start()
    return server


def bot(processes: list[subprocess.Popen[str]], server: Server, keys: Path, name: str, mode: str,
        ply: int = 0) -> subprocess.Popen[str]:
    """The SPEC-alone remote bot, connecting with NAME's secret key to the server's listener."""
    info = server.get("/api/remote").json()
    (keys / "server.key").write_text(f'metadata\ncurve\n    public-key = "{info["server_key"]}"\n')
    process = subprocess.Popen([sys.executable, str(REMOTE_BOT), info["listen"], str(keys / "server.key"),
                                str(keys / f"{name}.key_secret"), mode, str(ply)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    processes.append(process)
    return process


def csrf(client: httpx.Client, path: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', client.get(path).text)
    assert found is not None
    return found.group(1)


def info_key(server: Server) -> str:
    return str(server.get("/api/remote").json()["server_key"])


def escaped(text: str) -> str:
    import html

    return html.escape(text)


def connected(server: Server) -> list[str]:
    try:
        return list(json.loads((server.state / "remote" / "connected.json").read_text())["connected"])
    except (OSError, ValueError, KeyError):
        return []


def test_remote_entrants_are_refused_unless_the_config_allows_them(tmp_path: Path) -> None:
    require("bwrap")
    server = serve(tmp_path, "")
    try:
        folder = tmp_path / "keys"
        folder.mkdir()
        public, _ = new_key_pair("ada", folder)
        with server.client(server.tokens["ada"]) as client:
            answer = client.post("/api/remote", content=public.read_bytes())
        assert answer.status_code == 403
        assert answer.json()["error"] == "this contest takes no remote bots ([remote] allowed = false)"
        assert server.get("/api/remote").json() == {"allowed": False}
        assert server.get("/api/submissions", server.tokens["ada"]).json() == []  # nothing stored
        assert not (server.state / "remote").exists()  # no listener, no key made
    finally:
        server.stop()


def test_a_remote_entrant_registers_a_key_connects_and_plays_the_ladder(
        tmp_path: Path, processes: list[subprocess.Popen[str]]) -> None:
    require("bwrap")
    port = free_port()
    server = serve(tmp_path, f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{port}"\nnetwork_grace_ms = 500\n')
    try:
        assert any("remote bots connect to" in line for line in server.output)  # the key printed at start
        keys = tmp_path / "keys"
        keys.mkdir()
        public, _ = new_key_pair("ada", keys)
        new_key_pair("mallory", keys)
        with server.client(server.tokens["ada"]) as client:
            bad = client.post("/api/remote", content=b"not a key")
            assert bad.status_code == 422 and "not a public key" in bad.json()["error"]
            answer = client.post("/api/remote", content=public.read_bytes())
        assert answer.status_code == 201, answer.text
        number = answer.json()["id"]
        # Another entrant cannot register ada's public key (her bot would play as his version), nor the server's.
        with server.client(server.tokens["bob"]) as client:
            for key, error in ((public.read_text(), "another entrant's"), (info_key(server), "the server's own")):
                stolen = client.post("/api/remote", json={"key": key})
                assert stolen.status_code == 422 and error in stolen.json()["error"], stolen.text
        assert server.get("/api/submissions", server.tokens["bob"]).json() == []  # nothing stored
        assert answer.json()["language"] == "remote"
        # Not connected: it waits, validating, and plays nothing.
        wait_for(lambda: server.submission("ada", number)["status"] == "validating", 30, "validating")
        assert "waiting for its bot to connect" in server.submission("ada", number)["detail"]
        # A key nobody registered gets nothing back, at the handshake.
        stranger = bot(processes, server, keys, "mallory", "refused", ply=2000)
        plain = bot(processes, server, keys, "ada", "nocurve", ply=2000)  # the right name, no CURVE
        assert "ATTACK refused: blocked (nothing came back)" in stranger.communicate(timeout=30)[1]
        assert "ATTACK nocurve: blocked (nothing came back)" in plain.communicate(timeout=30)[1]
        assert server.submission("ada", number)["status"] == "validating"
        # Another entrant's uploaded bot, so that the ladder has more to play than the remote one.
        bob = server.submit("bob", "cbot.c", CBOT).json()["id"]
        # The entrant's bot connects: validation, then ladder games.
        player = bot(processes, server, keys, "ada", "play")
        settled = server.settled("ada", number, timeout=120)
        assert settled["status"] == "active", settled
        wait_for(lambda: server.get(f"/api/games?submission={number}").json().__len__() >= 3, 120, "ladder games")
        board = {row["submission"]: row for row in server.get("/api/leaderboard").json()}
        assert board[number]["remote"] is True
        assert not any(row["remote"] for row in board.values() if row["submission"] != number)
        assert 'class="badge remote"' in server.get("/").text
        page = server.get("/entrants/ada", server.tokens["ada"])
        assert page.status_code == 200, "".join(server.output[-40:])
        assert 'id="remote-form"' in page.text and escaped(info_key(server)) in page.text
        # The bot goes away: the ladder stops scheduling it, and plays on without it.
        player.send_signal(signal.SIGKILL)
        player.wait(timeout=10)
        wait_for(lambda: f"s{number}" not in connected(server), 30, "the listener to see the bot gone")
        last = max((game["id"] for game in server.get(f"/api/games?submission={number}").json()), default=0)
        others = len(server.get(f"/api/games?submission={bob}").json())
        wait_for(lambda: len(server.get(f"/api/games?submission={bob}").json()) >= others + 6, 120,
                 "the ladder to play on")
        later = [game for game in server.get(f"/api/games?submission={number}").json() if game["id"] > last]
        assert len(later) <= 1, later  # at most one drawn before the listener saw it go
        played = [game for game in server.get(f"/api/games?submission={number}").json() if game["status"] == "done"]
        failures = [game for game in played if game["reason"] == "disconnect"]
        assert len(failures) <= 2, failures  # the game it was playing when it went (and one drawn meanwhile)
        assert all(game["offender"] == game["submissions"].index(number) for game in failures)
        # A backup keeps the server's key pair (remote bots know the server by it) and the version's key.
        done = subprocess.run([sys.executable, "-m", "arena.cli", "serve", "backup", str(server.config),
                               str(tmp_path / "copy")], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        secret = tmp_path / "copy" / "remote" / "server.key_secret"
        assert secret.read_bytes() == (server.state / "remote" / "server.key_secret").read_bytes()
        assert secret.stat().st_mode & 0o777 == 0o600
        assert (tmp_path / "copy" / "remote" / "keys" / f"s{number}.key").is_file()
        # Its validation games' logs are the validation's, not stray ladder logs; the contest verifies.
        assert len(list((server.state / "validation" / str(number) / "logs").iterdir())) == 6
        assert not list((server.state / "ladder" / "logs").glob("val*"))
        checked = subprocess.run([sys.executable, "-m", "arena.cli", "verify", str(tmp_path / "copy")],
                                 capture_output=True, text=True, timeout=300)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    finally:
        server.stop()



def test_a_listen_address_that_cannot_be_bound_stops_the_server_in_one_line(tmp_path: Path) -> None:
    require("bwrap")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = make_server(tmp_path)
        table = f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{port}"\n'
        server.config.write_text(server.config.read_text() + table)
        with pytest.raises(AssertionError, match="ended before listening"):
            server.start()
        assert server.process is not None and server.process.wait(timeout=30) != 0
        errors = [line for line in server.output if "remote bots cannot connect there" in line]
        assert errors == [f"arena serve: error: [remote] listen = 'tcp://127.0.0.1:{port}': remote bots cannot "
                          "connect there: Address already in use\n"], server.output


def test_the_finals_take_remote_entrants_only_when_the_config_says(tmp_path: Path) -> None:
    from arena.server.engine.finals import freeze_field
    from arena.server.state.config import server_config_from_data
    from arena.server.state.db import Database, Status

    for finals in (False, True):
        config = server_config_from_data({"game": "blocking", "sandbox": "none", "directory": f"state-{finals}",
                                          "remote": {"allowed": True, "finals": finals}}, tmp_path, insecure=True)
        config.directory.mkdir()
        db = Database(config.directory / "server.db")
        for number, (name, language, spec) in enumerate([("ada", "python", "random"), ("bob", "python", "maxblock"),
                                                         ("eve", "remote", "remote:s3")], 1):
            db.execute("INSERT INTO entrants (name, token_hash, created) VALUES (?, ?, 0)", name, f"h{number}")
            db.execute("INSERT INTO submissions (entrant, version, filename, language, status, created, updated, "
                       "spec) VALUES (?, 1, 'x', ?, ?, 0, 0, ?)", number, language, Status.ACTIVE,
                       json.dumps({"spec": spec, "name": name}))
        names = [bot["name"] for bot in freeze_field(config, db)]
        assert names == (["ada", "bob", "eve"] if finals else ["ada", "bob"])
        db.close()


def test_with_finals_true_a_connected_remote_entrant_plays_the_finals(
        tmp_path: Path, processes: list[subprocess.Popen[str]]) -> None:
    require("bwrap")
    port = free_port()
    # Games take milliseconds: a cap the bot cannot reach before the finals end, or it would play no more after.
    server = serve(tmp_path, f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{port}"\nfinals = true\n',
                   max_games=100_000)
    try:
        keys = tmp_path / "keys"
        keys.mkdir()
        public, _ = new_key_pair("ada", keys)
        # This time from the entrant's page: a browser session, and the form's CSRF token.
        with server.client() as browser:
            login = browser.post("/login", data={"token": server.tokens["ada"], "csrf": csrf(browser, "/login")})
            browser.cookies = login.cookies
            forged = browser.post("/remote", data={"csrf": "forged", "key": public.read_text()})
            assert forged.status_code == 403
            assert browser.post("/remote", data={"csrf": csrf(browser, "/entrants/ada"),
                                                 "key": public.read_text()}).status_code == 303
        [number] = [row["id"] for row in server.get("/api/submissions", server.tokens["ada"]).json()]
        bob = server.submit("bob", "cbot.c", CBOT).json()["id"]
        # The SDK: it says hello again on every new connection (SPEC §13), as the finals' own listener needs.
        info = server.get("/api/remote").json()
        (keys / "server.key").write_text(f'metadata\ncurve\n    public-key = "{info["server_key"]}"\n')
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "protocol.run", "--connect", info["listen"],
             "--server-key", str(keys / "server.key"), "--key", str(keys / "ada.key_secret"),
             "arena.games.blocking.bots.simple:SequentialBot"], cwd=ROOT,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True))
        assert server.settled("ada", number, timeout=120)["status"] == "active"
        assert server.settled("bob", bob, timeout=120)["status"] == "active"
        with server.client(server.admin) as client:
            client.post("/admin/freeze")
            assert "finals started" in client.post("/admin/finals").json()["message"]
        # The ladder draws no game once the finals are started: a later game was drawn after them.
        last = max((game["id"] for game in server.get(f"/api/games?submission={number}").json()), default=0)
        wait_for(lambda: server.get("/health").json()["finals"] == "done", 240, "the finals to end")
        standings = json.loads((server.state / "finals" / "standings.json").read_text())
        text = json.dumps(standings)
        assert "ada" in text and "bob" in text
        with sqlite3.connect(server.state / "finals" / "results.sqlite") as db:
            reasons = [row[0] for row in db.execute("SELECT reason FROM matches")]
        assert len(reasons) == 2 and set(reasons) <= {"normal", "blocked"}, reasons  # no failure: no timeout
        # After the finals the ladder listens again: the bot, still connected, plays on.
        def played() -> list[dict[str, object]]:
            return [game for game in server.get(f"/api/games?submission={number}").json()
                    if game["id"] > last and game["status"] == "done" and game["reason"] in ("normal", "blocked")]

        wait_for(lambda: len(played()) >= 2, 120, "ladder games after the finals")
    finally:
        server.stop()
