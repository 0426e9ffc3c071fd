"""A reply sent before its request is a protocol violation (SPEC.md section 4), over pipes and ZeroMQ."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, run

BOARD = {"rows": 8, "cols": 8, "blocked": []}
CLOCK = ClockSettings(budget_ms=5000)
TRANSPORTS = {"stdio": "stdio:", "zeromq": "exec:"}


def cheater(transport: str, mode: str, arg: str = "") -> str:
    """The fixture bot in one mode, on pipes (stdio:) or over ZeroMQ (exec:)."""
    return f"{TRANSPORTS[transport]}{sys.executable} {FIXTURES / 'cheater.py'} {mode} {arg}".strip()


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_a_move_sent_before_its_turn_loses_with_reason_protocol(tmp_path: Path, transport: str) -> None:
    """The pre-sender answers its turn, then at once sends its move for the next seq."""
    log = tmp_path / "presend.msgpack"
    # The opponent takes 20 ms a move: the move sent ahead has long arrived when the next turn is due.
    # Pondering, so the bot keeps running after its answer: under strict alternation it may be
    # frozen before its second send, which then goes out only once its turn is (a plain reply).
    result, _ = run("blocking", [cheater(transport, "presend"), cheater("stdio", "delay", "20")], BOARD,
                    clock=CLOCK, log=log, ponder=True)
    assert (result.reason, result.offender) == ("protocol", 0), result.detail
    assert result.detail == ("move for seq 3 sent before that request (the last request sent was seq 2): "
                             "a bot answers only requests it has received")
    assert result.plies == 2  # its first move stands; the second was never asked for
    assert "sent the move for seq 3 before its turn" in read_log(log).output[0]
    assert verify(read_log(log)).ok


@pytest.mark.parametrize("transport", sorted(TRANSPORTS))
def test_an_honest_bot_is_not_affected(tmp_path: Path, transport: str) -> None:
    log = tmp_path / "honest.msgpack"
    result, _ = run("blocking", [cheater(transport, "delay", "0"), cheater("stdio", "delay", "20")], BOARD,
                    clock=CLOCK, log=log)
    assert result.offender is None and result.reason == "blocked", result.detail
    assert result.plies >= 4 and verify(read_log(log)).ok
