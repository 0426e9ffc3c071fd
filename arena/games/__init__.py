"""Pure rule engines, one game per module, and the registry their modules register with."""

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
from arena.games.registry import UnknownGame, game_names, get_game, register

__all__ = [
    "REFEREE",
    "Event",
    "Game",
    "GameError",
    "IllegalMove",
    "Move",
    "SetupError",
    "State",
    "UnknownGame",
    "game_names",
    "get_game",
    "ranks_from_scores",
    "ranks_with_last",
    "register",
]
