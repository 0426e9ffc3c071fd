"""Shared helpers of the end-to-end tests."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from arena.botspec import parse_bot_spec
from arena.clock import ClockSettings
from arena.games import get_game
from arena.match import MatchPlan, complete_setup, play_match
from arena.referee import MatchResult

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def badbot(mode: str, pidfile: Path | None = None) -> str:
    """The exec: spec of the misbehaving fixture bot in one mode."""
    tail = f" {pidfile}" if pidfile else ""
    return f"exec:{sys.executable} {FIXTURES / 'badbot.py'} {mode}{tail}"


def run(game: str, bots: list[str], setup: dict | None = None, seed: int = 1,
        clock: ClockSettings | None = None, log: Path | None = None) -> tuple[MatchResult, float]:
    """Play one match through the real referee; return the result and its wall time."""
    rules = get_game(game)
    specs = [parse_bot_spec(b, game) for b in bots]
    full = complete_setup(rules, setup or {}, len(specs), seed)
    plan = MatchPlan(rules, specs, full, seed, clock or ClockSettings(), f"test-{seed}", log)
    started = time.monotonic()
    result = play_match(plan)
    return result, time.monotonic() - started


def alive(pid: int) -> bool:
    """True when pid is a live process (zombies count as dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def survivors(pidfile: Path) -> list[int]:
    """The pids listed in pidfile that are still alive."""
    if not pidfile.exists():
        return []
    pids = [int(line) for line in pidfile.read_text().split()]
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and any(alive(p) for p in pids):
        time.sleep(0.02)
    return [p for p in pids if alive(p)]
