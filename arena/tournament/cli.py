"""The `arena tournament` and `arena standings` subcommands."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, positive_int
from arena.launch.sandbox import MachineError
from arena.tournament.config import ConfigError, TournamentConfig, load_config
from arena.tournament.dirlock import DirectoryInUse, lock_directory
from arena.tournament.errors import TournamentError
from arena.tournament.formats import first_round_counts, plan_for
from arena.tournament.report import STANDINGS_MD, terminal, write_reports
from arena.tournament.runner import Coordinator, RunOptions, load_standings
from arena.tournament.standings import Standings
from arena.tournament.store import (
    FULL_ERRNOS,
    STORE_NAME,
    StoreError,
    StoreWriteError,
    is_write_failure,
    write_failure,
)
from arena.tournament.verify import NotResults, Report, verify_directory

EXIT_INTERRUPTED = 130


def register(subparsers: Any) -> None:
    """Add the `tournament` and `standings` subcommands to the `arena` parser."""
    t = subparsers.add_parser("tournament", help="run tournaments (round-robin, gauntlet, knockout, Swiss) from TOML configs",
                              description="Run each CONFIG's tournament in turn; results go to its output "
                                          "directory (results/NAME unless the config or --out says otherwise).")
    t.add_argument("configs", nargs="+", metavar="CONFIG", help="tournament config (TOML)")
    t.add_argument("--out", metavar="DIR",
                   help="output directory (with several configs: DIR/NAME for each); default "
                        "results/NAME, or results/NAME-2, -3, ... when earlier runs hold results")
    t.add_argument("--workers", type=positive_int, metavar="N",
                   help="parallel referee processes (default: the config's concurrency, else cores / 2)")
    t.add_argument("--resume", action="store_true",
                   help="continue: play only the matches without a result (without --out: the newest run)")
    t.add_argument("--executor", choices=("local", "dask"),
                   help="local worker processes (default) or a Dask cluster")
    t.add_argument("--scheduler", metavar="ADDRESS",
                   help="Dask scheduler, e.g. tcp://host:8786 (implies --executor dask; without it, "
                        "--executor dask starts a local cluster)")
    t.add_argument("--quiet", action="store_true", help="no progress bar and no tables (for scripts)")
    t.add_argument("--trace", metavar="FILE", type=Path,
                   help="append every message between the referee and the bots to FILE (JSON lines)")
    t.add_argument("--transport", choices=("zeromq", "pipes"),
                   help="the wire of the Python bots and Pascal modules, over the configs' `transport` "
                        "(default zeromq; pipes: JSON lines on their own pipes)")
    t.add_argument("--report-every", type=positive_int, metavar="N",
                   help="print the standings after every N results (long runs)")
    t.add_argument("--dry-run", action="store_true",
                   help="check the configs and print each schedule's summary (matches per bot, total); "
                        "play nothing, write nothing")
    t.set_defaults(func=cmd_tournament)

    s = subparsers.add_parser("standings", help="print (and rewrite) the standings of a tournament directory")
    s.add_argument("dir", metavar="DIR", help="a tournament's output directory")
    s.set_defaults(func=cmd_standings)



VERIFY_HELP = "check a tournament directory as a whole: store, logs, reports"
VERIFY_DESCRIPTION = ("Check that DIR's store holds one row per scheduled match, that every played match's log is "
                      "signed, re-simulates and agrees with its row, and that the reports are what the store gives. "
                      "Prints one line per problem; exit 0: all holds, 1: problems, 2: not a results directory.")


def add_verify(subparsers: Any, func: Any = None, help: str = VERIFY_HELP, description: str = VERIFY_DESCRIPTION,
               dir_help: str = "a tournament's output directory") -> None:
    """Add `verify DIR [--jobs N]` (func: what runs it; default: a tournament directory's check)."""
    v = subparsers.add_parser("verify", help=help, description=description)
    v.add_argument("dir", metavar="DIR", help=dir_help)
    v.add_argument("--jobs", type=positive_int, metavar="N",
                   help="processes re-simulating logs (default: the cores, at most 8)")
    v.set_defaults(func=func or cmd_verify)


def cmd_verify(args: argparse.Namespace) -> int:
    """Check a tournament directory as a whole: one line per problem, then a summary line."""
    return report_verification(args, verify_directory)


def report_verification(args: argparse.Namespace, check: Callable[..., Report]) -> int:
    """Run check on DIR and print one line per problem, then a summary line; the exit status."""
    try:
        report = check(args.dir, jobs=args.jobs)
    except NotResults as exc:
        raise CliError(str(exc)) from None
    for line in report.problems:
        print(line)
    print(report.summary(), flush=True)
    return EXIT_OK if report.ok else EXIT_FAILED


def run_directory(base: Path, resume: bool) -> Path:
    """The output directory when --out is not given: a rerun gets a fresh one, never mixing.

    Runs of one config go to base, base-2, base-3, ...; a new run takes the first without
    results, --resume the newest one that has results.
    """
    runs = [base] + [base.with_name(f"{base.name}-{n}") for n in range(2, 1000)]
    used = [run for run in runs if (run / STORE_NAME).exists()]
    if resume:
        return used[-1] if used else base
    return next(run for run in runs if not (run / STORE_NAME).exists())


def load_configs(paths: list[str], transport: str | None = None) -> list[TournamentConfig]:
    """Load every config before running any, so a typo in the last one fails at once."""
    configs = []
    for path in paths:
        try:
            configs.append(load_config(path, transport))
        except ConfigError as exc:
            raise CliError(str(exc)) from None
    names = [c.name for c in configs]
    for name in names:
        if names.count(name) > 1:
            raise CliError(f"two configs share the name {name!r}; their results would mix (set name = ...)")
    return configs


def _executor(args: argparse.Namespace) -> str:
    executor = args.executor or ("dask" if args.scheduler else "local")
    if args.scheduler and executor != "dask":
        raise CliError("--scheduler is for --executor dask")
    if executor == "dask" and importlib.util.find_spec("distributed") is None:
        raise CliError("--executor dask needs Dask: pip install 'arena[dask]'")
    return executor


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run every config's tournament, one after another."""
    configs = load_configs(args.configs, args.transport)
    if args.dry_run:
        for config in configs:
            print("\n".join(dry_run(config)))
        return EXIT_OK
    executor = _executor(args)
    for config in configs:
        if args.out:
            out = Path(args.out) if len(configs) == 1 else Path(args.out) / config.name
        else:
            out = run_directory(config.output_dir(), args.resume)
        options = RunOptions(out=out, resume=args.resume, executor=executor, scheduler=args.scheduler,
                             workers=args.workers, quiet=args.quiet, trace=args.trace,
                             report_every=args.report_every or 0)
        code, coordinator, standings = run_guarded(config, options, f"arena tournament: {config.name}")
        if standings is None:
            return code
        if not args.quiet:
            print(terminal(standings))
            if coordinator is not None and coordinator.tally is not None:
                print("\n".join(coordinator.tally.lines((config.bots[0].name, config.bots[1].name))))
            print(f"results: {out / STANDINGS_MD}  (arena view {out}: the report page with every match)\n",
                  flush=True)
    return EXIT_OK


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr)


