"""The `arena` command line."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import logging
import os
import sys
from importlib import metadata

import arena.api as api
from arena.api import ArenaError, RunStopped
from arena.argtypes import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    Parser,
    find_game,
    non_negative_int,
)
from arena.cli.series import (
    add_conditions,
    add_series_arguments,
    add_setup_arguments,
    cmd_series,
    conditions,
    setup_values,
)
from arena.games import (
    GameError,
    add_game_paths,
    family_names,
    game_folder,
    game_folders,
    game_module,
    game_names,
    get_game,
)
from arena.launch.processes.process import MachineError
from arena.launch.specs.plugins import bots_for
from arena.viewer.cli import add_replay_arguments, run_replay

# Modules that add subcommands through register(subparsers).
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool its reader left
SUBCOMMAND_MODULES = ("arena.cli.tournament", "arena.tournament.audit.cli", "arena.viewer.cli", "arena.analyze.cli",
                      "arena.play.cli", "arena.cli.doctor", "arena.cli.keys", "arena.cli.check", "arena.cli.new_game",
                      "arena.cli.verify", "arena.cli.integrity", "arena.server.cli")


def cmd_match(args: argparse.Namespace) -> int:
    """Play one match (or, with --games, a series) and report it."""
    if args.games is not None:
        if args.listen is not None or args.allow:
            raise ArenaError("--listen is for one match; a series or tournament of remote bots has a config with "
                             "a [remote] table")
        return cmd_series(args)
    for flag, given in (("--workers", args.workers), ("--sprt", args.sprt), ("--out", args.out),
                        ("--resume", args.resume), ("--report-every", args.report_every)):
        if given:
            raise ArenaError(f"{flag} is for a series: add --games N")
    if args.listen is not None or args.allow:
        remote = {"listen": args.listen, "allow": args.allow, "server_key": args.server_key,
                  "network_grace_ms": args.network_grace_ms}
    else:
        remote = {}
    result = api.play_match(args.game, args.bots, setup=setup_values(args.game, args), seed=args.seed,
                            log=args.log, force=args.force, trace=args.trace, names=args.name, show=args.show,
                            progress=not args.json, **conditions(args), **remote)
    if args.json:
        print(json.dumps(result))
    else:
        print(("\n" if args.show else "") + result.text)
    return EXIT_OK


def installed_version() -> str:
    """The installed arena's version."""
    try:
        return metadata.version("arena")
    except metadata.PackageNotFoundError:  # a checkout that was never installed
        return "(not installed)"


def cmd_games(args: argparse.Namespace) -> int:
    """List every game found: players, chance, its folder and its bots."""
    rows = []
    for name in game_names():
        game = get_game(name)
        low, high = game.min_players, game.max_players
        span = f"{low}" if low == high else f"{low}-{high}"
        rows.append((name, f"v{game.version}", f"{span} player" + ("" if span == "1" else "s"),
                     "chance" if game.chance else "no chance", game.description))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for row in rows:
        folder = game_folder(row[0])
        bots = ", ".join(bot.name for bot in bots_for(row[0])) or "none"
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[4])
        print(" " * widths[0] + f"  folder: {folder.path}" + ("" if folder.builtin else f" ({folder.origin})"))
        print(" " * widths[0] + f"  bots: {bots}")
    for name in family_names():
        print(f"{name}:SPEC  a family of games: {family_note(name)}")
        folder = game_folder(name)
        print(f"  folder: {folder.path}" + ("" if folder.builtin else f" ({folder.origin})"))
        print(f"  bots: {', '.join(bot.name for bot in bots_for(name)) or 'none'} (each game of the family)")
    return EXIT_OK


def family_note(name: str) -> str:
    """The first line of a family's rules module's docstring: what its games are and how to name one."""
    try:
        module = game_module(name, "rules")
    except Exception as exc:  # noqa: BLE001 - a family's broken rules must not hide the other games
        return f"its rules do not load ({type(exc).__name__}: {exc})"
    lines = (module.__doc__ or "" if module is not None else "").strip().splitlines()
    return lines[0] if lines else "(no description)"


def listed_games() -> str:
    """The games to name in a command's help: every game found, and FAMILY:SPEC for each family."""
    return ", ".join([*game_names(), *(f"{family}:SPEC" for family in family_names())])


def leading_game_dirs(argv: list[str]) -> list[str]:
    """The folders of `arena --games DIR ...` given before the command (the games must be known to build the parser)."""
    found, i = [], 0
    while i < len(argv) and argv[i].startswith("-"):
        if argv[i] == "--games" and i + 1 < len(argv):
            found.append(argv[i + 1])
            i += 1
        elif argv[i].startswith("--games="):
            found.append(argv[i].partition("=")[2])
        i += 1
    return found


def cmd_bots(args: argparse.Namespace) -> int:
    """List the registered bots, of one game or of all."""
    games = [find_game(args.game).name] if args.game else [*game_names(), *family_names()]
    for game in games:
        for bot in bots_for(game):
            options = f"  (options: {', '.join(bot.options)})" if bot.options else ""
            print(f"{game:10} {bot.name:12} {bot.description}{options}")
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    """Print, dump, verify or re-run a match log."""
    return run_replay(args)


