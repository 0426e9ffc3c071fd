"""`arena tournament CONFIG…` and `arena tournament GAME BOT BOT… [--games N] [--format F]`: options, API, printing."""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

import arena.api as api
from arena.api import ArenaError
from arena.argtypes import EXIT_OK, non_negative_int, positive_int
from arena.cli.series import add_conditions, add_setup_arguments, conditions, setup_values
from arena.games import family_names, game_names, is_game_name
from arena.tournament.plan.config import FORMATS, TournamentConfig


def register(subparsers: Any) -> None:
    """Add `arena tournament` to the `arena` parser."""
    t = subparsers.add_parser(
        "tournament", help="run a tournament: GAME BOT BOT... on the command line, or TOML configs",
        description="Run a tournament of GAME between the BOTs named (every pair --games games, in pairs of "
                    "seats, on random setups; --format picks round-robin, gauntlet (the first BOT against the "
                    "others), knockout or swiss), or each CONFIG's tournament in turn. Results go to "
                    "results/NAME unless --out says otherwise.")
    t.add_argument("what", nargs="+", metavar="GAME BOT… | CONFIG…",
                   help=f"a game ({', '.join([*game_names(), *(f'{f}:SPEC' for f in family_names())])}) and its "
                        "bots, or tournament configs (TOML)")
    group = t.add_argument_group("a tournament named on the command line (GAME BOT BOT...)")
    group.add_argument("--games", type=positive_int, metavar="N",
                       help="games per pairing, a multiple of the seats (default: one per seat order)")
    group.add_argument("--format", choices=FORMATS, help="round-robin (default), gauntlet, knockout or swiss")
    add_setup_arguments(group)  # type: ignore[arg-type]
    group.add_argument("--seed", type=non_negative_int, help="the tournament's seed (setups, chance; default 1)")
    group.add_argument("--name", action="append", metavar="NAME",
                       help="display name of the next BOT (one per BOT, in order; default: made from the spec)")
    add_conditions(group, defaults=False)  # type: ignore[arg-type]
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
    t.add_argument("--quiet", action="store_true", help="no progress and no tables (for scripts)")
    t.add_argument("--json", action="store_true", help="print each tournament's standings.json (and its dir)")
    t.add_argument("--trace", metavar="FILE",
                   help="append every message between the referee and the bots to FILE (JSON lines)")
    t.add_argument("--report-every", type=positive_int, metavar="K",
                   help="a standings line every K games (default: every 10 when stderr is not a terminal, none "
                        "on one)")
    t.add_argument("--dry-run", action="store_true",
                   help="check and print each schedule's summary (matches per bot, total); play nothing, write nothing")
    t.set_defaults(func=cmd_tournament)


def _named_on_command_line(what: list[str]) -> bool:
    """GAME BOT BOT... rather than configs: the first word is a game and no file of that name exists."""
    return is_game_name(what[0]) and not os.path.exists(what[0])


def _configs(args: argparse.Namespace) -> list[TournamentConfig]:
    """Every tournament to run, checked before any is run (a typo in the last config fails at once)."""
    if _named_on_command_line(args.what):
        game, bots = args.what[0], args.what[1:]
        if not bots:
            raise ArenaError(f"name the bots of the {game} tournament: arena tournament {game} BOT BOT...")
        return [api.tournament_from_bots(game, bots, games=args.games, format=args.format or "round-robin",
                                         setup=setup_values(game, args), seed=args.seed, names=args.name,
                                         **conditions(args))]
    given = [flag for flag, value in (("--games", args.games), ("--format", args.format), ("--setup", args.setup),
                                      ("--set", args.set), ("--seed", args.seed), ("--name", args.name),
                                      ("--budget-ms", args.budget_ms), ("--increment-ms", args.increment_ms),
                                      ("--move-ms", args.move_ms), ("--margin-ms", args.margin_ms),
                                      ("--clock-mode", args.clock_mode), ("--ponder", args.ponder),
                                      ("--sandbox", args.sandbox), ("--memory-mb", args.memory_mb)) if value]
    if given:
        raise ArenaError(f"{given[0]} goes with a game and its bots (arena tournament GAME BOT BOT... {given[0]} ...); "
                         "a config sets it itself")
    configs = [api.tournament(path, args.transport) for path in args.what]
    names = [c.name for c in configs]
    for name in names:
        if names.count(name) > 1:
            raise ArenaError(f"two configs share the name {name!r}; their results would mix (set name = ...)")
    return configs


def cmd_tournament(args: argparse.Namespace) -> int:
    """Run every tournament named, one after another."""
    configs = _configs(args)
    if args.dry_run:
        for config in configs:
            print(api.describe_plan(config))
        return EXIT_OK
    executor = args.executor or ("dask" if args.scheduler else "local")
    if args.scheduler and executor != "dask":
        raise ArenaError("--scheduler is for --executor dask")
    for config in configs:
        out = None if not args.out else args.out if len(configs) == 1 else os.path.join(args.out, config.name)
        try:
            result = api.run_tournament(config, out=out, resume=args.resume, workers=args.workers, executor=executor,
                                        scheduler=args.scheduler, trace=args.trace,
                                        progress=not (args.quiet or args.json), report_every=args.report_every or 0)
        except api.RunStopped as exc:
            exc.name = exc.name or config.name
            raise
        if args.json:
            print(json.dumps(result), flush=True)
        elif not args.quiet:
            print(result.text + "\n", flush=True)
    return EXIT_OK
