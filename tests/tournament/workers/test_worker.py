"""The worker's bot pool: every bot launched once and reused, and a pool that stops growing when memory is short."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from arena.tournament.plan.config import config_from_data
from arena.tournament.results.formats import plan_for
from arena.tournament.workers import worker
from arena.tournament.workers.executors import make_plan
from arena.tournament.workers.worker import MatchRunner
from tests.helpers import alive

BOTS = 6


def runner(tmp_path: Path, max_idle: int | None = None) -> tuple[MatchRunner, list]:
    """A real runner (no sandbox) for a round-robin of BOTS random bots, and its matches."""
    config = config_from_data({
        "name": "pool", "game": "blocking", "sandbox": "none", "logs": False,
        "bots": [{"spec": "random", "name": f"r{i}", "options": {"seed": i}} for i in range(BOTS)],
        "setups": {"random": {"count": 1, "rows": 4, "cols": 4}},
        "games_per_pairing": 2,
    })
    plan = make_plan(config, tmp_path, ship_logs=False)
    if max_idle is not None:
        plan = replace(plan, max_idle=max_idle)
    return MatchRunner(plan), plan_for(config).tasks({})


def test_every_bot_is_launched_once_and_reused(tmp_path: Path) -> None:
    match_runner, tasks = runner(tmp_path)
    try:
        for task in tasks:
            record = match_runner.run(task)
            assert record.reason == "blocked", record.detail
        pool = match_runner.pool
        assert pool.started == BOTS  # the whole round-robin, one process per bot
        assert pool.max_idle is None  # automatic, and this machine has the memory
        assert sorted(bot for bot, _ in pool.idle.values()) == list(range(BOTS))
        first = pool.acquire(3)
        pool.release([(3, first, True)])
        assert pool.acquire(3) is first  # the same process comes back for its bot
        pool.release([(3, first, True)])
    finally:
        match_runner.close()


def test_a_pool_stops_growing_when_memory_is_short(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    match_runner, tasks = runner(tmp_path)
    total_mib = 16_000
    available = {"mib": total_mib}
    monkeypatch.setattr(worker, "memory_mib", lambda: (total_mib, available["mib"]))
    try:
        match_runner.run(tasks[0])  # two bots idle: memory was plentiful
        pool = match_runner.pool
        assert len(pool.idle) == 2 and pool.max_idle is None
        available["mib"] = total_mib // 10  # below the reserve (a fifth of the machine)
        pids = {bot: player.process.pid for bot, player in pool.idle.values()}
        match_runner.run(next(t for t in tasks if not set(t.bots) & set(pids)))  # two new bots join
        assert pool.max_idle == 3  # frozen one below the size that found memory short
        assert len(pool.idle) == 3
        evicted = [pid for bot, pid in pids.items() if bot not in {b for b, _ in pool.idle.values()}]
        assert len(evicted) == 1  # the least recently used bot went, and its process with it
        assert not alive(evicted[0])
    finally:
        match_runner.close()


def test_a_fixed_max_idle_evicts_the_least_recently_used(tmp_path: Path) -> None:
    match_runner, tasks = runner(tmp_path, max_idle=2)
    try:
        for task in tasks[:3]:
            match_runner.run(task)
        pool = match_runner.pool
        assert len(pool.idle) == 2
        assert [bot for bot, _ in pool.idle.values()] == list(tasks[2].bots)  # the last match's bots
    finally:
        match_runner.close()


def frozen(players: list, timeout: float = 5.0) -> bool:
    """True once the kernel reports every player's cgroup frozen (a freeze takes hold at once or soon)."""
    deadline = time.monotonic() + timeout
    while not all(player.process.cgroup.is_frozen() for player in players):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


@pytest.mark.parametrize("ponder", [False, True], ids=["strict", "ponder"])
def test_idle_bots_are_frozen_and_thawed_for_their_next_match(tmp_path: Path, ponder: bool) -> None:
    match_runner, tasks = runner(tmp_path)
    match_runner.plan = match_runner.pool.plan = replace(match_runner.plan, ponder=ponder)
    try:
        match_runner.run(tasks[0])
        idle = [player for _, player in match_runner.pool.idle.values()]
        if not all(player.process.freezable for player in idle):
            if os.environ.get("CI"):
                pytest.fail("no cgroup freezer under CI (the tests run as root)")
            pytest.skip("no cgroup freezer here (not root)")
        assert len(idle) == 2 and frozen(idle)
        again = next(t for t in tasks[1:] if set(t.bots) == set(tasks[0].bots))  # the same two bots
        assert match_runner.run(again).reason == "blocked"  # thawed to play, frozen again after
        assert frozen([player for _, player in match_runner.pool.idle.values()])
    finally:
        match_runner.close()
