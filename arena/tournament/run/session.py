"""One run of a tournament config to its end: where its results go, and any stop as one line.

The Python API and the command line both run configs through `run_config`: bad input is a
`RunRefused` (nothing was played), and a failure during the run (the disk, a lost worker,
Ctrl-C) is an outcome with its exit code and one line saying why, every result so far kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from arena.launch.sandbox.sandbox import MachineError
from arena.tournament.plan.config import TournamentConfig
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.formats import first_round_counts, plan_for
from arena.tournament.results.standings import Standings
from arena.tournament.results.store import (
    FULL_ERRNOS,
    STORE_NAME,
    StoreError,
    StoreWriteError,
    is_write_failure,
    write_failure,
)
from arena.tournament.run.coordinator import Coordinator, RunOptions

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


class RunRefused(TournamentError):
    """The run cannot start: the config, the output directory or what it holds is wrong."""


@dataclass
class RunOutcome:
    """How a run ended: its standings, or the exit code and the line saying why it stopped."""

    code: int
    coordinator: Coordinator | None
    standings: Standings | None
    problem: str = ""  # why it stopped (standings None)


def run_directory(base: Path, resume: bool) -> Path:
    """The output directory when none is given: a rerun gets a fresh one, never mixing.

    Runs of one config go to base, base-2, base-3, ...; a new run takes the first without
    results, a resume the newest one that has results.
    """
    runs = [base] + [base.with_name(f"{base.name}-{n}") for n in range(2, 1000)]
    used = [run for run in runs if (run / STORE_NAME).exists()]
    if resume:
        return used[-1] if used else base
    return next(run for run in runs if not (run / STORE_NAME).exists())


def _start(config: TournamentConfig, options: RunOptions) -> Coordinator | RunOutcome:
    """The coordinator of the run, or the outcome of a directory that cannot be written at all."""
    out = options.out
    try:
        return Coordinator(config, options)
    except StoreWriteError as exc:  # the disk, not the input: exit 1 like a failure during the run
        return RunOutcome(EXIT_FAILED, None, None, write_failure(str(exc), exc))
    except (TournamentError, StoreError) as exc:
        raise RunRefused(str(exc)) from None
    except OSError as exc:
        if exc.errno in FULL_ERRNOS:  # a full disk: exit 1 as during the run; anything else is a bad --out
            return RunOutcome(EXIT_FAILED, None, None,
                              f"cannot use output directory {out}: {write_failure(str(exc.strerror), exc)}")
        raise RunRefused(f"cannot use output directory {out}: {exc.strerror}") from None


def run_config(config: TournamentConfig, options: RunOptions) -> RunOutcome:
    """Run one config to its end; RunRefused for bad input, else the outcome (results so far always kept)."""
    started = _start(config, options)
    if isinstance(started, RunOutcome):
        return started
    coordinator = started
    try:
        return RunOutcome(EXIT_OK, coordinator, coordinator.run())
    except TournamentError as exc:
        problem = str(exc)
    except MachineError as exc:  # out of processes before any worker started: nobody's fault
        problem = f"{exc}; the results so far are kept (--resume continues)"
    except StoreError as exc:  # the store turned unwritable or unreadable during the run
        problem = write_failure(str(exc), exc) if isinstance(exc, StoreWriteError) else str(exc)
    except OSError as exc:
        if not is_write_failure(exc):
            raise
        # Every result is in the store; only the reports (or a file beside them) could not be written.
        where = f"cannot write {exc.filename}" if exc.filename else "cannot write the reports"
        problem = write_failure(f"{where}: {exc.strerror}", exc)
    except KeyboardInterrupt:
        return RunOutcome(EXIT_INTERRUPTED, coordinator, None,
                          f"interrupted; the results so far are kept in {options.out} (run again with --resume "
                          "to finish)")
    finally:
        coordinator.close()
    return RunOutcome(EXIT_FAILED, coordinator, None, problem)


def outline(config: TournamentConfig) -> list[str]:
    """What a config would play: its format, bots, matches per bot and the total."""
    plan = plan_for(config)
    first, per_bot = first_round_counts(plan, len(config.bots))
    kind = config.format.kind
    lines = [(f"{config.name}: {config.game}, {kind}, {len(config.bots)} bots, {config.players} per match, "
              f"{len(config.setups)} setup(s), {config.games_per_pairing} games per pairing")]
    if kind == "gauntlet":
        lines.append("challengers: " + ", ".join(config.bots[i].name for i in config.format.challengers))
    width = max(len(b.name) for b in config.bots)
    label = "matches before any result" if plan.dynamic else "matches"
    lines += [f"  {b.name:<{width}}  {n} {label}" for b, n in zip(config.bots, per_bot)]
    if kind == "knockout":
        lines.append(f"{first} matches before any result; in all {plan.total()} matches, plus tie-break pairs "
                     f"(at most {config.format.tiebreak_pairs} per level tie)")
    elif kind == "swiss":
        lines.append(f"{config.format.rounds} rounds; the first: {first} matches; in all {plan.total()} matches")
    else:
        lines.append(f"in all {plan.total()} matches")
    return lines
