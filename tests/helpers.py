"""Shared helpers of the end-to-end tests."""

from __future__ import annotations

import os
import shutil
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.clock import ClockSettings
from arena.games import State, get_game
from arena.launch.processes.isolation import MARK_VARIABLE
from arena.launch.processes.process import Limits
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import Wire, default_wire, parse_bot_spec
from arena.match.onematch import MatchPlan, play_match
from arena.match.result import MatchResult
from arena.setups import complete_setup
from protocol.bot import Bot

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def badbot(mode: str, pidfile: Path | None = None, extra: str = "", wire: Wire = Wire.ZEROMQ) -> str:
    """The spec of the misbehaving fixture bot in one mode: exec: (ZeroMQ), or stdio: (its pipes)."""
    tail = f" {pidfile}" if pidfile else ""
    tail += f" {extra}" if extra else ""
    kind = "exec" if wire == Wire.ZEROMQ else "stdio"
    return f"{kind}:{sys.executable} {FIXTURES / 'badbot.py'} {mode}{tail}"


def run(game: str, bots: list[str], setup: dict | None = None, seed: int = 1,
        clock: ClockSettings | list[ClockSettings] | None = None, log: Path | None = None,
        limits: Limits | None = None, sandbox: Sandbox = Sandbox.NONE,
        ponder: bool = False, wire: Wire | None = None) -> tuple[MatchResult, float]:
    """Play one match through the real referee (wire: that of bots that can choose); the result and its wall time."""
    rules = get_game(game)
    specs = [default_wire(parse_bot_spec(b, game), wire) for b in bots]
    full = complete_setup(rules, setup or {}, len(specs), seed)
    plan = MatchPlan(rules, specs, full, seed, clock or ClockSettings(), f"test-{seed}", log,
                     limits or Limits(), sandbox, ponder=ponder)
    started = time.monotonic()
    result = play_match(plan)
    return result, time.monotonic() - started


def require(tool: str) -> str:
    """The tool's path; skips without it, but fails under CI, where .ci/apt-packages installs it."""
    path = shutil.which(tool)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"{tool} is missing under CI (.ci/apt-packages should install it)")
        pytest.skip(f"{tool} is not installed")
    return path


def duel(game: str, setup: dict, bots: list[Bot], budget_ms: int,
         after_move: Callable[[State, int, Any], None] | None = None) -> tuple[Any, list[int]]:
    """Play two bots in process as the referee does; return the final state and clocks left.

    Each seat's clock is charged from request to reply (initialisation included) and must
    never run out; each bot gets the other's moves since its last turn. after_move(state,
    seat, move) sees every position just after a move.
    """
    state, _ = get_game(game).start(setup, 2, 0)
    left = [budget_ms, budget_ms]
    for seat, bot in enumerate(bots):
        bot.reseed("m", seat)
        started = time.monotonic()
        bot.init_game(game, seat, 2, setup, left[seat], "m")
        left[seat] -= int((time.monotonic() - started) * 1000)
    pending: list[list[Any]] = [[], []]
    while not state.is_over():
        seat = state.to_move()
        started = time.monotonic()
        move = bots[seat].turn(pending[seat], left[seat])
        left[seat] -= int((time.monotonic() - started) * 1000)
        assert left[seat] > 0, f"seat {seat} ran out of time"
        pending[seat] = []
        state.apply(move)
        pending[1 - seat].append([seat, move])
        if after_move is not None:
            after_move(state, seat, move)
    return state, left


def alive(pid: int) -> bool:
    """True when pid is a live process (zombies count as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def tagged(tag: str) -> list[int]:
    """Live processes whose environment carries BADBOT_TAG=tag (a fixture bot and its children)."""
    found = []
    needle = f"BADBOT_TAG={tag}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if needle in environ and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def survivors(pidfile: Path) -> list[int]:
    """Processes of the fixture bot run with this pidfile (its tag) that are still alive."""
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and tagged(str(pidfile)):
        time.sleep(0.02)
    return tagged(str(pidfile))


def ancestors(pid: int) -> list[int]:
    """The parent, grandparent, ... of pid, up to (not including) init."""
    chain = []
    while pid > 1:
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        chain.append(pid)
    return chain


def marked_processes(descendants_of: int | None = None) -> list[int]:
    """Live processes carrying a bot's mark (bots and their descendants), optionally only
    those descending from one process (this test session: it is a subreaper, so even
    orphaned bot descendants stay below it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        pid = int(entry.name)
        if MARK_VARIABLE.encode() + b"=" in environ and alive(pid):
            if descendants_of is None or descendants_of in ancestors(pid):
                found.append(pid)
    return found


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    """Whether condition() became true within timeout seconds (checked every 5 ms)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
