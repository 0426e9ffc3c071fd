"""The GameRunner analyzers are handed: their games played on the tournament runner's workers."""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.argtypes import CliError
from arena.kit.analysis import PlannedGame, PlayedGame
from arena.launch.specs.botspec import unique_names
from arena.tournament.plan.config import ConfigError, config_from_data, default_concurrency
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.run.coordinator import RunOptions, make_executor

WAIT_S = 0.5


class WorkerRunner:
    """Plays planned games with persistent bots, under the clock and the default sandbox."""

    def play(self, game: str, bots: Sequence[str], setups: Sequence[Mapping[str, Any]],
             games: Sequence[PlannedGame], *, seed: int, workers: int | None = None,
             progress: bool = False) -> dict[str, PlayedGame]:
        """Play every game; the results by match id (CliError for bad bots or setups, or a game not played)."""
        names = unique_names(list(bots))
        data = {"name": f"analyze-{game}", "game": game, "seed": seed, "logs": False,
                "bots": [{"spec": spec, "name": name} for spec, name in zip(bots, names, strict=True)],
                "setups": {"maps": [dict(s) for s in setups]}, "strikes": {"max_strikes": 0}}
        try:
            config = config_from_data(data, Path.cwd())
        except ConfigError as exc:
            raise CliError(str(exc).replace("bots[", "--bots[")) from None
        tasks = [MatchTask(i, g.match, 0, g.setup, g.seed, g.seats) for i, g in enumerate(games)]
        records = _play(config, tasks, workers or default_concurrency(), progress)
        return {match: PlayedGame(match, list(r.ranks), list(r.scores), str(r.reason)) for match, r in records.items()}


def _play(config: Any, tasks: list[MatchTask], workers: int, progress: bool) -> dict[str, Any]:
    """Play every task on the workers; the records by match id."""
    records: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="arena-analyze-") as tmp:
        executor = make_executor(config, RunOptions(out=Path(tmp), workers=workers, quiet=True), Path(tmp))
        executor.start()
        pending = list(reversed(tasks))
        inflight = 0
        started, shown = time.monotonic(), 0.0
        try:
            while pending or inflight:
                while pending and inflight < executor.capacity:
                    executor.submit(pending.pop())
                    inflight += 1
                for outcome in executor.wait(WAIT_S):
                    inflight -= 1
                    if outcome.record is None:
                        raise CliError(f"game {outcome.task.match} could not be played: {outcome.problem}")
                    records[outcome.task.match] = outcome.record
                if progress and time.monotonic() - shown > 0.5:
                    shown = time.monotonic()
                    print(f"\r{len(records)}/{len(tasks)} games, {time.monotonic() - started:.0f} s",
                          end="", file=sys.stderr, flush=True)
        finally:
            executor.close(graceful=not pending and not inflight)
            if progress:
                print(file=sys.stderr)
    return records
