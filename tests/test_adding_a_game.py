"""docs/adding-a-game.md holds: its code, applied to a fresh `arena new-game` folder, gives Connect Four.

Every fenced block whose info string names a file (```python connect4/rules.py) is applied as
the page says: a Python block replaces the top-level names it defines (functions, classes,
assignments) and adds the new ones; any other block is the whole file. The result must pass
every check of `arena check-game` (the drawing in Chromium included), play by gravity, run its
own tests, and serve as a contest's game.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, require

PAGE = (ROOT / "docs" / "adding-a-game.md").read_text()
BLOCK = re.compile(r"^```(\w+) (\S+)\n(.*?)^```", re.S | re.M)


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the arena command line in cwd."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, check=False)


def defined(node: ast.stmt) -> tuple[str, ...]:
    """The names a top-level statement defines."""
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return (node.name,)
    if isinstance(node, ast.Assign):
        return tuple(n.id for t in node.targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return ()


def apply_python(path: Path, block: str) -> None:
    """Replace in path the top-level definitions the block defines; insert the new ones where the block puts them."""
    source = path.read_text()
    lines = source.splitlines(keepends=True)
    body = ast.parse(source).body
    spans = {names: (n.lineno - 1 - len(getattr(n, "decorator_list", [])), n.end_lineno)
             for n in body if (names := defined(n))}
    new_nodes = ast.parse(block).body
    block_lines = block.splitlines(keepends=True)
    edits: list[tuple[int, int, str]] = []  # (start, end, text): replace lines[start:end]
    pending = ""
    for node in new_nodes:
        text = "".join(block_lines[node.lineno - 1:node.end_lineno]) + "\n\n"
        names = defined(node)
        if names in spans:
            start, end = spans[names]
            edits.append((start, end, pending + text.rstrip("\n") + "\n"))
            pending = ""
        else:
            pending += text
    if pending:
        edits.append((len(lines), len(lines), "\n\n" + pending))
    for start, end, text in sorted(edits, reverse=True):
        lines[start:end] = [text]
    path.write_text("".join(lines))


def blocks() -> list[tuple[str, str, str]]:
    """(language, file, code) of every block of the page that names a file."""
    return [(lang, name, code) for lang, name, code in BLOCK.findall(PAGE)]


def test_the_page_names_the_files_it_changes() -> None:
    names = [name for _, name, _ in blocks()]
    assert names == ["connect4/rules.py", "connect4/tests/test_rules.py", "connect4/view.py", "connect4/RULES.md",
                     "connect4/bots.py", "contest.toml"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of games holding the page's Connect Four."""
    games = tmp_path_factory.mktemp("work") / "games"
    games.mkdir()
    made = arena("new-game", "connect4", str(games), cwd=games.parent)
    assert made.returncode == 0, made.stderr
    for lang, name, code in blocks():
        path = games.parent / name if name == "contest.toml" else games / name
        if lang == "python":
            apply_python(path, code)
        else:
            path.write_text(code)
    return games


def test_the_game_the_page_makes_passes_every_check(folder: Path) -> None:
    require("chromium")
    done = arena("--games", str(folder), "check-game", "connect4", cwd=folder.parent)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok    drawing: draw.js draws every frame" in done.stdout
    assert "ok    bots: 3 bots (centre, greedy, random)" in done.stdout


def test_a_disc_falls_to_the_bottom_and_the_rules_document_says_so(folder: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from arena.api import game_from_folder

    game = game_from_folder(folder / "connect4")
    state, _ = game.start(game.validate_setup({}), 2, 1)
    state.apply(3)
    state.apply(3)
    data = state.to_data()
    assert data["cells"][5 * 7 + 3] == "X" and data["cells"][4 * 7 + 3] == "O"
    assert game.render_move(3) == "column 3" and state.legal_moves() == list(range(7))
    assert "Connect Four" in (folder / "connect4" / "RULES.md").read_text()


def test_a_match_plays_and_its_log_verifies(folder: Path) -> None:
    log = folder.parent / "m.msgpack"
    done = arena("--games", str(folder), "match", "connect4", "centre", "greedy", "--json", "--log", str(log),
                 cwd=folder.parent)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["reason"] in ("normal", "blocked")
    verified = arena("--games", str(folder), "replay", str(log), "--verify", cwd=folder.parent)
    assert verified.returncode == 0 and "OK verified" in verified.stdout, verified.stdout + verified.stderr


def test_its_own_tests_pass(folder: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0",
                           str(folder / "connect4")], capture_output=True, text=True, cwd=folder, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]


def test_the_contest_config_loads_with_the_game(folder: Path) -> None:
    require("bwrap")
    from arena.server.state.config import load_server_config

    config = load_server_config(folder.parent / "contest.toml")
    assert config.tournament.game == "connect4"
    assert [bot.name for bot in config.tournament.bots] == ["random", "greedy", "centre"]
