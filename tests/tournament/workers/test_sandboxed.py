"""Tournaments in the sandbox: every kind of bot plays, and a hostile one harms nobody else.

As root with bubblewrap (as under CI): registered Python bots, `exec:` Python and native
bots, a `stdio:` Node.js bot and a `pascal:` module play a persistent-bot round robin in
`sandbox = "bwrap"`, with the local executor here and with Dask in test_dask.py.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.outcomes import FAILURES
from arena.tournament.plan.config import config_from_data
from arena.tournament.results.standings import Standings
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES, ROOT, require
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, bot_uid_processes, needs_root
from tests.test_examples import EXAMPLES, cbot  # noqa: F401 - the session fixture building the C bot


def every_kind_config(cbot_spec: str, name: str) -> dict[str, Any]:
    """An arrows round robin of one bot of each kind, in the bwrap sandbox."""
    return {
        "name": name, "game": "arrows", "seed": 5, "games_per_pairing": 2, "concurrency": 2,
        "sandbox": "bwrap", "persistent": True,
        "bots": [
            "greedy",
            {"spec": f"exec:{sys.executable} {FIXTURES / 'badbot.py'} default", "name": "exec-python"},
            {"spec": cbot_spec, "name": "exec-c"},
            {"spec": f"stdio:{require('node')} {EXAMPLES / 'stdio_bot.js'}", "name": "stdio-node"},
            {"spec": f"pascal:{EXAMPLES / 'territory.pas'}", "name": "pascal"},
        ],
        "setups": {"random": {"count": 2}},
        "clock": {"budget_ms": 5000},
    }


def assert_clean(standings: Standings, out: Path, honest: set[str] | None = None) -> None:
    """Every match finished; no honest bot failed; every log re-simulates."""
    assert standings.finished == standings.scheduled
    for record in standings.records:
        offender = record.names[record.offender] if record.offender is not None else None
        if honest is None or offender in honest:
            assert record.reason not in FAILURES, (record.match, record.names, record.reason, record.detail)
        assert verify(read_log(out / record.log)).ok


def test_sandboxed_tournament_of_every_bot_kind(tmp_path: Path, cbot: str) -> None:  # noqa: F811
    needs_root()
    require("bwrap")
    require("fpc")
    config = config_from_data(every_kind_config(cbot, "every-kind"), base=ROOT)
    coordinator = Coordinator(config, RunOptions(out=tmp_path / "out", quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert_clean(standings, tmp_path / "out")
    assert standings.scheduled == 5 * 4 * 2
    assert bot_uid_processes() == []


def test_fork_bomb_in_a_two_worker_tournament_harms_nobody(tmp_path: Path) -> None:
    needs_root()
    bomb = {"spec": f"stdio:{SYSTEM_PYTHON} {FIXTURES / 'attacker.py'} fork_bomb", "name": "bomb"}
    honest = {"random", "sequential", "maxblock"}
    config = config_from_data({
        "name": "bomb", "game": "blocking", "seed": 2, "games_per_pairing": 2, "concurrency": 2,
        "bots": [bomb, *sorted(honest)], "setups": {"fixed": {"rows": 5, "cols": 5}},
        "clock": {"budget_ms": 5000},  # and the default sandbox
    }, base=ROOT)
    out = tmp_path / "out"
    coordinator = Coordinator(config, RunOptions(out=out, quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert_clean(standings, out, honest)
    reports = [text for record in standings.records if "bomb" in record.names
               for text in read_log(out / record.log).output.values() if "ATTACK fork_bomb" in text]
    assert reports and all("refused after" in text for text in reports), reports[:1]
    assert bot_uid_processes() == [], "a process of the fork bomb survived the tournament"


@pytest.fixture(autouse=True)
def _no_pool_uid_before() -> None:
    """Each test starts with no bot uid running, so a survivor is this test's."""
    assert not bot_uid_processes()
