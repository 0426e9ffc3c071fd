"""The arena: a referee, bots as processes, timed tournaments for turn-based games, each game one folder.

From Python: `from arena import play_match, run_series, run_tournament, render` (arena/api.py).
"""

from typing import Any

__version__ = "0.1.0"
__all__ = ["ArenaError", "RunStopped", "check_game_folder", "game_from_folder", "play_match", "render", "run_series",
           "run_tournament"]


def __getattr__(name: str) -> Any:
    """The API's names, imported on first use so that `import arena` stays light."""
    if name in __all__:
        from arena import api

        return getattr(api, name)
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
