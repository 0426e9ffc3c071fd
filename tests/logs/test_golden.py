"""Every game's golden match log (its folder's tests/golden.msgpack) still re-simulates exactly."""

from __future__ import annotations

import pytest

from arena.games import game_file, game_names
from arena.logs.matchlog import read_log
from arena.logs.replay import verify

GOLDEN = [name for name in game_names() if game_file(name, "tests/golden.msgpack") is not None]


def test_the_games_keep_golden_logs() -> None:
    assert GOLDEN, "no game keeps a golden log (tests/golden.msgpack in its folder)"


@pytest.mark.parametrize("game", GOLDEN)
def test_golden_log_verifies(game: str) -> None:
    path = game_file(game, "tests/golden.msgpack")
    assert path is not None
    log = read_log(path)
    verdict = verify(log)
    assert verdict.ok, verdict.message
    assert log.header["game"] == game and log.result is not None and log.result["scores"]
