"""Every kind of single-file submission is built, validated and played: Pascal, JavaScript, C++ (arrows)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import ROOT, require
from tests.server.server import make_server, wait_for

EXAMPLES = ROOT / "bots" / "examples"


@pytest.fixture(scope="module")
def arrows(tmp_path_factory: pytest.TempPathFactory) -> Any:
    for tool in ("bwrap", "fpc", "node", "c++"):
        require(tool)
    server = make_server(tmp_path_factory.mktemp("arrows"), max_games=4)
    text = server.config.read_text().replace('game = "blocking"', 'game = "arrows"')
    text = text.replace('references = ["random", "maxblock", "perfect"]', 'references = ["random", "greedy"]')
    server.config.write_text(text.replace("fixed = { rows = 5, cols = 6 }", "fixed = { rows = 8, cols = 8 }"))
    server.add("pascal", "node", "cpp")
    server.start()
    yield server
    server.stop()


@pytest.mark.parametrize("entrant, filename, source, language", [
    ("pascal", "territory.pas", EXAMPLES / "territory.pas", "pascal"),
    ("node", "stdio_bot.js", EXAMPLES / "stdio_bot.js", "javascript"),
    ("cpp", "cbot.cpp", EXAMPLES / "cbot.c", "c++"),
])
def test_a_single_file_of_each_language_reaches_the_ladder(arrows: Any, entrant: str, filename: str,
                                                             source: Any, language: str) -> None:
    answer = arrows.submit(entrant, filename, source.read_bytes())
    assert answer.status_code == 201, answer.text
    result = arrows.settled(entrant, answer.json()["id"], timeout=300)
    assert result["language"] == language
    assert result["status"] == "active", result["build_log"] + result["validation_log"]
    wait_for(lambda: any(answer.json()["id"] in g["submissions"] and g["status"] == "done"
                         for g in arrows.get("/api/games").json()), 180, f"a ladder game of {filename}")
