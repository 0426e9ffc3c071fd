"""The folder tree is the architecture (docs/architecture.md): imports run only downward.

An `ast` walk over every module of `protocol/`, `arena/` and `bots/` (imports inside
functions included, relative ones resolved): each module belongs to a layer; it may import its
own package and lower layers, never a higher one or a peer of its own layer; there is no import
circle; `protocol` imports nothing of `arena`. A package split into sub-packages orders them as
well: each imports its own and lower sub-packages only, and no package holds more than a dozen
modules side by side. A game's folder (every game found, wherever it
lies) is a plug-in: it imports only the contract, the kits and its own modules, never another
game or the engine above it, and nothing imports it but the registry (by name); its rules
import no I/O. No module of `arena/` or `protocol/` is over 600 lines, no function over 60.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# Lowest first. A module is placed by the longest prefix that names it.
LAYERS: list[tuple[str, ...]] = [
    ("protocol",),
    ("arena.games",),  # the contract, the registry and the conformance checks (the folders are plug-ins)
    ("arena.clock", "arena.setups", "arena.argtypes", "arena.outcomes"),
    ("arena.kit",),  # what a game's folder builds its views, drawing and analyzer on
    ("arena.launch",),
    ("arena.logs",),
    ("arena.match",),
    ("arena.tournament", "arena.play", "arena.viewer"),
    # collusion detection judges a tournament's results; the contest server reads its own into the same records
    ("arena.integrity",),
    # studies of a game may play series on the tournament runner; the contest server runs
    # ladders, validation series and finals on it
    ("arena.analyze", "arena.server", "arena.gamecheck"),
    ("arena.api",),  # the Python API: matches, series, tournaments; the command line stands on it
    ("arena.cli",),
    ("arena",),  # the package's face: `from arena import play_match` is the API
]
# A layer split into sub-packages orders them in turn, lowest first: a module may import its own
# sub-package and lower ones, never a higher one or a peer. The package's face (its __init__)
# may import any of them.
SUBLAYERS: dict[str, list[tuple[str, ...]]] = {
    "arena.launch": [("sandbox",), ("specs",), ("processes",), ("builds", "pascal")],
    "arena.tournament": [("stats",), ("plan",), ("workers",), ("results",), ("run",), ("audit",)],
}
# The bot kit (bots/common.py) and the bots in other languages: the SDK and the rules, nothing else.
BOTS_MAY_IMPORT = ("protocol", "arena.games", "bots")
# A game's folder: the SDK, the contract, the small shared modules, the kits, the bot kit.
GAME_MAY_IMPORT = ("protocol", "arena.games", "arena.clock", "arena.setups", "arena.argtypes", "arena.outcomes",
                   "arena.kit", "bots")
GAMES_DIR = ROOT / "arena" / "games"
# What a rules engine must not touch: files, processes, sockets, clocks.
NO_IO = ("os", "io", "subprocess", "socket", "zmq", "pathlib", "shutil", "tempfile", "time", "threading",
         "sqlite3", "asyncio", "multiprocessing")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, package: str = "") -> set[str]:
    """Every module path an import in the file names, relative ones resolved against package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or node.level):
            module = node.module or ""
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([module] if module else [])])
            found.add(module)
            # `from arena.launch import uids` imports the module arena.launch.sandbox.uids
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def package_of(path: Path) -> str:
    """The package a file's relative imports start from."""
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


@functools.cache
def game_folders() -> dict[str, str]:
    """Every game folder of the repository: module prefix -> game name."""
    return {f"arena.games.{p.name}": p.name for p in sorted(GAMES_DIR.iterdir()) if (p / "rules.py").is_file()}


def game_of(name: str) -> str:
    """The game folder (module prefix) a module belongs to, or ""."""
    return next((prefix for prefix in game_folders() if name == prefix or name.startswith(prefix + ".")), "")


def is_test(name: str) -> bool:
    """A game's own tests: they may import anything, as tests/ does."""
    return any(name == f"{prefix}.tests" or name.startswith(f"{prefix}.tests.") for prefix in game_folders())


