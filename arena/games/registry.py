"""Finding the games: each game is one folder, named after the game, found where it lies.

A game folder holds `rules.py` (its `GAME`) and whatever else the game has: `bots` (a module or
package with a `BOTS` list), `view.py`, `draw.py` and `draw.js`, `analyze.py`, `pascal.py`,
`solver.py`, `RULES.md`, `demo.toml`, `setups/` and its tests (docs/adding-a-game.md). The built-in games are
the folders of this package; a teacher's game is a folder anywhere, named by `--games DIR` or by
ARENA_GAMES (a path list: each entry a game folder or a folder of game folders), or an installed
package listed under the entry-point group `arena.games`. Nothing lists the games.

Wherever its folder lies, a game is imported as `arena.games.<name>`, so the modules of a folder
(which import one another relatively) are the same modules in the arena, its workers and its
bots, and a copy of a folder under another name is another game.

A folder whose rules module defines `make_game(spec: str) -> Game` (instead of `GAME`) is a
family of games: it answers every name `FOLDER:SPEC`, its bots play each of them, and its other
parts (view, drawing, RULES.md) serve them all.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from types import ModuleType

from arena.games.base import Game, GameError

PACKAGE = "arena.games"
BUILTIN_DIR = Path(__file__).resolve().parent
ENV_VARIABLE = "ARENA_GAMES"
ENTRY_POINT_GROUP = "arena.games"
RULES_MODULE = "rules"
FAMILY_HOOK = "make_game"  # a rules module defining it makes its folder a family of games
FAMILY_SEPARATOR = ":"  # FOLDER:SPEC names a game of a family
# The package's own modules: no game may take their names.
RESERVED = frozenset({"base", "conformance", "registry", "tests"})


class UnknownGame(KeyError):
    """No game of that name is found (detail: why, when a family of games refused the name)."""

    def __init__(self, name: str, detail: str = "") -> None:
        super().__init__(name)
        self.name = name
        self.detail = detail

    def __str__(self) -> str:
        if self.detail:
            return f"unknown game {self.name!r}: {self.detail}"
        families = "".join(f", {family}{FAMILY_SEPARATOR}..." for family in family_names())
        return (f"unknown game {self.name!r} (known: {', '.join(game_names())}{families}; a game in a folder of its "
                f"own: arena --games DIR, or {ENV_VARIABLE})")


class GameFolderError(GameError):
    """A folder named as a game (or a folder of games) cannot be one; the message names it."""


@dataclass(frozen=True)
class GameFolder:
    """Where one game lives and how it was found."""

    name: str
    path: Path
    origin: str  # "built-in", "ARENA_GAMES", "--games" or "entry point NAME"
    family: bool = False  # its rules define make_game: it answers the names FOLDER:SPEC

    @property
    def module(self) -> str:
        """The package the folder is imported as."""
        return f"{PACKAGE}.{self.name}"

    @property
    def builtin(self) -> bool:
        """True for a folder of this package."""
        return self.origin == "built-in"


_extra: list[tuple[Path, str]] = []  # (folder, origin) added in this process (--games, a config)
_found: dict[str, GameFolder] | None = None
_games: dict[str, Game] = {}


def is_game_folder(path: Path) -> bool:
    """True for a folder that holds a game: its rules module is there."""
    return (path / f"{RULES_MODULE}.py").is_file()


def is_family_folder(path: Path) -> bool:
    """True for a game folder whose rules module defines make_game at its top level (read, not imported)."""
    text = (path / f"{RULES_MODULE}.py").read_text(encoding="utf-8", errors="replace")
    if FAMILY_HOOK not in text:
        return False
    try:
        tree = ast.parse(text)
    except SyntaxError:  # importing the rules tells what is wrong
        return False
    return any(isinstance(node, ast.FunctionDef) and node.name == FAMILY_HOOK for node in tree.body)


def _checked(path: Path, origin: str) -> GameFolder:
    name = path.name
    if not name.isidentifier() or name in RESERVED:
        raise GameFolderError(f"{origin}: {path}: a game folder's name is the game's name and must be a Python "
                              f"identifier other than {', '.join(sorted(RESERVED))} (letters, digits and _)")
    return GameFolder(name, path, origin, is_family_folder(path))


def folders_in(path: Path, origin: str) -> list[GameFolder]:
    """The game folders a path names: itself if it is one, else its subfolders that are."""
    path = Path(path).expanduser().resolve()
    if not path.is_dir():
        raise GameFolderError(f"{origin}: no such folder: {path}")
    if is_game_folder(path):
        return [_checked(path, origin)]
    return [_checked(sub, origin) for sub in sorted(path.iterdir())
            if sub.is_dir() and not sub.name.startswith((".", "_")) and is_game_folder(sub)]


def _entry_point_folders() -> list[GameFolder]:
    found = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        spec = importlib.util.find_spec(ep.value)
        places = list(spec.submodule_search_locations or []) if spec is not None else []
        if not places:
            raise GameFolderError(f"entry point {ep.name} = {ep.value}: not a package holding a game folder")
        found += folders_in(Path(places[0]), f"entry point {ep.name}")
    return found


def _env_paths() -> list[Path]:
    return [Path(p) for p in os.environ.get(ENV_VARIABLE, "").split(os.pathsep) if p.strip()]


def _scan() -> dict[str, GameFolder]:
    candidates = [_checked(sub, "built-in") for sub in sorted(BUILTIN_DIR.iterdir())
                  if sub.is_dir() and not sub.name.startswith((".", "_")) and is_game_folder(sub)]
    for path in _env_paths():
        candidates += folders_in(path, ENV_VARIABLE)
    for path, origin in _extra:
        candidates += folders_in(path, origin)
    candidates += _entry_point_folders()
    found: dict[str, GameFolder] = {}
    for folder in candidates:
        known = found.get(folder.name)
        if known is not None and known.path != folder.path:
            raise GameFolderError(f"two games are called {folder.name}: {known.path} ({known.origin}) and "
                                  f"{folder.path} ({folder.origin}); rename one folder")
        found.setdefault(folder.name, folder)
    return found


def game_folders() -> dict[str, GameFolder]:
    """Every game found, by name (raises GameFolderError for a folder that cannot be a game)."""
    global _found
    if _found is None:
        _found = _scan()
    return _found


def add_game_paths(paths: Iterable[str | os.PathLike[str]], origin: str = "--games") -> list[str]:
    """Find games in these folders too, in this process and the processes it starts; their names.

    Each path is a game folder or a folder of game folders; GameFolderError names a bad one.
    """
    global _found
    added = [folder for raw in paths for folder in folders_in(Path(raw), origin)]
    known = {folder.path for folder in game_folders().values()}
    new = [(f.path, origin) for f in added if f.path not in known]
    _extra.extend(new)
    _found = None
    try:
        game_folders()
    except GameFolderError:
        del _extra[len(_extra) - len(new):]
        _found = None
        raise
    listed = _env_paths()
    extra = [str(path) for path, _ in new if path not in listed]
    if extra:  # workers and bots find the same games
        os.environ[ENV_VARIABLE] = os.pathsep.join([*map(str, listed), *extra])
    return [f.name for f in added]


def split_name(name: str) -> tuple[str, str]:
    """(folder, spec) of a game's name: ("family", "SPEC") for `family:SPEC`, (name, "") for any other."""
    folder, _, spec = name.partition(FAMILY_SEPARATOR)
    return folder, spec