def run_guarded(config: TournamentConfig, options: RunOptions, what: str,
                say: Callable[[str], None] = _to_stderr) -> tuple[int, Coordinator | None, Standings | None]:
    """Run one config to its end: (exit code, coordinator, standings), standings None when it stopped.

    Bad input raises CliError; a failure during the run (the disk, a lost worker, Ctrl-C) is said
    in one line (on stderr) and returned as the exit code, with every result so far kept.
    """
    out = options.out
    try:
        coordinator = Coordinator(config, options)
    except StoreWriteError as exc:  # the disk, not the input: exit 1 like a failure during the run
        say(f"{what}: {write_failure(str(exc), exc)}")
        return EXIT_FAILED, None, None
    except (TournamentError, StoreError) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        if exc.errno in FULL_ERRNOS:  # a full disk: exit 1 as during the run; anything else is a bad --out
            say(f"{what}: cannot use output directory {out}: {write_failure(str(exc.strerror), exc)}")
            return EXIT_FAILED, None, None
        raise CliError(f"cannot use output directory {out}: {exc.strerror}") from None
    try:
        return EXIT_OK, coordinator, coordinator.run()
    except TournamentError as exc:
        say(f"{what}: {exc}")
    except MachineError as exc:  # out of processes before any worker started: nobody's fault
        say(f"{what}: {exc}; the results so far are kept (--resume continues)")
    except StoreError as exc:  # the store turned unwritable or unreadable during the run
        text = write_failure(str(exc), exc) if isinstance(exc, StoreWriteError) else str(exc)
        say(f"{what}: {text}")
    except OSError as exc:
        if not is_write_failure(exc):
            raise
        # Every result is in the store; only the reports (or a file beside them) could not be written.
        where = f"cannot write {exc.filename}" if exc.filename else "cannot write the reports"
        say(f"{what}: {write_failure(f'{where}: {exc.strerror}', exc)}")
    except KeyboardInterrupt:
        say(f"{what}: interrupted; the results so far are kept in {out} (run again with --resume to finish)")
        return EXIT_INTERRUPTED, coordinator, None
    finally:
        coordinator.close()
    return EXIT_FAILED, coordinator, None


def dry_run(config: TournamentConfig) -> list[str]:
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


def cmd_standings(args: argparse.Namespace) -> int:
    """Recompute the standings of a tournament directory from its store; print and rewrite them."""
    try:
        standings = load_standings(args.dir)
    except (TournamentError, StoreError) as exc:
        raise CliError(str(exc)) from None
    try:
        with lock_directory(args.dir):
            write_reports(args.dir, standings)
    except DirectoryInUse as exc:  # the run writes the reports itself when it ends
        print(f"arena standings: {exc}: its reports are left to it", file=sys.stderr)
    except OSError as exc:
        where = exc.filename or args.dir
        print(f"arena standings: error: cannot write {where}: {exc.strerror}", file=sys.stderr)
        return EXIT_FAILED
    print(terminal(standings))
    return EXIT_OK


