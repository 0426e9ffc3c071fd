"""The Dask executor against a real LocalCluster with worker processes.

Skipped only when Dask is not installed and the CI variable is unset: under CI a missing
Dask is a failure (it is in the `test` extra).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

try:
    from distributed import Client, LocalCluster
except ImportError:
    if os.environ.get("CI"):
        raise
    pytest.skip("dask[distributed] is not installed (pip install 'arena[dask]')", allow_module_level=True)

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.outcomes import FAILURES
from tests.helpers import badbot, require
from tests.launch.sandbox.test_attacks import needs_root
from tests.test_examples import cbot  # noqa: F401 - the session fixture building the C bot
from tests.tournament.helpers import (
    cli,
    no_launchers_left,
    read_matches,
    recorded_alive,
    stable,
    start_cli,
    wait_rows,
    write_config,
)
from tests.tournament.run.test_resume import TOTAL, kill_resume_chain, resume_config
from tests.tournament.workers.test_sandboxed import every_kind_config


@pytest.fixture(scope="module")
def cluster() -> Iterator[tuple[str, Client, set[int]]]:
    """Two worker processes, one thread each; yields (address, client, every worker pid seen)."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=40) as local, Client(local) as client:
        seen: set[int] = set()
        yield local.scheduler_address, client, seen
        seen.update(client.run(os.getpid).values())
    # The cluster is gone: so are the bots its workers kept.
    assert no_launchers_left(seen) == []


def test_kill_and_resume_under_dask(tmp_path: Path, cluster: tuple[str, Client, set[int]]) -> None:
    address, client, seen = cluster
    pidfile = tmp_path / "pids"
    config = resume_config(tmp_path, pidfile)
    reference = cli("tournament", str(config), "--out", str(tmp_path / "ref"), "--quiet")
    assert reference.returncode == 0, reference.stderr
    seen.update(client.run(os.getpid).values())
    killed_at = kill_resume_chain(config, tmp_path / "run", pidfile, ["--scheduler", address],
                                  check_processes=False)
    assert killed_at[0] < killed_at[1] < killed_at[2] < TOTAL, killed_at
    got = read_matches(tmp_path / "run")
    expected = stable(read_matches(tmp_path / "ref"))
    assert [r["match"] for r in got] == [r["match"] for r in expected]
    assert stable(got) == expected  # Dask workers play exactly what local workers play
    assert all((tmp_path / "run" / r["log"]).exists() for r in got)  # logs came back with results
    # A finished run stops this tournament's bots on every worker.
    seen.update(client.run(os.getpid).values())
    assert recorded_alive(pidfile) == []


def test_a_worker_killed_mid_tournament(tmp_path: Path, cluster: tuple[str, Client, set[int]]) -> None:
    address, client, seen = cluster
    pidfile = tmp_path / "pids"
    data: dict[str, Any] = {
        "name": "lost-worker", "game": "blocking", "seed": 8, "games_per_pairing": 2,
        # The exec: bot's steady 4 ms a move keeps matches in flight when the worker dies.
        "bots": ["random", "maxblock", {"spec": badbot("paced", pidfile), "name": "exec-bot"}],
        "setups": {"random": {"count": 20, "min_size": 6, "max_size": 9}},
    }
    config = write_config(tmp_path / "lost.toml", data)
    total = 3 * 2 * 20
    out = tmp_path / "out"
    pids = client.run(os.getpid)
    seen.update(pids.values())
    proc = start_cli("tournament", str(config), "--out", str(out), "--quiet", "--scheduler", address)
    wait_rows(out / "results.sqlite", total // 3, proc)
    # Kill a worker that is playing a match right now (waiting a little for one if need be).
    deadline = time.monotonic() + 10
    busy: list[str] = []
    while not busy and time.monotonic() < deadline and proc.poll() is None:
        busy = [addr for addr, keys in client.processing().items()
                if any(str(k).startswith("arena-") for k in keys)]
    victim = pids[busy[0]] if busy else min(pids.values())
    os.kill(victim, signal.SIGKILL)
    assert proc.wait(120) == 0, proc.stderr.read() if proc.stderr else ""
    rows = read_matches(out)
    assert len(rows) == total == len({r["match"] for r in rows})  # none twice
    assert [int(r["ord"]) for r in rows] == list(range(total))  # none missing
    workers = {r["worker"] for r in rows}
    assert any(w.endswith(f":{victim}") for w in workers)  # the victim played before it died
    assert len(workers) >= 2
    # The scheduler took back the victim's matches in flight and ran them again elsewhere.
    retaken = {key.split("-", 2)[2].rsplit("-", 1)[0] for key in client.run_on_scheduler(_retaken_keys)}
    assert retaken, "no match was in flight on the killed worker"
    assert all(sum(r["match"] == match for r in rows) == 1 for match in retaken)
    # The same matches on the local executor give the same results.
    done = cli("tournament", str(config), "--out", str(tmp_path / "local"), "--quiet")
    assert done.returncode == 0, done.stderr
    assert stable(rows) == stable(read_matches(tmp_path / "local"))
    # The killed worker's bots died with it (the nanny started a new worker meanwhile).
    assert no_launchers_left({victim}) == []
    seen.update(client.run(os.getpid).values())


def _retaken_keys(dask_scheduler: Any) -> list[str]:
    """Keys whose task was processing on a worker that was removed (runs on the scheduler)."""
    lost = ("worker-cleanup", "remove-worker", "worker-left", "handle-worker")
    return [str(entry[0]) for entry in dask_scheduler.transition_log
            if entry[1] == "processing" and str(entry[0]).startswith("arena-")
            and any(word in str(entry[4]) for word in lost)]


def test_sandboxed_tournament_of_every_bot_kind_under_dask(tmp_path: Path, cbot: str,  # noqa: F811
                                                          cluster: tuple[str, Client, set[int]]) -> None:
    needs_root()
    require("bwrap")
    require("fpc")
    address, client, seen = cluster
    seen.update(client.run(os.getpid).values())
    config = write_config(tmp_path / "kinds.toml", every_kind_config(cbot, "every-kind-dask"))
    out = tmp_path / "out"
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--scheduler", address)
    assert done.returncode == 0, done.stderr
    rows = read_matches(out)
    assert len(rows) == 5 * 4 * 2
    for row in rows:
        assert row["reason"] not in FAILURES, row
        assert verify(read_log(out / row["log"])).ok
