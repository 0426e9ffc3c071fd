"""Timed tournaments (round-robin, gauntlet, knockout, Swiss): config, formats, executors, store, standings."""

from arena.tournament.plan.config import (
    ConfigError,
    TournamentConfig,
    config_from_data,
    load_config,
)
from arena.tournament.plan.errors import TournamentError
from arena.tournament.run.coordinator import Coordinator, RunOptions, load_standings

__all__ = [
    "ConfigError",
    "Coordinator",
    "RunOptions",
    "TournamentConfig",
    "TournamentError",
    "config_from_data",
    "load_config",
    "load_standings",
]
