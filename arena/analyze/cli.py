"""`arena analyze GAME SETUP`: what the reference solvers say about one position.

Each game plugs in an `Analyzer` (its own options and a `run` that gets the validated
setup); `register(subparsers)` turns every entry of `ANALYZERS` into a subcommand
`arena analyze GAME SETUP [options]`. Another game is added by a module
`arena/analyze/<game>.py` that makes one call when imported (every module of this package is
imported before the subcommands are built):

    register_analyzer(Analyzer("tenten", "greedy and optimal scores of a sequence",
                               add_tenten_arguments, run_tenten, players=1))

The solvers live with the bots (`bots/<game>/`) and are imported only when a command
runs, so that the rest of the command line never loads them.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import pkgutil
from functools import partial
from typing import Any

from arena.analyze.registry import ANALYZERS, EXIT_OK, Analyzer, register_analyzer  # noqa: F401 - the API
from arena.argtypes import CliError
from arena.games import GameError, get_game
from arena.setups import SetupFileError, load_setup_file

log = logging.getLogger(__name__)


def load_analyzer_modules() -> None:
    """Import every game module of this package, which registers its game's analyzer."""
    import arena.analyze

    for module in pkgutil.iter_modules(arena.analyze.__path__):
        if module.name not in ("cli", "registry"):
            try:
                importlib.import_module(f"arena.analyze.{module.name}")
            except ImportError as exc:  # e.g. a solver's optional dependency is missing
                log.warning("cannot load analyzer module arena.analyze.%s: %s", module.name, exc)


def register(subparsers: Any) -> None:
    """Add `arena analyze` with one subcommand per registered game (called by arena.cli.main)."""
    load_analyzer_modules()
    parser = subparsers.add_parser("analyze", help="solve a position, or study a game (who wins, by size)")
    games = parser.add_subparsers(dest="analyze_game", required=True, metavar="GAME",
                                  parser_class=type(parser))
    for name in sorted(ANALYZERS):
        analyzer = ANALYZERS[name]
        sub = games.add_parser(name, help=analyzer.help, description=analyzer.help)
        if analyzer.takes_setup:
            sub.add_argument("setup", metavar="SETUP",
                             help="setup file (JSON, TOML, or the game's own format)")
        analyzer.add_arguments(sub)
        sub.set_defaults(func=partial(_run, analyzer))


def _run(analyzer: Analyzer, args: argparse.Namespace) -> int:
    if not analyzer.takes_setup:
        return analyzer.run(args, {})
    game = get_game(analyzer.game)
    try:
        setup = game.validate_setup(load_setup_file(args.setup, game), analyzer.players)
    except (SetupFileError, GameError) as exc:
        raise CliError(str(exc)) from None
    return analyzer.run(args, setup)


# --- tiles ---------------------------------------------------------------------------------
