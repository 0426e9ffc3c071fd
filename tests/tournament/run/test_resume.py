"""Kill -9 the tournament at three moments, resume each time: the results equal an uninterrupted run."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from arena.tournament.plan.config import load_config
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import badbot
from tests.tournament.helpers import (
    children_of,
    cli,
    integrity,
    no_launchers_left,
    read_matches,
    recorded_alive,
    rows_in,
    stable,
    start_cli,
    still_alive,
    wait_rows,
    write_config,
)

SETUPS = 16
TOTAL = 6 * 2 * SETUPS


def resume_config(tmp_path: Path, pidfile: Path) -> Path:
    """Four bots (one of them an exec: bot that records its pids), 192 matches.

    The exec: bot takes 4 ms a move, so that the last third of the run lasts long enough
    for the test to kill it mid-way even on a fast machine.
    """
    data: dict[str, Any] = {
        "name": "resume", "game": "blocking", "seed": 21, "games_per_pairing": 2, "concurrency": 2,
        "bots": ["random", "maxblock", {"spec": "random", "name": "random-b", "options": {"seed": 5}},
                 {"spec": badbot("paced", pidfile), "name": "exec-bot"}],
        "setups": {"random": {"count": SETUPS, "min_size": 6, "max_size": 9}},
    }
    return write_config(tmp_path / "resume.toml", data)


def kill_resume_chain(config: Path, out: Path, pidfile: Path, extra: list[str],
                      check_processes: bool = True) -> list[int]:
    """Start, kill -9 at start-up, a third and two thirds in, resuming each time; then finish.

    With check_processes, also check that nothing of the killed run survives (with Dask
    the bots live in the cluster's workers, which outlive a coordinator by design).
    """
    store = out / "results.sqlite"
    args = ["tournament", str(config), "--out", str(out), "--quiet", *extra]
    killed_at = []
    for step, fraction in enumerate((0.0, 1 / 3, 2 / 3)):
        proc = start_cli(*args, *(["--resume"] if step else []))
        if fraction:
            wait_rows(store, int(TOTAL * fraction), proc)
        else:
            while not store.exists() and proc.poll() is None:  # killed during start-up
                pass
        workers = children_of(proc.pid)
        assert proc.poll() is None, f"the run ended before kill {step}: {proc.stderr.read() if proc.stderr else ''}"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        killed_at.append(rows_in(store))
        assert integrity(store) == "ok"
        if not check_processes:
            continue
        # Nothing outlives the killed coordinator: no worker, no launcher, no bot.
        assert recorded_alive(pidfile) == []
        assert no_launchers_left(workers) == []
        assert still_alive(workers) == []
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume", *extra)
    assert done.returncode == 0, done.stderr
    return killed_at


def test_kill_and_resume_gives_the_uninterrupted_results(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    config = resume_config(tmp_path, pidfile)
    reference = cli("tournament", str(config), "--out", str(tmp_path / "ref"), "--quiet")
    assert reference.returncode == 0, reference.stderr
    expected = stable(read_matches(tmp_path / "ref"))
    assert len(expected) == TOTAL

    killed_at = kill_resume_chain(config, tmp_path / "run", pidfile, [])
    assert killed_at[0] < killed_at[1] < killed_at[2] < TOTAL, killed_at
    got = read_matches(tmp_path / "run")
    assert [r["match"] for r in got] == [r["match"] for r in expected]  # none missing, none twice
    assert stable(got) == expected
    assert recorded_alive(pidfile) == []


def test_a_local_worker_killed_mid_tournament(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    config_path = resume_config(tmp_path, pidfile)
    config = load_config(config_path)
    out = tmp_path / "out"
    victims: list[int] = []

    def kill_one_worker() -> None:
        deadline = time.monotonic() + 120  # past it nobody is killed, and the test fails below
        while rows_in(out / "results.sqlite") < TOTAL // 3:
            if time.monotonic() > deadline:
                return
            time.sleep(0.005)
        workers = [pid for pid in children_of(os.getpid())
                   if b"serve_worker" in Path(f"/proc/{pid}/cmdline").read_bytes()]
        victims.append(min(workers))
        os.kill(victims[0], signal.SIGKILL)

    killer = threading.Thread(target=kill_one_worker, daemon=True)
    killer.start()
    coordinator = Coordinator(config, RunOptions(out=out, quiet=True))
    standings = coordinator.run()
    coordinator.close()
    killer.join(5)
    assert victims and standings.finished == TOTAL
    rows = read_matches(out)
    assert [int(r["ord"]) for r in rows] == list(range(TOTAL))  # none missing, none twice
    assert any(r["worker"].endswith(f":{victims[0]}") for r in rows)
    assert len({r["worker"] for r in rows}) == 3  # the replacement worker played the rest
    assert no_launchers_left(set(victims)) == []
    reference = cli("tournament", str(config_path), "--out", str(tmp_path / "ref"), "--quiet", "--workers", "1")
    assert reference.returncode == 0, reference.stderr
    assert stable(rows) == stable(read_matches(tmp_path / "ref"))
