"""The contest server's rooms: each sub-package of arena/server imports only those below it,
says its purpose in one line and holds about a dozen modules at most."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

SERVER = ROOT / "arena" / "server"
# Lowest first: a room may import its own modules and those of the rooms before it.
ROOMS = ("uploads", "state", "engine", "checks", "web")
# The package's face and the command line stand above every room.
TOP = ("arena.server", "arena.server.cli")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def server_imports(path: Path) -> set[str]:
    """The arena.server modules (or packages) a file imports, inside functions too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return {name for name in found if name.startswith("arena.server")}


def graph() -> dict[str, set[str]]:
    """Every module of arena/server -> the arena/server modules it imports."""
    names = {module_name(p): p for p in SERVER.rglob("*.py")}
    return {
        name: {m for m in server_imports(path) if m in names and m != name}
        for name, path in names.items()
    }


def room_of(name: str) -> int:
    """The room's place from the lowest (0), or len(ROOMS) for the top."""
    if name in TOP:
        return len(ROOMS)
    room = name.split(".")[2]
    assert room in ROOMS, f"{name} is in no room of arena/server: place it in one of {ROOMS}"
    return ROOMS.index(room)


def upward(imports: dict[str, set[str]]) -> list[str]:
    """Every import from a room to a higher one, or into the top."""
    return sorted(
        f"{name} -> {m}"
        for name, deps in imports.items()
        for m in deps
        if m not in TOP[:1] and room_of(m) > room_of(name)
    )


def test_rooms_import_only_downward() -> None:
    assert upward(graph()) == []


def test_an_upward_import_is_caught() -> None:
    imports = graph()
    imports["arena.server.state.config"] |= {"arena.server.web.net"}
    imports["arena.server.web.app"] |= {"arena.server.cli"}
    assert upward(imports) == [
        "arena.server.state.config -> arena.server.web.net",
        "arena.server.web.app -> arena.server.cli",
    ]


def test_every_room_says_its_purpose_and_holds_a_dozen_modules() -> None:
    assert sorted(
        p.name for p in SERVER.iterdir() if p.is_dir() and p.name != "__pycache__"
    ) == sorted(ROOMS)
    assert sorted(p.name for p in SERVER.glob("*.py")) == ["__init__.py", "cli.py"]
    for room in ROOMS:
        face = ast.parse((SERVER / room / "__init__.py").read_text())
        doc = ast.get_docstring(face) or ""
        assert doc and "\n" not in doc and len(face.body) == 1, (
            f"{room}/__init__.py: its purpose, one line"
        )
        modules = [
            p for p in (SERVER / room).iterdir() if p.suffix == ".py" and p.name != "__init__.py"
        ]
        assert len(modules) <= 12, f"{room}/ holds {len(modules)} modules"
