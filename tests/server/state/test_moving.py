"""A contest directory of the first layout (absolute paths), moved, is migrated on its first start and plays on.

tests/data/contest-layout1.tar.gz was made by `arena serve` as it was before directories could
move (commit 621e570): the `blocking` contest of tests/server/server.py at
/tmp/arena-old-layout/class-server, with three entrants (alice: a Python file; bob: a
JavaScript file, its command naming the arena's own copy of the ZeroMQ shim; carol: an
archive of a stdio bot), each ladder game's signed log recording those absolute commands,
and finals played. Unpacked anywhere else, it still verifies, starts with the leaderboard it
had, migrates (commands relative, the shim in bob's folder), plays on with every kind of
bot, and verifies again: old logs against the commands they recorded, new ones against the
relative commands.
"""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path

from tests.helpers import ROOT, require
from tests.server.server import Server, wait_for

FIXTURE = ROOT / "tests" / "data" / "contest-layout1.tar.gz"
MADE_AT = "/tmp/arena-old-layout/class-server"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, timeout=300)


def board(server: Server) -> list[tuple[str, int, float, int]]:
    return [(row["name"], row["version"], row["rating"], row["games"]) for row in server.get("/api/leaderboard").json()]


def specs(state: Path) -> dict[str, dict[str, str]]:
    with sqlite3.connect(state / "server.db") as db:
        return {name: json.loads(spec) for name, spec in db.execute(
            "SELECT e.name, s.spec FROM submissions s JOIN entrants e ON e.id = s.entrant WHERE e.house = 0")}


def test_a_directory_of_the_first_layout_moved_elsewhere_is_migrated_and_plays_on(tmp_path: Path) -> None:
    require("bwrap")
    require("node")
    with tarfile.open(FIXTURE) as archive:
        archive.extractall(tmp_path, filter="data")
    server = Server(tmp_path, tmp_path / "contest.toml", tokens=json.loads((tmp_path / "tokens.json").read_text()))
    before = specs(server.state)
    assert all(spec["spec"].count(MADE_AT) >= 1 for spec in before.values())  # the first layout: absolute paths
    checked = arena("verify", str(server.state))
    assert checked.returncode == 0 and "verified 36 matches, 36 logs: OK" in checked.stdout, checked.stdout
    server.config.write_text(re.sub(r"max_games = \d+", "max_games = 16", server.config.read_text()))
    server.start(["--paused"])
    try:
        expected = json.loads((tmp_path / "leaderboard.json").read_text())
        assert board(server) == [(row["name"], row["version"], row["rating"], row["games"]) for row in expected]
        assert any("layout: migrated: 3 versions' commands name their folders relative to the directory; 30 games"
                   in line for line in server.output)
        after = specs(server.state)
        assert after["alice"] == {"spec": "submissions/alice/v1/bot/fewest.py", "name": "alice-v1",
                                  "dir": "submissions/alice/v1/bot"}
        assert after["bob"]["spec"] == ("exec:node --require submissions/bob/v1/bot/.arena-zmq_lines.js "
                                        "submissions/bob/v1/bot/bot.js")
        assert after["carol"]["spec"].endswith("exec node stdio_bot.js' submissions/carol/v1/bot")
        assert (server.state / "submissions" / "bob" / "v1" / "bot" / ".arena-zmq_lines.js").read_bytes() == (
            ROOT / "protocol" / "node" / "zmq_lines.js").read_bytes()
        assert arena("serve", "resume", str(server.config)).returncode == 0
        wait_for(lambda: all(games >= 16 for name, _, _, games in board(server) if name in before), 240,
                 "every entrant to play on to 16 games")
    finally:
        server.stop()
    with sqlite3.connect(server.state / "server.db") as db:  # migrated once: a later start finds the layout done
        assert db.execute("SELECT value FROM settings WHERE key = 'layout'").fetchone() == ("2",)
    checked = arena("verify", str(server.state))
    assert checked.returncode == 0 and checked.stdout.rstrip().endswith("OK"), checked.stdout + checked.stderr
    played = int(re.search(r"verified (\d+) matches", checked.stdout).group(1))  # type: ignore[union-attr]
    assert played > 36 + 3
