"""Where matches are played: the plan every worker needs, and the executor that runs them (local or Dask).

The tournament coordinator and the contest server's ladder start theirs here alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from arena.tournament.plan.config import BotEntry, TournamentConfig
from arena.tournament.plan.errors import TournamentError
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.local import LocalExecutor, Outcome
from arena.tournament.workers.worker import RunnerPlan

if TYPE_CHECKING:
    from arena.tournament.workers.dask_executor import DaskExecutor

EXECUTORS = ("local", "dask")


class Executor(Protocol):
    """What the coordinator needs from an executor (local processes or Dask)."""

    @property
    def capacity(self) -> int:
        """How many matches may be in flight."""

    def start(self) -> None:
        """Get the workers ready."""

    def submit(self, task: MatchTask) -> None:
        """Start one match."""

    def wait(self, timeout: float | None = None) -> list[Outcome]:
        """Outcomes ready within timeout."""

    def close(self, graceful: bool = True) -> None:
        """Stop the workers."""


def make_plan(config: TournamentConfig, out: Path, ship_logs: bool, key: str | None = None,
              bots: tuple[BotEntry, ...] | None = None, trace: str | None = None) -> RunnerPlan:
    """What every worker needs: the config's conditions, its logs under out/logs (signed by out's key).

    key: what workers cache their runners by (the config's fingerprint); bots: other than the config's
    (the ladder adds its versions as they come); trace: the file every message is appended to.
    """
    from arena.logs.signing import results_key

    return RunnerPlan(
        key=config.fingerprint() if key is None else key, game=config.game,
        bots=tuple(config.bots) if bots is None else bots,
        setups=tuple(s.setup for s in config.setups), clock=config.clock, limits=config.limits,
        sandbox=config.sandbox,
        persistent=config.persistent, log_dir=str((out / "logs").resolve()) if config.logs else None,
        ship_logs=ship_logs, log_key=results_key(out) if config.logs else None, ponder=config.ponder,
        reveal_names=config.reveal_names, trace_path=trace, remote=config.remote,
    )


def open_executor(config: TournamentConfig, out: Path, kind: str, workers: int, scheduler: str | None = None,
                  trace: str | None = None, key: str | None = None,
                  bots: tuple[BotEntry, ...] | None = None) -> LocalExecutor | DaskExecutor:
    """The executor of this kind (local or dask) for the config's matches, not started yet (see make_plan)."""
    if kind == "local":
        plan = make_plan(config, out, ship_logs=False, key=key, bots=bots, trace=trace)
        # Pondering bots think all the time: each worker's match keeps to the worker's own cores.
        return LocalExecutor(plan, workers, config.pin_cpus or config.ponder)
    if kind == "dask":
        from arena.tournament.workers.dask_executor import DaskExecutor

        # Dask workers write no files of ours: their logs travel with the results (trace: on their own hosts).
        return DaskExecutor(make_plan(config, out, ship_logs=True, key=key, bots=bots, trace=trace), scheduler,
                            workers)
    raise TournamentError(f"unknown executor {kind!r} (local or dask)")
