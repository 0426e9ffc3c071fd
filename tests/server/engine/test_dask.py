"""`arena serve --executor dask`: the ladder's games run on a real Dask cluster's worker processes."""

from __future__ import annotations

import logging
import subprocess
import sys
from typing import Any

import pytest

from tests.helpers import ROOT, require
from tests.server.server import make_server, wait_for


def test_the_ladder_plays_on_a_dask_cluster_and_its_logs_verify(tmp_path: Any) -> None:
    require("bwrap")
    require("cc")
    distributed = pytest.importorskip("distributed")
    server = make_server(tmp_path, max_games=6)
    server.add("alice", "bob")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        server.start(["--executor", "dask", "--scheduler", cluster.scheduler_address])
        try:
            cbot = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()
            first = server.submit("alice", "cbot.c", cbot).json()["id"]
            assert server.settled("alice", first)["status"] == "active"
            wait_for(lambda: len([g for g in server.get("/api/games").json() if g["status"] == "done"]) >= 6, 120,
                     "ladder games on the cluster")
            # A second version joins while the cluster's runners hold the first plan.
            second = server.submit("bob", "cbot.c", cbot).json()["id"]
            assert server.settled("bob", second)["status"] == "active"
            wait_for(lambda: any(second in g["submissions"] and g["status"] == "done"
                                 for g in server.get("/api/games").json()), 120, "a game of the new version")
        finally:
            server.stop()
    logs = sorted((server.state / "ladder" / "logs").glob("g*.msgpack"))
    assert len(logs) >= 6 and not list((server.state / "ladder" / "logs").glob("*.tmp"))
    done = subprocess.run([sys.executable, "-m", "arena.cli", "replay", str(logs[-1]), "--verify"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