def game_folder(name: str) -> GameFolder:
    """The folder of the game called name (a family's for `FOLDER:SPEC`); raises UnknownGame."""
    folder = None
    if isinstance(name, str):
        home, spec = split_name(name)
        folder = game_folders().get(home)
        if folder is not None and FAMILY_SEPARATOR in name and not (spec and folder.family):
            folder = None  # `tiles:x`, `family:`: no game
    if folder is None:
        raise UnknownGame(name)
    return folder


def folder_of(name: str) -> str:
    """The name of the folder a game lives in: the family's for `FOLDER:SPEC`, the name itself otherwise."""
    return split_name(name)[0]


def is_game_name(name: str) -> bool:
    """True for the name of a game found, or `FOLDER:SPEC` of a family found (its spec not yet tried)."""
    try:
        folder = game_folder(name)
    except UnknownGame:
        return False
    return folder.family == (FAMILY_SEPARATOR in name)


def external_game_paths() -> list[Path]:
    """The folders of the games found outside this package (shown read-only to sandboxed bots)."""
    return [f.path for f in game_folders().values() if not f.builtin]


def game_names() -> list[str]:
    """The names of every game found, sorted (a family's games, named FOLDER:SPEC, are not listed)."""
    return sorted(name for name, folder in game_folders().items() if not folder.family)


