"""docs/rules.md holds: every example move of its coordinates table is legal on its setup, and a bot
that opens a data file next to itself plays under the default sandbox, as the page says."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from arena.games import get_game
from tests.helpers import ROOT

RULES = (ROOT / "docs" / "rules.md").read_text()


def table_rows() -> list[tuple[str, object, dict]]:
    """(game, example move, setup) of each row of the coordinates table."""
    rows = []
    for line in RULES.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 6 or cells[0] in ("game", "---"):
            continue
        example = cells[5]
        move = json.loads(re.match(r"`([^`]+)`", example).group(1))
        setup = json.loads(re.search(r"`(\{.*\})`", example).group(1))
        rows.append((cells[0], move, setup))
    return rows


def test_every_game_has_a_row_and_its_example_move_is_legal() -> None:
    rows = table_rows()
    assert sorted(game for game, _, _ in rows) == ["arrows", "blocking", "blocky", "tenten", "tiles"]
    for name, move, setup in rows:
        game = get_game(name)
        players = 1 if game.max_players == 1 or name == "blocky" else 2
        state, _ = game.start(game.validate_setup(setup, players), players, 1)
        assert state.to_move() is not None, name
        state.apply(move)  # raises IllegalMove when the table is wrong


def test_a_bot_opens_a_data_file_next_to_itself_under_the_default_sandbox(tmp_path: Path) -> None:
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "weights.json").write_text(json.dumps({"corner": [0, 0]}))
    (folder / "bot.py").write_text(
        "from pathlib import Path\n"
        "import json\n"
        "from protocol import Bot\n\n"
        "WEIGHTS = json.loads(Path(__file__).with_name('weights.json').read_text())  # beside this file\n\n\n"
        "class CornerBot(Bot):\n"
        "    def turn(self, events, time_left_ms):\n"
        "        return WEIGHTS['corner']\n")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", str(folder / "bot.py"), "random",
                          "--set", "rows=2", "--set", "cols=2", "--json", "--log", str(tmp_path / "m.msgpack")],
                         capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    # [0, 0] blocks the whole 2 x 2 board: the bot that read its file wins on the first move.
    assert result["reason"] == "blocked" and result["ranks"] == [1, 2], (result, out.stderr)
