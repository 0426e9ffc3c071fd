"""The native example bots (C over ZeroMQ + msgpack, Node.js over stdio) in real round-robins."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.outcomes import FAILURES
from arena.tournament.plan.config import config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import ROOT, require, run

EXAMPLES = ROOT / "bots" / "examples"
# Per game: the reference opponents, and the setups; the example bot plays 12 + 8 = 20 matches.
ROUND_ROBINS: dict[str, dict[str, Any]] = {
    "blocking": {"bots": ["random", "maxblock", "sequential"],
                 "setups": {"random": {"count": 2, "min_size": 3, "max_size": 8}}},
    "arrows": {"bots": ["random", "greedy"], "setups": {"random": {"count": 2, "min_size": 5, "max_size": 9}}},
}


@pytest.fixture(scope="session")
def cbot(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The C bot, built once per session by its Makefile (outside the source tree)."""
    require("make")
    require("cc")
    build = tmp_path_factory.mktemp("cbot") / "not" / "made" / "yet"  # the Makefile makes BUILD itself
    done = subprocess.run(["make", "-s", "-C", str(EXAMPLES), f"BUILD={build}"], check=False, capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        message = f"the C bot does not build (libzmq3-dev, libmsgpack-dev?):\n{done.stderr}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    for folder in (build, *list(build.parents)[:3]):
        folder.chmod(0o755)  # a sandboxed bot runs as its own uid: its folder must be open to it
    return f"exec:{build / 'cbot'}"


@pytest.fixture(scope="session")
def nodebot() -> str:
    """The Node.js stdio bot."""
    return f"stdio:{require('node')} {EXAMPLES / 'stdio_bot.js'}"


def round_robin(bot: str, game: str, out: Path) -> list[Any]:
    """Play the bot against the game's reference bots; return the records of its matches."""
    entry = {"spec": bot, "name": "example"}
    config = config_from_data({
        "name": f"example-{game}", "game": game, "seed": 9, "games_per_pairing": 2, "concurrency": 2,
        "bots": [entry, *ROUND_ROBINS[game]["bots"]], "setups": ROUND_ROBINS[game]["setups"],
        "clock": {"budget_ms": 5000},
    }, base=ROOT)
    coordinator = Coordinator(config, RunOptions(out=out, quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert standings.finished == standings.scheduled
    for record in standings.records:
        assert record.reason not in FAILURES, (record.match, record.names, record.reason, record.detail)
        assert verify(read_log(out / record.log)).ok
    mine = [r for r in standings.records if "example" in r.names]
    assert {r.names.index("example") for r in mine} == {0, 1}
    return mine


@pytest.mark.parametrize("which", ["cbot", "nodebot"])
def test_example_bot_round_robin(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    bot = request.getfixturevalue(which)
    played = round_robin(bot, "blocking", tmp_path / "blocking") + round_robin(bot, "arrows", tmp_path / "arrows")
    assert len(played) == 20
    wins = sum(r.ranks[r.names.index("example")] == 1 for r in played)
    assert wins >= 10, f"{which} won only {wins} of 20 against the reference bots"


@pytest.mark.parametrize("which", ["cbot", "nodebot"])
def test_example_bot_plays_single_matches(which: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    bot = request.getfixturevalue(which)
    result, _ = run("blocking", [bot, "maxblock"], {"rows": 5, "cols": 5}, seed=3, log=tmp_path / "b.msgpack")
    assert result.reason == "blocked" and result.offender is None, result.detail
    result, _ = run("arrows", ["greedy", bot], {"cols": 7, "rows": 7}, seed=3, log=tmp_path / "a.msgpack")
    assert result.reason == "blocked" and result.offender is None, result.detail
    assert verify(read_log(tmp_path / "b.msgpack")).ok and verify(read_log(tmp_path / "a.msgpack")).ok
