"""`arena serve backup` while twenty entrants play, then a restore into a fresh directory: a real server, twice.

The copy is made while the ladder plays; then the server dies and its directory is lost. The
backup, put in its place, passes `arena verify`; the server started on it (paused) shows the
very leaderboard of the moment of the backup and, resumed, plays on into a contest that
still verifies.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, require
from tests.server.fixtures import FEWEST
from tests.server.server import Server, make_server, wait_for

ENTRANTS = [f"student{i:02d}" for i in range(20)]
# The README's bot, thinking 50 ms a move: the ladder is still playing when the backup is made.
STEADY = FEWEST.replace(b"from protocol import Bot", b"import time\n\nfrom protocol import Bot").replace(
    b"        for seat, (r, c) in events:", b"        time.sleep(0.05)\n        for seat, (r, c) in events:")


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True,
                          timeout=timeout)


def done(state: Path) -> int:
    with sqlite3.connect(state / "server.db") as db:
        return int(db.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0])


def board_of(state: Path) -> list[tuple[str, int, float, int]]:
    """The leaderboard as the database holds it: (name, version, mu - 3 sigma, games), best first."""
    with sqlite3.connect(state / "server.db") as db:
        rows = db.execute("SELECT CASE WHEN e.house THEN s.filename ELSE e.name END, s.version, "
                          "s.mu - 3 * s.sigma, s.games FROM submissions s JOIN entrants e ON e.id = s.entrant "
                          "WHERE s.status = 'active' AND e.disabled = 0").fetchall()
    return sorted(((name, version, round(rating, 2), games) for name, version, rating, games in rows),
                  key=lambda row: (-row[2], row[0]))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("backup"), max_games=40, per_hour=5)
    server.config.write_text(server.config.read_text().replace('references = ["random", "maxblock", "perfect"]',
                                                               'references = ["random", "maxblock"]'))
    server.add(*ENTRANTS)
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def test_a_backup_made_while_twenty_entrants_play_restores_to_the_same_leaderboard(server: Server) -> None:
    answers: dict[str, Any] = {}
    def upload(name: str) -> None:
        answers[name] = server.submit(name, "bot.py", STEADY)

    threads = [threading.Thread(target=upload, args=(name,)) for name in ENTRANTS]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(answers) == ENTRANTS and {a.status_code for a in answers.values()} == {201}
    for name, answer in answers.items():
        assert server.settled(name, answer.json()["id"], timeout=300)["status"] == "active", name
    wait_for(lambda: done(server.state) >= 30, 180, "thirty ladder games")
    assert server.get("/health").json()["games_running"] + server.get("/health").json()["games_queued"] > 0

    backup = server.directory / "backups" / "monday"
    made = arena("serve", "backup", str(server.config), str(backup))
    assert made.returncode == 0, made.stdout + made.stderr
    assert made.stdout.startswith(f"backed up {server.state} to {backup}: ") and made.stderr == ""
    wait_for(lambda: any(f"backup: {server.state} to {backup}: " in line for line in server.output), 30,
             "the running server to tell the backup")
    assert oct(backup.stat().st_mode & 0o777) == "0o700" and (backup / "admin.token").stat().st_mode & 0o077 == 0
    snapshot = done(backup)
    wait_for(lambda: done(server.state) > snapshot, 60, "the ladder to play on past the backup")
    assert not (backup / "server.db-wal").exists() and not (backup / "arena.lock").exists()
    manifest = json.loads((backup / "backup.json").read_text())
    assert manifest["games"] == snapshot and manifest["logs"] >= snapshot
    again = arena("serve", "backup", str(server.config), str(backup))
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "exists" in again.stderr

    # The machine dies; the restore (docs/server.md): the copy becomes the contest's directory on
    # another disk (another folder, the config beside it), and the server starts on it paused.
    server.stop(signal.SIGKILL)
    lost = done(server.state)
    old = server.state
    shutil.rmtree(old)
    other = Server(server.directory / "other-disk", server.directory / "other-disk" / "contest.toml",
                   tokens=server.tokens)
    other.directory.mkdir()
    other.config.write_text(server.config.read_text())
    shutil.copytree(backup, other.state, symlinks=True)
    naming = {path.relative_to(other.state).as_posix() for path in other.state.rglob("*")
              if path.is_file() and (str(old).encode() in path.read_bytes() or str(ROOT).encode() in path.read_bytes())}
    assert naming == {"backup.json"}  # where it was made from, for the admin; nothing else names a path of here
    checked = arena("verify", str(other.state))
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith("OK"), checked.stdout + checked.stderr
    assert f"verified {snapshot} matches, {snapshot} logs" in checked.stdout
    expected = board_of(backup)
    assert len(expected) == 22 and lost > snapshot  # twenty entrants and two reference bots; games were lost
    server.process = None
    server = other
    server.start(["--paused"])
    shown = [(row["name"], row["version"], row["rating"], row["games"])
             for row in server.get("/api/leaderboard").json()]
    assert shown == expected
    assert any(f"start: restored from the backup of {old} made " in line for line in server.output)
    assert server.get("/health").json()["paused"] is True and done(server.state) == snapshot
    assert server.submission("student03", answers["student03"].json()["id"])["status"] == "active"  # tokens work
    with server.client(server.admin) as admin:
        assert "plays again" in admin.post("/admin/resume").json()["message"]
    wait_for(lambda: done(server.state) >= snapshot + 20, 120, "the restored ladder to play on")
    server.stop()
    after = arena("verify", str(server.state))
    assert after.returncode == 0 and after.stdout.rstrip().endswith("OK"), after.stdout + after.stderr


def test_forwarded_addresses_from_an_untrusted_proxy_are_not_believed(server: Server) -> None:
    config = server.config.read_text().replace('trusted_proxies = ["127.0.0.1"]', 'trusted_proxies = ["192.0.2.1"]')
    server.config.write_text(config)
    server.process = None
    server.start()
    # A loopback connection carrying a forwarded address: someone's request passed on by a proxy
    # the config does not name, so not this machine's.
    assert server.get("/metrics").status_code == 200
    with server.client() as client:
        assert client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 403
        # Each forged address is ignored: every failure counts against the connection's own.
        answers = [client.get("/api/submissions", headers={"Authorization": "Bearer wrong-token-" + "x" * 20,
                                                            "X-Forwarded-For": f"203.0.113.{n}"})
                   for n in range(21)]
    assert [a.status_code for a in answers] == [401] * 20 + [429]
