"""`arena check-game` on whole folders: every game found passes it, and a half-made game fails naming what is missing.

Run as a user would: the real command line, bots in the default sandbox, the drawing in
headless Chromium (under CI a missing Chromium is a failure, elsewhere the drawing part says
it was skipped).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import game_folder, game_names
from tests.helpers import ROOT, require


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, check=False,
                          cwd=cwd, timeout=600)


def parts(out: subprocess.CompletedProcess[str]) -> dict[str, str]:
    """part -> its status, from check-game's output."""
    found = {}
    for line in out.stdout.splitlines():
        status, _, rest = line.partition("  ")
        if status.strip() in ("ok", "FAIL", "skip", "none") and ":" in rest:
            found[rest.split(":")[0].strip()] = status.strip()
    return found


@pytest.fixture(scope="module")
def chromium() -> bool:
    """True when the drawing can be checked here (always under CI)."""
    if os.environ.get("CI"):
        require("chromium")
        return True
    return shutil.which("chromium") is not None


@pytest.mark.parametrize("game", game_names())
def test_every_game_found_passes_every_check(game: str, chromium: bool) -> None:
    out = arena("check-game", game)
    assert out.returncode == 0, out.stdout + out.stderr
    found = parts(out)
    assert set(found) == {"rules", "bots", "view", "drawing", "docs", "demo", "solver"}, out.stdout
    assert found["rules"] == found["bots"] == found["docs"] == "ok", out.stdout
    assert found["solver"] == ("ok" if (game_folder(game).path / "solver.py").is_file() else "none"), out.stdout
    assert found["drawing"] in (("ok",) if chromium else ("ok", "skip", "none")), out.stdout
    assert out.stdout.splitlines()[-1] == f"{game}: every part checked passes"


@pytest.fixture
def scaffold(tmp_path: Path) -> Path:
    """A fresh `arena new-game` folder."""
    made = arena("new-game", "noughts", str(tmp_path), cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    assert f"made {tmp_path / 'noughts'}" in made.stdout and "--games" in made.stdout
    return tmp_path / "noughts"


def test_a_scaffolded_game_passes_and_plays_at_once(scaffold: Path, chromium: bool) -> None:
    out = arena("--games", str(scaffold.parent), "check-game", "noughts")
    assert out.returncode == 0, out.stdout + out.stderr
    assert parts(out) == {"rules": "ok", "bots": "ok", "view": "ok", "drawing": "ok" if chromium else "skip",
                          "docs": "ok", "demo": "ok", "solver": "none"}, out.stdout
    played = arena("--games", str(scaffold.parent), "match", "noughts", "greedy", "random", "--json",
                   "--log", str(scaffold.parent / "m.msgpack"))
    assert played.returncode == 0, played.stderr


def test_without_its_drawing_a_game_gets_the_text_drawing_and_the_check_says_so(scaffold: Path) -> None:
    (scaffold / "draw.js").unlink()
    (scaffold / "draw.py").unlink()
    out = arena("check-game", str(scaffold), "--no-browser")
    assert out.returncode == 0, out.stdout
    assert "none  drawing: no drawing of its own (draw.js): the viewer shows the rules' text picture" in out.stdout


def test_without_its_bots_the_check_fails_naming_what_is_missing(scaffold: Path) -> None:
    (scaffold / "bots.py").unlink()
    out = arena("check-game", str(scaffold), "--no-browser")
    assert out.returncode == 1
    assert ("FAIL  bots: no bots: the folder needs bots.py or bots/ with BOTS = [...], a random bot at least"
            in out.stdout), out.stdout
    assert out.stdout.splitlines()[-1] == "noughts: FAIL: bots, demo"  # the demo names the bots that are gone


def test_a_game_of_rules_alone_fails_naming_each_missing_part(scaffold: Path) -> None:
    for name in ("bots.py", "view.py", "draw.py", "draw.js", "RULES.md", "demo.toml"):
        (scaffold / name).unlink()
    out = arena("check-game", str(scaffold), "--no-browser")
    assert out.returncode == 1
    assert parts(out) == {"rules": "ok", "bots": "FAIL", "view": "none", "drawing": "none", "docs": "FAIL",
                          "demo": "none", "solver": "none"}, out.stdout
    assert "FAIL  docs: no rules document: RULES.md" in out.stdout


def test_a_drawing_that_throws_fails_the_check_with_its_error(scaffold: Path) -> None:
    require("chromium")
    script = scaffold / "draw.js"
    script.write_text(script.read_text().replace('var s = kit.cellSize(', 'if (b.last !== null) { throw new Error('
                                                 '"no such pen: " + b.last); }\n  var s = kit.cellSize(', 1))
    out = arena("check-game", str(scaffold))
    assert out.returncode == 1
    assert "FAIL  drawing: draw.js draws every frame" in out.stdout, out.stdout
    assert "Shown as text: its drawing failed at ply 1: Error: no such pen:" in out.stdout, out.stdout


def test_a_bad_folder_is_one_line(tmp_path: Path) -> None:
    out = arena("check-game", str(tmp_path))
    assert out.returncode == 2
    assert out.stderr.strip() == (f"arena check-game: error: {tmp_path} is not a game's folder (no rules.py) "
                                  "and holds none")
    bad = tmp_path / "my-game"
    bad.mkdir()
    (bad / "rules.py").write_text("GAME = None\n")
    out = arena("--games", str(tmp_path), "games")
    assert out.returncode == 2
    assert out.stderr.startswith("arena: error: --games: ") and "my-game" in out.stderr and "identifier" in out.stderr


def test_a_drawing_that_fails_only_in_a_seats_view_fails_the_check(tmp_path: Path) -> None:
    require("chromium")
    copy = tmp_path / "games" / "bids"  # Goofspiel, a game of hidden information, copied under another name
    shutil.copytree(ROOT / "arena" / "games" / "goofspiel", copy, ignore=shutil.ignore_patterns("__pycache__", "tests"))
    control = arena("--games", str(copy.parent), "check-game", "bids", "--games", "2", cwd=tmp_path)
    assert control.returncode == 0, control.stdout + control.stderr
    assert "(14 frames, and each of 2 seats' own views)" in control.stdout, control.stdout
    script = copy / "draw.js"
    # A player's view has no prize deck (null); the whole truth has one: only the seats' views throw.
    script.write_text(script.read_text().replace("function draw(root, b) {", 'function draw(root, b) {\n  if ('
                                                 'b.deck === null) { throw new Error("no deck to draw"); }', 1))
    out = arena("--games", str(copy.parent), "check-game", "bids", "--games", "2", cwd=tmp_path)
    assert out.returncode == 1
    assert parts(out)["drawing"] == "FAIL" and "seat 0's view, ply 0: " in out.stdout, out.stdout
    assert "Error: no deck to draw" in out.stdout, out.stdout
