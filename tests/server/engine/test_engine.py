"""The ladder engine's own duties: a log it cannot write is the machine's failure, never a bot's.

A real database, server config and disk (a real tmpfs, filled); the executor is a stand-in
that hands back one finished game with its log attached, as a Dask worker's result comes.
"""

from __future__ import annotations

import threading
from pathlib import Path

from arena.server.engine.engine import Engine
from arena.server.state.config import load_server_config
from arena.server.state.db import Database, GameKind, GameStatus, now
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.local import Outcome
from arena.tournament.workers.worker import MatchRecord
from tests.helpers import require
from tests.server.server import make_server, wait_for
from tests.tournament.results.test_store_errors import tmpfs  # noqa: F401 - the fixture


class ShippingExecutor:
    """Plays nothing: each submitted game comes back won by seat 0, with a log of 256 KiB attached."""

    capacity = 1

    def __init__(self) -> None:
        self.submitted: list[MatchTask] = []
        self.returned = 0

    def start(self) -> None:
        """Nothing to start."""

    def add_bots(self, entries: object) -> None:
        """Nothing to seat."""

    def submit(self, task: MatchTask) -> None:
        """Remember the task."""
        self.submitted.append(task)

    def wait(self, timeout: float | None = None) -> list[Outcome]:
        """The outcomes of the tasks not handed back yet."""
        new, self.returned = self.submitted[self.returned:], len(self.submitted)
        return [Outcome(task, MatchRecord(ord=task.ord, match=task.match, round=0, setup=task.setup, seed=task.seed,
                                          bots=list(task.bots), names=["a", "b"], scores=[1.0, 0.0], ranks=[0, 1],
                                          reason="win", offender=None, plies=7, log=f"logs/{task.match}.msgpack",
                                          log_data=bytes(256 * 1024)))
                for task in new]

    def close(self, graceful: bool = True) -> None:
        """Nothing to stop."""


def run_ladder(engine: Engine, executor: ShippingExecutor, until: object) -> None:
    """The ladder thread with this executor, until the condition holds (then stopped)."""
    engine._make_executor = lambda: executor  # type: ignore[method-assign]
    thread = threading.Thread(target=engine._ladder_loop, daemon=True)
    thread.start()
    try:
        wait_for(until, 30, "the ladder")  # type: ignore[arg-type]
    finally:
        engine.stop_event.set()
        thread.join(30)
    assert not thread.is_alive()


def test_a_log_the_disk_cannot_take_stops_the_ladder_charges_no_bot_and_is_played_after_a_restart(
        tmp_path: Path, tmpfs: Path) -> None:  # noqa: F811 - the fixture
    require("bwrap")
    config = load_server_config(make_server(tmp_path).config)
    engine = Engine(config, Database(config.directory / "server.db"))
    engine.ladder_dir.mkdir(parents=True)
    (engine.ladder_dir / "logs").symlink_to(tmpfs)
    filler = tmpfs / "filler"
    filler.write_bytes(bytes(2 * 2**20 - 64 * 1024))  # 64 KiB left: a 256 KiB log does not fit
    engine._recover()
    engine._seat_house()
    db = Database(config.directory / "server.db")
    number = db.execute("INSERT INTO games (kind, a, b, setup, seed, status, created) VALUES (?, 1, 2, 0, 7, ?, ?)",
                        GameKind.LADDER, GameStatus.QUEUED, now())

    full = ShippingExecutor()
    run_ladder(engine, full, lambda: engine.error)
    assert engine.error.startswith(f"cannot write the log of game {number} to ") and "No space left on device" in \
        engine.error and engine.error.endswith("the game is queued again: free some space and restart the server")
    assert "\n" not in engine.error and len(full.submitted) == 1
    game = db.row("SELECT * FROM games WHERE id = ?", number)
    assert (game.status, game.reason, game.log) == (GameStatus.QUEUED, "", "")  # nothing recorded
    versions = db.rows("SELECT games, errors, mu FROM submissions WHERE id IN (1, 2)")
    assert [(v.games, v.errors, v.mu) for v in versions] == [(0, 0, 25.0), (0, 0, 25.0)]  # charged to nobody
    assert sorted(p.name for p in tmpfs.iterdir()) == ["filler"]  # no partial file takes the space

    # The control: with room on the disk, a restarted engine plays the same game and records it.
    filler.unlink()
    again = Engine(config, Database(config.directory / "server.db"))
    again._recover()
    room = ShippingExecutor()
    run_ladder(again, room, lambda: db.value("SELECT status FROM games WHERE id = ?", number) == GameStatus.DONE)
    assert again.error == "" and [t.ord for t in room.submitted] == [number]
    assert (tmpfs / f"g{number}.msgpack").stat().st_size == 256 * 1024
    versions = db.rows("SELECT games, errors, mu FROM submissions WHERE id IN (1, 2) ORDER BY id")
    assert [v.games for v in versions] == [1, 1] and versions[0].mu > 25.0 > versions[1].mu