def _add_match(sub: argparse._SubParsersAction) -> None:
    """`arena match`: its arguments, remote bots' and a series' included."""
    m = sub.add_parser("match", help="play one match, or a series of them (--games N, --sprt)",
                       description="Play one match of GAME between the BOTs, one per seat (a series of them with "
                                   "--games N). More bots than seats is a tournament: arena tournament GAME BOT....")
    m.add_argument("game", metavar="GAME", help="the game to play: " + listed_games() + " (arena games)")
    m.add_argument("bots", nargs="+", metavar="BOT",
                   help="one per seat: a registered name (options as name:key=value,...; arena bots GAME lists "
                        "them), path/bot.py[:Class], module:Class, exec:COMMAND (a ZeroMQ bot), "
                        "stdio:COMMAND (JSON lines), pascal:PATH/unit.pas")
    add_setup_arguments(m)
    m.add_argument("--seed", type=non_negative_int,
                   help="match seed (random board completion, chance); default random, for a series 1")
    add_conditions(m)
    m.add_argument("--log", metavar="PATH", help="match log path (default logs/GAME-TIME-seedN-ID.msgpack, "
                                                 "never an existing file)")
    m.add_argument("--force", action="store_true", help="let --log replace an existing file")
    m.add_argument("--trace", metavar="FILE",
                   help="append every message between the referee and the bots to FILE (JSON lines)")
    m.add_argument("--name", action="append", metavar="NAME",
                   help="display name of the next seat's bot in results, logs and reports (one per BOT, in "
                        "order; default: a short one made from the spec, e.g. mine.js for stdio:node dir/mine.js)")
    m.add_argument("--show", action="store_true", help="print the board after every move")
    m.add_argument("--json", action="store_true", help="print the result as one JSON object")
    remote = m.add_argument_group("remote bots (remote:NAME, on other machines; protocol/SPEC.md section 13)")
    remote.add_argument("--listen", metavar="tcp://ADDR:PORT", help="where remote bots connect (TCP with CURVE)")
    remote.add_argument("--allow", nargs="+", action="extend", default=[], metavar="KEYFILE",
                        help="public key files (NAME.key of arena keys new): NAME's bot may hold seat remote:NAME")
    remote.add_argument("--server-key", metavar="FILE",
                        help="the referee's secret key file (default: the user's, $XDG_CONFIG_HOME/arena/"
                             "arena.key_secret, made on first use; its public key is printed at start)")
    remote.add_argument("--network-grace-ms", type=non_negative_int, default=1000, metavar="N",
                        help="the most of a move's wait not charged to a remote bot as the network's: its "
                             "measured round trip and a jitter allowance, up to N ms (default: 1000)")
    add_series_arguments(m)
    m.set_defaults(func=cmd_match)


def build_parser() -> Parser:
    """The argument parser of every subcommand."""
    parser = Parser(prog="arena", description="Referee, tournaments and replays for game-playing bots.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debugging details")
    parser.add_argument("--version", action="version", version=f"arena {installed_version()}")
    parser.add_argument("--games", action="append", default=[], metavar="DIR",
                        help="find games in DIR too: a game's folder, or a folder of them (also ARENA_GAMES, a "
                             "path list; repeatable)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)

    _add_match(sub)

    g = sub.add_parser("games", help="list the games found, with their folders and bots")
    g.set_defaults(func=cmd_games)

    b = sub.add_parser("bots", help="list the registered bots")
    b.add_argument("game", nargs="?")
    b.set_defaults(func=cmd_bots)

    r = sub.add_parser("replay", help="print, verify or dump a match log")
    r.add_argument("log")
    r.add_argument("--verify", action="store_true", help="re-simulate; exit 1 at the first disagreement")
    r.add_argument("--json", action="store_true", help="dump the whole log as JSON")
    r.add_argument("--at", type=non_negative_int, metavar="N", help="show the position after ply N")
    add_replay_arguments(r)
    r.set_defaults(func=cmd_replay)
    for module in SUBCOMMAND_MODULES:
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `arena` console script."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        add_game_paths(leading_game_dirs(argv))
        game_folders()  # ARENA_GAMES and installed games: a bad folder is told here, in one line
    except GameError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        code: int = args.func(args)
        sys.stdout.flush()  # inside the try: a reader that left is noticed here, not at exit
        return code
    except RunStopped as exc:  # a run that began: the machine's or the disk's failure, or Ctrl-C
        where = f"{exc.name}: " if exc.name else "error: "
        print(f"arena {args.command}: {where}{exc}", file=sys.stderr)
        return exc.code
    except (CliError, ArenaError) as exc:
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except MachineError as exc:  # e.g. no process left to probe the sandbox with: the machine's, not the input's
        print(f"arena {args.command}: error: {exc}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`arena games | head -1`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    # `python -m arena.cli` runs this file as __main__: run the importable module instead, so
    # that main() catches the arena.cli.CliError the subcommand modules raise.
    from arena.cli.main import main as _main

    sys.exit(_main())