def modules() -> dict[str, set[str]]:
    """Project module -> the project modules it imports (a game's own tests left out)."""
    files = [p for top in ("protocol", "arena", "bots") for p in (ROOT / top).rglob("*.py")]
    names = {module_name(p): p for p in files if not is_test(module_name(p))}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        graph[name] = {m for m in imports_of(path, package_of(path)) if m in names and m != name}
    return graph


def layer_of(name: str) -> tuple[int, str]:
    """(layer number, the package that places it)."""
    best = (-1, "")
    for number, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > len(best[1]):
                best = (number, prefix)
    # A top-level module of arena/ that no layer names is a new room: it must be placed.
    assert best[1] != "arena" or name == "arena", f"{name} is in no layer: add it to LAYERS"
    return best


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import that runs up a layer or sideways to a peer package, or into or out of a game's folder."""
    wrong = []
    for name, imported in sorted(graph.items()):
        home_game = game_of(name)
        wrong += [f"{name} -> {m}" for m in sorted(imported) if game_of(m) and game_of(m) != home_game]
        if home_game:
            wrong += [f"{name} -> {m}" for m in sorted(imported)
                      if not game_of(m) and not (m.startswith(GAME_MAY_IMPORT) and layer_of(m)[0] <= 3)]
            continue
        if name.startswith("bots"):
            wrong += [f"{name} -> {m}" for m in sorted(imported) if not m.startswith(BOTS_MAY_IMPORT)]
            continue
        level, home = layer_of(name)
        for target in sorted(imported):
            if game_of(target):
                continue  # told above
            if target.startswith("bots"):
                wrong.append(f"{name} -> {target}")
                continue
            other, where = layer_of(target)
            # Peers of one layer stay apart, except the loose modules of arena/ (one room).
            if other > level or (other == level and where != home and level != 2):
                wrong.append(f"{name} -> {target}")
            elif where == home and home in SUBLAYERS and name != home and target != home and climbs(name, target):
                wrong.append(f"{name} -> {target}")
    return wrong


def climbs(name: str, target: str) -> bool:
    """Whether an import inside a package of SUBLAYERS runs up to a higher sub-package or across to a peer."""
    (rank, sub), (other, where) = sublayer_of(name), sublayer_of(target)
    return other > rank or (other == rank and where != sub)


