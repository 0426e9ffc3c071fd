"""The README's promises: the Quick start block and the example bot really run."""

from __future__ import annotations

import re
from pathlib import Path

from tests.helpers import ROOT, run

README = (ROOT / "README.md").read_text()


def test_quick_start_has_exactly_two_lines() -> None:
    block = re.search(r"^#+\s*Quick start.*?```[a-z]*\n(.*?)```", README, re.S | re.M)
    assert block is not None
    lines = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(lines) == 2
    assert "arena " in lines[0] and "pytest" in lines[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "lines[1]" in ci and 'bash -c "$test_line"' in ci


def test_readme_python_bot_plays(tmp_path: Path) -> None:
    code = re.search(r"```python\n(.*?)```", README, re.S)
    assert code is not None
    bot = tmp_path / "fewest.py"
    bot.write_text(code.group(1))
    for seats in ([str(bot), "maxblock"], ["random", str(bot)]):
        result, _ = run("blocking", seats, {"rows": 6, "cols": 7})
        assert result.reason == "blocked", result.detail
