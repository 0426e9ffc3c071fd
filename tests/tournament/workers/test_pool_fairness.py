"""A bot idling in a worker's pool is frozen: what it left running cannot starve the matches being played.

The attacker (tests/fixtures/cpuhog.py `hog`) keeps 60 spinners, each in a session of its own,
running whenever it is not on move: after its last move of a match they would run while its
process waits in the pool for its next match. The honest bots need 150 ms of CPU a move on a
CPU clock whose wall cap is three times the time left: starved, they would lose on time in
their own match, which the hog does not play.
"""

from __future__ import annotations

from pathlib import Path

from arena.outcomes import FAILURES
from arena.tournament.plan.config import config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES, ROOT, require
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, bot_uid_processes, needs_root

HOG = FIXTURES / "cpuhog.py"


def test_an_idle_bot_in_the_pool_starves_no_other_match(tmp_path: Path) -> None:
    needs_root()
    require("bwrap")
    config = config_from_data({
        "name": "idle-hog", "game": "blocking", "seed": 3, "games_per_pairing": 2, "concurrency": 1,
        "sandbox": "bwrap", "persistent": True,
        "bots": [{"spec": f"stdio:{SYSTEM_PYTHON} {HOG} hog 60", "name": "hog"},
                 {"spec": f"stdio:{SYSTEM_PYTHON} {HOG} burner 150", "name": "a"},
                 {"spec": f"stdio:{SYSTEM_PYTHON} {HOG} burner 150", "name": "b"}],
        "setups": {"fixed": {"rows": 6, "cols": 6, "blocked": []}},
        # The wall cap (10x the CPU time left) holds on a busy machine, not at 1/61 of the CPU.
        "clock": {"budget_ms": 1000, "increment_ms": 200, "mode": "cpu", "wall_factor": 10.0},
    }, base=ROOT)
    coordinator = Coordinator(config, RunOptions(out=tmp_path / "out", quiet=True, workers=1))
    standings = coordinator.run()
    coordinator.close()
    records = sorted(standings.records, key=lambda r: r.ord)
    assert [r.bots for r in records][-2:] == [[1, 2], [2, 1]]  # a against b comes last, with the hog idle
    # One hog process, its spinners started in its first match, played all its matches and then idled.
    hog_matches = [r for r in records if 0 in r.bots]
    # Its spinners may cost it a match on a busy machine (they are charged to it when slow to stop while it
    # is on move); its last match it must finish alive, so that it idles in the pool with them running.
    last = hog_matches[-1]
    assert last.offender is None or last.names[last.offender] != "hog", (last.reason, last.detail)
    assert b"HOG spinners" in (tmp_path / "out" / hog_matches[0].log).read_bytes()
    for record in records[-2:]:
        assert record.reason not in FAILURES, (record.match, record.reason, record.detail)
        assert record.reason == "blocked"
    assert bot_uid_processes(b"cpuhog") == []
