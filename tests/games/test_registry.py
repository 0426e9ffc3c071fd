"""A game is one folder: a copy of a built-in game's folder, elsewhere and under a new name, is another game.

Copying the folder and nothing else: `arena --games DIR` lists its bots, plays its matches in the
default sandbox (the bots import the copied folder as arena.games.NEWNAME), runs and verifies a
tournament, draws its log with the copied drawing, and passes check-game; the registry's own
rules (names, duplicates, ARENA_GAMES, the finder) hold.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import GameFolderError, add_game_paths, game_folders
from arena.games.registry import ENV_VARIABLE, folders_in
from arena.logs.matchlog import read_log
from tests.helpers import ROOT, require
from tests.server.fixtures import FEWEST
from tests.server.server import make_server, wait_for

BUILTIN = ROOT / "arena" / "games" / "blocking"


def arena(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, check=False, env=env)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of games outside the repository holding a copy of Blocking called `blocks`."""
    where = tmp_path_factory.mktemp("teacher") / "games"
    shutil.copytree(BUILTIN, where / "blocks", ignore=shutil.ignore_patterns("__pycache__"))
    return where


def test_the_copy_lists_its_bots_and_plays_in_the_sandbox(games: Path) -> None:
    listed = arena("--games", str(games), "bots", "blocks", cwd=games.parent)
    assert listed.returncode == 0, listed.stderr
    assert [line.split()[1] for line in listed.stdout.splitlines()] == ["maxblock", "perfect", "random", "sequential"]
    log = games.parent / "m.msgpack"
    played = arena("--games", str(games), "match", "blocks", "perfect", "random", "--set", "rows=5", "--set",
                   "cols=5", "--json", "--log", str(log), "--sandbox", "auto", cwd=games.parent)
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["game"] == "blocks"
    verified = arena("--games", str(games), "replay", str(log), "--verify", cwd=games.parent)
    assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified.stdout
    unknown = arena("replay", str(log), "--verify", cwd=games.parent)  # without the folder: said, not a crash
    assert unknown.returncode == 1 and "unknown game 'blocks'" in unknown.stdout
    assert "--games DIR" in unknown.stdout


def test_a_tournament_of_the_copy_verifies_and_its_pages_draw_with_the_copied_drawing(games: Path) -> None:
    out = games.parent / "results"
    done = arena("--games", str(games), "tournament", "blocks", "maxblock", "random", "--games", "2", "--set",
                 "rows=4", "--set", "cols=5", "--out", str(out), cwd=games.parent)
    assert done.returncode == 0, done.stderr
    verified = arena("--games", str(games), "verify", str(out), cwd=games.parent)
    assert verified.returncode == 0 and "OK" in verified.stdout, verified.stdout + verified.stderr
    log = sorted((out / "logs").glob("*.msgpack"))[0]
    page = games.parent / "page.html"
    viewed = arena("--games", str(games), "view", str(log), "--html", str(page), cwd=games.parent)
    assert viewed.returncode == 0, viewed.stderr
    html = page.read_text()
    assert (games / "blocks" / "draw.js").read_text().splitlines()[3] in html  # the copy's own drawing
    require("chromium")
    from arena.viewer.headless import draw_every_frame

    frames = json.loads(html.split('id="arena-data">', 1)[1].split("</script>", 1)[0])["frames"]
    assert draw_every_frame(page, len(frames)).errors == []


def test_the_copy_passes_check_game(games: Path) -> None:
    done = arena("--games", str(games), "check-game", "blocks", "--no-browser", cwd=games.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1] == "blocks: every part checked passes"


def test_arena_games_and_the_environment_find_it_too(games: Path) -> None:
    env = {**os.environ, ENV_VARIABLE: str(games)}
    listed = arena("games", cwd=games.parent, env=env)
    assert listed.returncode == 0, listed.stderr
    assert any(line.startswith("blocks ") for line in listed.stdout.splitlines())
    assert f"folder: {games / 'blocks'} ({ENV_VARIABLE})" in listed.stdout


def test_a_name_found_twice_or_a_bad_folder_is_one_line(tmp_path: Path) -> None:
    twice = tmp_path / "twice" / "blocking"
    shutil.copytree(BUILTIN, twice, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    out = arena("--games", str(twice.parent), "games", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "two games are called blocking" in out.stderr, out.stderr
    missing = arena("--games", str(tmp_path / "nowhere"), "games", cwd=tmp_path)
    assert missing.returncode == 2 and f"no such folder: {tmp_path / 'nowhere'}" in missing.stderr


def test_adding_a_bad_path_changes_nothing_found(tmp_path: Path) -> None:
    before = dict(game_folders())
    with pytest.raises(GameFolderError):
        add_game_paths([tmp_path / "nowhere"])
    assert game_folders() == before
    (tmp_path / "notes").mkdir()  # a folder without rules.py is no game
    assert folders_in(tmp_path, "test") == []


def test_a_contest_server_plays_the_copy_on_its_ladder(games: Path) -> None:
    """`arena serve` with `game = "blocks"` and the config's `games` key: a student's bot is validated and placed."""
    where = games.parent / "contest"
    where.mkdir()
    server = make_server(where, max_games=6)
    server.config.write_text('games = "../games"\n' + server.config.read_text().replace('game = "blocking"',
                                                                                       'game = "blocks"'))
    server.add("alice")
    server.start()
    try:
        answer = server.submit("alice", "fewest.py", FEWEST)
        assert answer.status_code == 201, answer.text
        assert server.settled("alice", answer.json()["id"])["status"] == "active"
        played = wait_for(lambda: [g for g in server.get("/api/games").json() if g["status"] == "done"], 180,
                          "a ladder game of the copy")
        assert server.get(played[0]["replay"]).status_code == 200
    finally:
        server.stop()
    logs = sorted((server.state / "ladder" / "logs").glob("*.msgpack"))
    assert logs
    verified = arena("--games", str(games), "replay", str(logs[0]), "--verify", cwd=where)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert read_log(logs[0]).header["game"] == "blocks"
