"""`arena analyze GAME ...`: what a game's own analyzer says (its folder's analyze.py).

A game plugs in by defining `ANALYZER` (arena.kit.analysis.Analyzer) in its analyze.py: its
options, and a `run(args, setup, runner)` that gets the validated setup and a GameRunner for
studies that play many games. The solvers live with the game's bots and are imported only when
a command runs, so that the rest of the command line never loads them.
"""

from __future__ import annotations

import argparse
import logging
from functools import partial
from typing import Any

from arena.analyze.runner import WorkerRunner
from arena.argtypes import CliError
from arena.games import GameError, game_module, game_names, get_game
from arena.kit.analysis import Analyzer
from arena.setups import SetupFileError, load_setup_file

log = logging.getLogger(__name__)


def analyzers() -> dict[str, Analyzer]:
    """Every game's analyzer, by game (a game whose analyze.py fails to load is left out, with a warning)."""
    found = {}
    for name in game_names():
        try:
            module = game_module(name, "analyze")
        except Exception as exc:  # noqa: BLE001 - one game's broken analyzer must not break the command line
            log.warning("cannot load the analyzer of game %s: %s: %s", name, type(exc).__name__, exc)
            continue
        analyzer = getattr(module, "ANALYZER", None) if module is not None else None
        if isinstance(analyzer, Analyzer):
            found[name] = analyzer
        elif module is not None:
            log.warning("%s defines no ANALYZER (an arena.kit.analysis.Analyzer)", module.__name__)
    return found


def register(subparsers: Any) -> None:
    """Add `arena analyze` with one subcommand per game that has an analyzer (called by arena.cli.main)."""
    parser = subparsers.add_parser("analyze", help="solve a position, or study a game (who wins, by size)")
    games = parser.add_subparsers(dest="analyze_game", required=True, metavar="GAME",
                                  parser_class=type(parser))
    for name, analyzer in sorted(analyzers().items()):
        sub = games.add_parser(name, help=analyzer.help, description=analyzer.help)
        if analyzer.takes_setup:
            sub.add_argument("setup", metavar="SETUP",
                             help="setup file (JSON, TOML, or the game's own format)")
        analyzer.add_arguments(sub)
        sub.set_defaults(func=partial(_run, name, analyzer))


def _run(name: str, analyzer: Analyzer, args: argparse.Namespace) -> int:
    if not analyzer.takes_setup:
        return analyzer.run(args, {}, WorkerRunner())
    game = get_game(name)
    try:
        setup = game.validate_setup(load_setup_file(args.setup, game), analyzer.players)
    except (SetupFileError, GameError) as exc:
        raise CliError(str(exc)) from None
    return analyzer.run(args, setup, WorkerRunner())