def family_names() -> list[str]:
    """The names of the families of games found (folders whose rules define make_game), sorted."""
    return sorted(name for name, folder in game_folders().items() if folder.family)


def game_module(name: str, part: str) -> ModuleType | None:
    """The module `part` of a game's folder (`view`, `draw`, `bots`, ...), or None when the folder has none.

    An error inside the module itself is raised as it is: a game's broken part is not a missing one.
    """
    folder = game_folder(name)
    if not ((folder.path / f"{part}.py").is_file() or (folder.path / part / "__init__.py").is_file()):
        return None
    return importlib.import_module(f"{folder.module}.{part}")


def game_file(name: str, filename: str) -> Path | None:
    """A file of a game's folder (`draw.js`, `RULES.md`, `demo.toml`), or None when there is none."""
    path = game_folder(name).path / filename
    return path if path.is_file() else None


def get_game(name: str) -> Game:
    """The game called name, its rules loaded from its folder; raises UnknownGame."""
    game = _games.get(name)
    if game is not None:
        return game
    folder = game_folder(name)
    module = importlib.import_module(f"{folder.module}.{RULES_MODULE}")
    if folder.family:
        game = _family_game(folder, module, name)
    else:
        game = getattr(module, "GAME", None)
    if not isinstance(game, Game):
        raise GameFolderError(f"{folder.path}/{RULES_MODULE}.py defines no GAME (an instance of arena.games.Game)")
    game.name = name  # the folder's name is the game's, whatever a copied rules file says
    _games[name] = game
    return game


def _family_game(folder: GameFolder, module: ModuleType, name: str) -> Game:
    """A family's game of that name: its make_game(spec); UnknownGame saying why it makes none."""
    spec = split_name(name)[1]
    if FAMILY_SEPARATOR not in name:
        raise UnknownGame(name, f"{name} is a family of games: name one as {name}{FAMILY_SEPARATOR}SPEC")
    try:
        game = getattr(module, FAMILY_HOOK)(spec)
    except GameError as exc:
        raise UnknownGame(name, str(exc)) from None
    if not isinstance(game, Game):
        raise GameFolderError(f"{folder.path}/{RULES_MODULE}.py: {FAMILY_HOOK}({spec!r}) made no Game")
    return game


class _FolderFinder(importlib.abc.MetaPathFinder):
    """Imports a game folder found outside this package as `arena.games.<name>`."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        """The spec of `arena.games.<name>` for a folder found elsewhere (submodules follow its path)."""
        head, _, name = fullname.rpartition(".")
        if head != PACKAGE or name in RESERVED:
            return None
        try:
            folder = game_folders().get(name)
        except GameFolderError:
            return None
        if folder is None or folder.builtin:
            return None
        init = folder.path / "__init__.py"
        if init.is_file():
            return importlib.util.spec_from_file_location(fullname, init, submodule_search_locations=[str(folder.path)])
        spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
        spec.submodule_search_locations = [str(folder.path)]  # a folder without __init__.py: a namespace
        return spec


if not any(isinstance(finder, _FolderFinder) for finder in sys.meta_path):
    sys.meta_path.append(_FolderFinder())
