"""The analyzers of `arena analyze`: one per game, registered by that game's module here."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

EXIT_OK = 0


@dataclass(frozen=True)
class Analyzer:
    """One game's `arena analyze` subcommand."""

    game: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace, dict[str, Any]], int]
    players: int = 2  # seats the setup is validated for
    takes_setup: bool = True  # False: the analysis needs no position (`arena analyze blocking`)


ANALYZERS: dict[str, Analyzer] = {}


def register_analyzer(analyzer: Analyzer) -> None:
    """Make `arena analyze <analyzer.game>` available."""
    ANALYZERS[analyzer.game] = analyzer