def sublayer_of(name: str) -> tuple[int, str]:
    """(rank, sub-package) of a module inside a package of SUBLAYERS; peers of one rank differ by name."""
    package = next(p for p in SUBLAYERS if name.startswith(p + "."))
    sub = name[len(package) + 1:].split(".")[0]
    for rank, group in enumerate(SUBLAYERS[package]):
        if sub in group:
            return rank, sub
    raise AssertionError(f"{name} is in no sub-package of {package}: add it to SUBLAYERS")


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles (strongly connected groups of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_imports_run_only_downward() -> None:
    assert upward_imports(modules()) == []


def test_no_import_circles() -> None:
    # A package's face (__init__) importing its own modules is not a circle of the design.
    graph = {name: {m for m in deps if not name or not m.startswith(name + ".")} for name, deps in modules().items()}
    assert circles(graph) == []


def test_protocol_imports_nothing_of_arena() -> None:
    files = (ROOT / "protocol").rglob("*.py")
    assert [str(p) for p in files if any(m.startswith("arena") for m in imports_of(p))] == []


def rules_io(graph: dict[str, set[str]]) -> list[str]:
    """I/O imported by a game's rules (rules.py and every module of its folder that it imports) or the contract."""
    files = {module_name(p): p for top in ("arena",) for p in (ROOT / top).rglob("*.py")}
    pure = {"arena.games.base"} | {f"{prefix}.rules" for prefix in game_folders()}
    todo, seen = list(pure), set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        todo += [m for m in graph.get(name, ()) if game_of(m) and game_of(m) == game_of(name)]
    return sorted(f"{name}: {m}" for name in seen for m in imports_of(files[name], package_of(files[name]))
                  if m.split(".")[0] in NO_IO)


def test_rules_engines_do_no_io() -> None:
    assert rules_io(modules()) == []


def test_an_added_upward_import_is_caught() -> None:
    graph = modules()
    games = sorted(game_folders())
    one, other = f"{games[0]}.rules", f"{games[1]}.rules"
    graph[one] = graph[one] | {"arena.match.referee", other}
    graph["arena.launch.processes.process"] = (graph["arena.launch.processes.process"]
                                               | {"arena.tournament.run.coordinator"})
    graph["arena.play.session"] = graph["arena.play.session"] | {"arena.tournament.plan.config", other}
    assert upward_imports(graph) == [f"{one} -> {other}", f"{one} -> arena.match.referee",
                                     "arena.launch.processes.process -> arena.tournament.run.coordinator",
                                     f"arena.play.session -> {other}",
                                     "arena.play.session -> arena.tournament.plan.config"]
    # inside a package of sub-packages: up a sub-package, and across to a peer
    inner = modules()
    inner["arena.launch.sandbox.uids"] = inner["arena.launch.sandbox.uids"] | {"arena.launch.processes.process"}
    inner["arena.launch.builds.build"] = inner["arena.launch.builds.build"] | {"arena.launch.pascal.pascal"}
    inner["arena.tournament.results.store"] = (inner["arena.tournament.results.store"]
                                               | {"arena.tournament.workers.worker"})
    assert upward_imports(inner) == ["arena.launch.builds.build -> arena.launch.pascal.pascal",
                                     "arena.launch.sandbox.uids -> arena.launch.processes.process"]
    graph["arena.match.hub"] = graph["arena.match.hub"] | {"arena.match.referee"}
    assert any("arena.match.hub" in group for group in circles(graph))


@pytest.mark.parametrize("top", ["arena"])
def test_arena_holds_a_handful_of_modules(top: str) -> None:
    loose = sorted(p.name for p in (ROOT / top).glob("*.py"))
    assert loose == ["__init__.py", "api.py", "argtypes.py", "clock.py", "outcomes.py", "setups.py"], loose


MAX_PACKAGE_MODULES = 12


def crowded(tops: list[Path]) -> list[str]:
    """Packages that hold more than MAX_PACKAGE_MODULES modules directly (their __init__ not counted)."""
    found = []
    for top in tops:
        for folder in sorted({top, *(p.parent for p in top.rglob("__init__.py"))}):
            count = len([p for p in folder.glob("*.py") if p.name != "__init__.py"])
            if count > MAX_PACKAGE_MODULES:
                found.append(f"{folder.relative_to(top.parent).as_posix()}: {count} modules")
    return found


def test_packages_hold_a_dozen_modules_at_most(tmp_path: Path) -> None:
    # A room a maintainer finds their way in: more modules than this are split into sub-packages.
    found = crowded([ROOT / top for top in ("arena", "protocol", "bots")])
    assert found == []
    room = tmp_path / "room"
    room.mkdir()
    for i in range(MAX_PACKAGE_MODULES + 1):
        (room / f"m{i}.py").write_text("")
    (room / "__init__.py").write_text("")
    assert crowded([room]) == [f"room: {MAX_PACKAGE_MODULES + 1} modules"]


def test_every_sub_package_is_placed() -> None:
    # A new sub-package of a split layer must be given its rank, or its imports go unchecked.
    for package, groups in SUBLAYERS.items():
        folder = ROOT / package.replace(".", "/")
        subs = sorted(p.parent.name for p in folder.glob("*/__init__.py"))
        assert subs == sorted(sub for group in groups for sub in group), package
        assert [p.name for p in folder.glob("*.py")] == ["__init__.py"], f"{package}: modules beside its sub-packages"


def game_name_checks(paths: list[Path]) -> list[str]:
    """Places in these files that branch on a game's name (an if, a dict key, a set of names)."""
    from arena.games import family_names, game_names

    names = set(game_names()) | set(family_names())  # a family's name too: `openspiel` is named in its folder only
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            literals: list[ast.expr] = []
            if isinstance(node, ast.Compare):
                literals = [node.left, *node.comparators]
            elif isinstance(node, ast.Dict):
                literals = [k for k in node.keys if k is not None]
            elif isinstance(node, (ast.Set, ast.Tuple, ast.List)) and isinstance(getattr(node, "ctx", None), ast.Load):
                literals = list(node.elts) if any(isinstance(e, ast.Constant) and e.value in names
                                                  for e in node.elts) and len(node.elts) > 1 else []
            for literal in literals:
                if isinstance(literal, ast.Constant) and literal.value in names:
                    found.append(f"{path.name}:{literal.lineno}: {literal.value!r}")
    return sorted(found)


def test_the_game_is_the_unit(tmp_path: Path) -> None:
    # Everything of a game is in its folder; no module outside it branches on its name.
    folders = [ROOT / "arena" / "games" / name for name in game_folders().values()]
    outside = [p for top in ("arena", "protocol") for p in (ROOT / top).rglob("*.py")
               if not any(p.is_relative_to(folder) for folder in folders)]
    assert game_name_checks(outside) == []
    sneaky = tmp_path / "sneaky.py"
    sneaky.write_text('if game == "tiles":\n    pass\nSPECIAL = {"tenten": 1}\nSLOW = game in ("blocky", "arrows")\n')
    assert game_name_checks([sneaky]) == ["sneaky.py:1: 'tiles'", "sneaky.py:3: 'tenten'", "sneaky.py:4: 'arrows'",
                                          "sneaky.py:4: 'blocky'"]


def undocumented(names: list[str]) -> list[str]:
    """Public functions, classes and methods without a docstring (their own or the one they override)."""
    import importlib
    import inspect

    found = []
    for name in names:
        module = importlib.import_module(name)
        for attr, obj in vars(module).items():
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            members = [(attr, obj)]
            if inspect.isclass(obj):
                members += [(f"{attr}.{m}", f) for m, f in vars(obj).items()
                            if not m.startswith("_") and (inspect.isfunction(f) or isinstance(f, property))]
            for label, member in members:
                target = member.fget if isinstance(member, property) else member
                doc = inspect.getdoc(getattr(obj, label.split(".")[1]) if "." in label else target)
                if not doc:
                    found.append(f"{name}.{label}: no docstring")
                elif "\n" in doc.split("\n\n")[0]:
                    found.append(f"{name}.{label}: the docstring's first paragraph is not one line")
    return found


def test_every_public_name_has_a_one_line_docstring(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert undocumented([n for n in sorted(modules()) if not n.startswith("bots") and not n.endswith("__main__")]) == []
    (tmp_path / "careless.py").write_text('def helper():\n    return 1\n\n\n'
                                          'class Thing:\n    """A thing\n    on two lines."""\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    assert undocumented(["careless"]) == ["careless.helper: no docstring",
                                          "careless.Thing: the docstring's first paragraph is not one line"]


MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60


def oversized(paths: list[Path]) -> list[str]:
    """Modules over MAX_MODULE_LINES lines and functions (methods too) over MAX_FUNCTION_LINES, with their sizes."""
    found = []
    for path in paths:
        text = path.read_text()
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES:
            found.append(f"{path.name}: {lines} lines")
        for node in ast.walk(ast.parse(text, str(path))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    found.append(f"{path.name}:{node.lineno}: {node.name} has {length} lines")
    return found


def test_rooms_stay_small(tmp_path: Path) -> None:
    # A module a reader can hold in mind, a function that fits on a screen.
    assert oversized([p for top in ("arena", "protocol") for p in (ROOT / top).rglob("*.py")]) == []
    big = tmp_path / "big.py"
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_FUNCTION_LINES))
    big.write_text("def long():\n" + body + "\n" * (MAX_MODULE_LINES - MAX_FUNCTION_LINES))
    assert oversized([big]) == [f"big.py: {MAX_MODULE_LINES + 1} lines",
                                f"big.py:1: long has {MAX_FUNCTION_LINES + 1} lines"]
