"""`arena new-game NAME [DIR]`: a working game folder to start from (tic-tac-toe, on an m x n board, k in a row).

The folder holds every part of a game (rules, bots, view, drawing, RULES.md, a demo tournament
and tests), passes `arena check-game` and plays at once; docs/adding-a-game.md takes it from
there to a game of one's own. The files come from arena/kit/template/.
"""

from __future__ import annotations

import argparse
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from string import Template
from typing import Any

from arena.argtypes import EXIT_OK, CliError
from arena.games import UnknownGame, game_folder
from arena.games.registry import RESERVED

SUFFIX = ".tmpl"


def register(subparsers: Any) -> None:
    """Add `arena new-game` (called by arena.cli.main)."""
    n = subparsers.add_parser(
        "new-game", help="make a working game folder to start a game of your own from",
        description="Write DIR/NAME/: a small game (tic-tac-toe) with its rules, two bots, a terminal view, a "
                    "drawing, its RULES.md, a demo tournament and tests. It passes arena check-game and plays at "
                    "once (arena --games DIR play NAME); docs/adding-a-game.md turns it into your own game.")
    n.add_argument("name", metavar="NAME", help="the game's name: the folder's name (letters, digits, _)")
    n.add_argument("dir", metavar="DIR", nargs="?", default=".", help="where the folder goes (default: here)")
    n.set_defaults(func=cmd_new_game)


def _files(root: Traversable, prefix: str = "") -> list[tuple[str, str]]:
    """(relative path without .tmpl, text) of every template file."""
    found = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and not entry.name.startswith(("_", ".")):
            found += _files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(SUFFIX):
            found.append((prefix + entry.name[: -len(SUFFIX)], entry.read_text(encoding="utf-8")))
    return found


def new_game(name: str, parent: Path) -> Path:
    """Write the folder parent/name from the template; CliError for a bad name or a folder in the way."""
    if not name.isidentifier() or name in RESERVED or name.startswith("_"):
        raise CliError(f"{name!r}: a game's name is its folder's and a Python identifier (letters, digits, _; not "
                       f"{', '.join(sorted(RESERVED))})")
    try:
        taken = game_folder(name)
    except UnknownGame:
        taken = None
    if taken is not None:
        raise CliError(f"a game called {name} exists already ({taken.path}): choose another name")
    if not parent.is_dir():
        raise CliError(f"no such folder: {parent}")
    folder = parent / name
    if folder.exists():
        raise CliError(f"{folder} exists already: choose another name or folder")
    values = {"name": name, "title": name.replace("_", " ").capitalize()}
    for relative, text in _files(resources.files("arena.kit").joinpath("template")):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(Template(text).substitute(values), encoding="utf-8")
    return folder


def cmd_new_game(args: argparse.Namespace) -> int:
    """Write the folder and say what to do next."""
    folder = new_game(args.name, Path(args.dir).expanduser().resolve())
    games = f" --games {args.dir}"  # a game outside the arena's own folders is found where it is named
    files = ", ".join(sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()))
    print(f"made {folder}: {files}")
    print(f"it plays tic-tac-toe for now; try it:\n  arena{games} check-game {args.name}\n"
          f"  arena{games} play {args.name}\n  arena tournament {folder / 'demo.toml'}\n"
          "then make it your own game, one step at a time: docs/adding-a-game.md")
    return EXIT_OK
