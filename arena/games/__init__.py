"""The game contract (base.py), its conformance checks, and the games: one folder each, found by the registry."""

from __future__ import annotations

from arena.games.base import (
    REFEREE,
    Event,
    Game,
    GameError,
    IllegalMove,
    Move,
    SetupError,
    State,
    ranks_from_scores,
    ranks_with_last,
)
from arena.games.registry import (
    GameFolder,
    GameFolderError,
    UnknownGame,
    add_game_paths,
    external_game_paths,
    family_names,
    folder_of,
    game_file,
    game_folder,
    game_folders,
    game_module,
    game_names,
    get_game,
    is_game_name,
)

__all__ = [
    "REFEREE",
    "Event",
    "Game",
    "GameError",
    "IllegalMove",
    "Move",
    "SetupError",
    "State",
    "GameFolder",
    "GameFolderError",
    "UnknownGame",
    "add_game_paths",
    "external_game_paths",
    "family_names",
    "folder_of",
    "game_file",
    "game_folder",
    "game_folders",
    "game_module",
    "game_names",
    "get_game",
    "is_game_name",
    "ranks_from_scores",
    "ranks_with_last",
]
