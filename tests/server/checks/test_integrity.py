"""Collusion on a contest server: a real `arena serve`, two uploaded colluders, ladder, `arena integrity`, admin page.

The thrower and its partner (tests/fixtures/handshake_colluder.py, uploaded as students would) play the
ladder against the reference bots on a 6 x 6 Blocking board, and each asks for test games
against the other; the thrower loses every game to its partner after the handshake. `arena integrity` on the server's
directory, run while it serves, flags that pair first, as does the admin's page; with two
secrets (no handshake) the same server flags nothing.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import FIXTURES, require
from tests.server.server import Server, make_server, wait_for

THROWN = 6  # test games each colluder asks for against the other (the asker moves first)
LADDER_GAMES = 30  # rated games of each version, after which the ladder rests
CONFIG_CHANGES = (("fixed = { rows = 5, cols = 6 }", "fixed = { rows = 6, cols = 6 }"), ("workers = 1", "workers = 2"))


def colluder(secret: str, role: str) -> bytes:
    """The colluder's source as a student uploads it: its secret and role written in."""
    text = (FIXTURES / "handshake_colluder.py").read_text()
    return text.replace('SECRET = "integrity"', f"SECRET = {secret!r}").replace(
        'ROLE = "thrower"', f"ROLE = {role!r}").encode()


def versions(server: Server) -> dict[str, int]:
    """Entrant name -> the id of its version (one each)."""
    with sqlite3.connect(f"file:{server.state / 'server.db'}?mode=ro", uri=True) as db:
        return dict(db.execute("SELECT e.name, s.id FROM submissions s JOIN entrants e ON e.id = s.entrant "
                               "WHERE e.house = 0"))


def at_rest(server: Server) -> bool:
    """True once every game asked for is played and both versions have all their ladder games."""
    with sqlite3.connect(f"file:{server.state / 'server.db'}?mode=ro", uri=True) as db:
        waiting = db.execute("SELECT COUNT(*) FROM games WHERE status IN ('queued', 'running')").fetchone()[0]
        short = db.execute("SELECT COUNT(*) FROM submissions s JOIN entrants e ON e.id = s.entrant "
                           "WHERE e.house = 0 AND s.games < ?", (LADDER_GAMES,)).fetchone()[0]
    return waiting == 0 and short == 0


def fingerprint(server: Server) -> str:
    """The games and ratings as the database holds them (what the check must leave alone)."""
    with sqlite3.connect(f"file:{server.state / 'server.db'}?mode=ro", uri=True) as db:
        rows = db.execute("SELECT id, status, scores, ranks, reason FROM games ORDER BY id").fetchall()
        rows += db.execute("SELECT id, mu, sigma, games FROM submissions ORDER BY id").fetchall()
    return repr(rows)


def contest(tmp: Path, secrets: tuple[str, str]) -> Server:
    """A started server where the thrower and the partner (with these secrets) have played enough."""
    require("bwrap")
    server = make_server(tmp, max_games=LADDER_GAMES)
    text = server.config.read_text()
    for old, new in CONFIG_CHANGES:
        assert old in text
        text = text.replace(old, new)
    server.config.write_text(text)
    server.add("thrower", "partner")
    server.start()
    for name, secret, role in (("thrower", secrets[0], "thrower"), ("partner", secrets[1], "partner")):
        answer = server.submit(name, "colluder.py", colluder(secret, role))
        assert answer.status_code == 201, answer.text
        assert server.settled(name, answer.json()["id"])["status"] == "active"
    ids = versions(server)
    for asker, other in (("thrower", "partner"), ("partner", "thrower")):
        with server.client(server.tokens[asker]) as client:
            for _ in range(THROWN):
                answer = client.post("/api/scrimmages", json={"opponent": ids[other]})
                assert answer.status_code == 201, answer.text
    wait_for(lambda: at_rest(server), 420, "the test games and the ladder's games")
    return server


def integrity(server: Server, *options: str) -> subprocess.CompletedProcess[str]:
    """`arena integrity` on the server's directory, as the organiser runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", "integrity", str(server.state), *options],
                          capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def colluding(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = contest(tmp_path_factory.mktemp("colluding"), ("s3cret", "s3cret"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Any:
    server = contest(tmp_path_factory.mktemp("honest"), ("mine", "yours"))
    yield server
    server.stop()


def test_the_check_flags_the_colluding_pair_first_and_changes_nothing(colluding: Server) -> None:
    before = fingerprint(colluding)
    done = integrity(colluding, "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    ladder = json.loads(done.stdout)["reports"][0]
    first = ladder["pairs"][0]
    assert (first["player"], first["opponent"], first["flagged"]) == ("thrower v1", "partner v1", True), first
    (blunders, moves), (elsewhere, others) = first["blunders"]["against"], first["blunders"]["others"]
    # Each thrown game: one move from the won position the handshake left to a lost one.
    assert blunders >= THROWN and blunders / moves > 0.3 > 3 * elsewhere / others
    assert first["points"] == 0 and first["expected"] > 1
    text = integrity(colluding)
    assert fingerprint(colluding) == before
    assert "FLAGGED" in text.stdout and "  1. thrower v1 -> partner v1:" in text.stdout, text.stdout


def test_the_admin_page_shows_the_same_verdict(colluding: Server) -> None:
    admin = colluding.admin
    page = colluding.get("/admin", admin)
    assert 'href="/admin/integrity"' in page.text
    with colluding.client(admin) as client:
        data = client.get("/admin/integrity", headers={"Accept": "application/json"}).json()
        html = client.get("/admin/integrity").text
    flagged = data["reports"][0]["pairs"][0]
    assert (flagged["player"], flagged["opponent"], flagged["flagged"]) == ("thrower v1", "partner v1", True)
    assert "thrower v1 &rarr; partner v1" in html and 'class="flagged"' in html
    with colluding.client(colluding.tokens["thrower"]) as client:  # an entrant sees none of it
        refused = client.get("/admin/integrity", headers={"Accept": "application/json"})
    assert refused.status_code == 403 and "pairs" not in refused.text


def test_without_the_handshake_the_same_contest_flags_nothing(honest: Server) -> None:
    done = integrity(honest, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    ladder = json.loads(done.stdout)["reports"][0]
    assert ladder["flagged"] == 0 and ladder["games"] > 20
    pair = next(p for p in ladder["pairs"] if (p["player"], p["opponent"]) == ("thrower v1", "partner v1"))
    assert pair["games"] >= 2 * THROWN and not pair["flagged"]  # they met, as often as the colluders did
    with honest.client(honest.admin) as client:
        html = client.get("/admin/integrity").text
    assert 'id="integrity-clean"' in html
