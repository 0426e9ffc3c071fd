"""docs/rules.md holds: it points to every game's own RULES.md, and a bot that opens a data file next to
itself plays under the default sandbox, as the page says. (Each game's RULES.md and its example moves
are checked by `arena check-game`, which the suite runs on every game found.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.games import game_file, game_names
from tests.helpers import ROOT

RULES = (ROOT / "docs" / "rules.md").read_text()


def test_the_page_points_to_each_games_own_rules_and_every_game_has_them() -> None:
    assert "RULES.md" in RULES and "arena games" in RULES
    assert [name for name in game_names() if game_file(name, "RULES.md") is None] == []


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
