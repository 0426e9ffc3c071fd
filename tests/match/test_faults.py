"""The fault matrix: one real misbehaving process per behaviour and phase, in both isolation modes, on both wires.

For each: the match ends within budget + margin + 1 s (plus bot start-up), the offender loses
with the right reason, the opponent is credited, no process of the bot survives, the log
records what happened and verifies.
"""

from __future__ import annotations

import os
import shutil
import socket
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.processes.process import Limits
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import Wire
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import badbot, marked_processes, run, survivors

BOARD = {"rows": 4, "cols": 5}
CLOCK = ClockSettings(budget_ms=1500, margin_ms=200, startup_ms=3000)
STARTUP_CLOCK = ClockSettings(budget_ms=1500, margin_ms=200, startup_ms=1500)
LIMITS = Limits(address_space_mb=1024, file_size_mb=8)
START_UP_S = 1.5  # two bot processes starting on a loaded 2-core machine
LIMIT_S = (CLOCK.budget_ms + CLOCK.margin_ms) / 1000 + 1.0 + START_UP_S

FAULTS = [
    # before hello
    ("no_hello", "protocol"),
    ("wrong_token", "protocol"),
    ("exit_at_start", "crash"),
    ("memory", "crash"),
    ("huge_file", "crash"),
    ("crash_before_init", "crash"),
    # at init
    ("crash_at_init", "crash"),
    ("hang_at_init", "timeout"),
    ("malformed_at_init", "protocol"),
    ("oversized_at_init", "protocol"),
    ("flood_at_init", "protocol"),
    # mid game
    ("crash_mid_game", "crash"),
    ("hang", "timeout"),
    ("slow", "timeout"),
    ("illegal", "illegal"),
    ("wrong_type_move", "illegal"),
    ("malformed", "protocol"),
    ("truncated", "protocol"),
    ("not_map", "protocol"),
    ("unknown_type", "protocol"),
    ("oversized", "protocol"),
    ("deep", "protocol"),
    ("flood", "protocol"),
    ("second_socket", "timeout"),
    ("children", "timeout"),
    ("setsid_children", "timeout"),
]


# On pipes the seat has no token to present and no second connection to open; a bot that
# never answers its init loses on time there.
ZEROMQ_ONLY = {"wrong_token", "second_socket"}
ON_PIPES = {"no_hello": "timeout"}


def sandboxes() -> list[Sandbox]:
    if shutil.which("bwrap") is None and not os.environ.get("CI"):
        return [Sandbox.NONE]  # outside CI only; under CI a missing bubblewrap fails the run
    return [Sandbox.NONE, Sandbox.BWRAP]


def cases() -> list[tuple[str, str, Wire, Sandbox]]:
    """ZeroMQ in every isolation mode; pipes in the strictest there is (the wire, not the sandbox, differs)."""
    zeromq = [(mode, reason, Wire.ZEROMQ, sandbox) for sandbox in sandboxes() for mode, reason in FAULTS]
    pipes = [(mode, ON_PIPES.get(mode, reason), Wire.PIPES, sandboxes()[-1]) for mode, reason in FAULTS
             if mode not in ZEROMQ_ONLY]
    return zeromq + pipes


@pytest.mark.parametrize(("mode", "reason", "wire", "sandbox"), cases())
def test_fault(tmp_path: Path, mode: str, reason: str, wire: Wire, sandbox: Sandbox) -> None:
    seat = len(mode) % 2  # both seats get their share of faults
    pidfile = tmp_path / "pids"
    bots = ["sequential", "sequential"]
    bots[seat] = badbot(mode, pidfile, wire=wire)
    clock = STARTUP_CLOCK if mode in ("no_hello", "wrong_token") else CLOCK
    log_path = tmp_path / "m.msgpack"
    result, elapsed = run("blocking", bots, BOARD, clock=clock, log=log_path, limits=LIMITS, sandbox=sandbox, wire=wire)
    assert (result.reason, result.offender) == (reason, seat), result.detail
    assert result.ranks[seat] == 2 and result.ranks[1 - seat] == 1
    assert result.scores[1 - seat] == 1.0
    assert elapsed < LIMIT_S, f"match took {elapsed:.2f} s"
    assert survivors(pidfile) == [], "a process of the bot survived the match"
    log = read_log(log_path)
    assert log.result is not None and log.result["reason"] == reason and log.result["detail"]
    assert verify(log).ok, verify(log).message
    # The next match with a healthy bot in the same seat runs normally.
    bots[seat] = "random"
    again, _ = run("blocking", bots, BOARD, clock=clock, sandbox=sandbox, wire=wire)
    assert again.reason == "blocked" and again.offender is None


@pytest.mark.parametrize("wire", list(Wire))
@pytest.mark.parametrize(("mode", "reason"), [("garbage_after_move", "protocol"), ("exit_after_move", "crash")])
def test_what_a_seat_does_while_the_other_thinks_is_judged_at_its_next_request(
        tmp_path: Path, mode: str, reason: str, wire: Wire) -> None:
    """Garbage or an exit after a legal move: the other seat moves, then the seat is charged, at its next turn."""
    log_path = tmp_path / "m.msgpack"
    result, _ = run("blocking", [badbot(mode, wire=wire), "sequential"], {"rows": 6, "cols": 6}, clock=CLOCK,
                    log=log_path, wire=wire)
    assert (result.reason, result.offender) == (reason, 0), result.detail
    assert result.plies == 2  # its own move and the other seat's: nothing was cut short
    assert verify(read_log(log_path)).ok


@pytest.fixture
def bait(tmp_path: Path):  # noqa: ANN201 - yields (port, secret file name)
    """A secret file in the organiser's home and a TCP server on loopback, for the snoop bot."""
    secret = Path.home() / f".arena-secret-{os.getpid()}"
    secret.write_text("organiser's secret")
    server = socket.create_server(("127.0.0.1", 0))
    yield server.getsockname()[1], secret.name
    server.close()
    secret.unlink()


def snoop(tmp_path: Path, bait: tuple[int, str], sandbox: Sandbox) -> str:
    port, secret = bait
    log_path = tmp_path / "m.msgpack"
    result, _ = run("blocking", [badbot("snoop", tmp_path / "tag", f"{port}:{secret}"), "random"], BOARD,
                    log=log_path, sandbox=sandbox)
    assert result.reason == "blocked" and result.offender is None  # the attempts do not disturb the match
    return read_log(log_path).output[0]


@pytest.mark.skipif(shutil.which("bwrap") is None and not os.environ.get("CI"), reason="needs bubblewrap")
def test_sandboxed_bot_cannot_snoop(tmp_path: Path, bait: tuple[int, str]) -> None:
    output = snoop(tmp_path, bait, Sandbox.BWRAP)
    for probe in ("home", "others", "network", "write-system"):
        assert f"{probe}: denied" in output, output


def test_unsandboxed_bot_can_snoop_so_the_sandbox_test_means_something(tmp_path: Path, bait: tuple[int, str]) -> None:
    output = snoop(tmp_path, bait, Sandbox.NONE)
    assert "home: allowed" in output and "network: allowed" in output, output


def test_zz_no_bot_process_survives_the_matrix() -> None:
    assert marked_processes(descendants_of=os.getpid()) == []
