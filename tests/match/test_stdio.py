"""stdio bots: JSON lines on stdin/stdout, with the same clocks and failure handling."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, run

BOT = f"stdio:{sys.executable} {FIXTURES / 'stdiobot.py'}"


def test_stdio_bot_plays_full_matches(tmp_path: Path) -> None:
    for seed, seats in enumerate([[BOT + " good", "random"], ["maxblock", BOT + " good"]]):
        result, _ = run("blocking", seats, {"rows": 5, "cols": 6}, seed=seed, log=tmp_path / f"{seed}.msgpack")
        assert result.reason == "blocked" and result.offender is None, result.detail
        log = read_log(tmp_path / f"{seed}.msgpack")
        assert verify(log).ok
        stdio_seat = 0 if seed == 0 else 1
        assert "initialised" in log.output[stdio_seat]  # stderr is captured like any bot's


@pytest.mark.parametrize("mode", ["garbage_line", "array_line", "endless_line"])
def test_bad_stdio_output_is_a_protocol_violation(mode: str) -> None:
    result, elapsed = run("blocking", ["random", f"{BOT} {mode}"], {"rows": 5, "cols": 6})
    assert (result.reason, result.offender) == ("protocol", 1), result.detail
    assert result.ranks == [1, 2]
    assert elapsed < 5


def test_stdio_bot_that_cannot_start_crashes_cleanly() -> None:
    result, _ = run("blocking", ["stdio:/no/such/program", "random"], {"rows": 3, "cols": 3})
    assert (result.reason, result.offender) == ("crash", 0)
    assert "/no/such/program" in result.detail
