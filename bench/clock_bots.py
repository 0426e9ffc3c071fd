"""Bots for bench/clocks.py: one burns a fixed amount of CPU per move, one never answers."""

from __future__ import annotations

import time
from typing import Any

from bots.common import GameBot
from protocol.bot import Bot


class WorkBot(GameBot):
    """Burns `work_ms` of CPU time per move (or `share` of its per-move allowance), then plays."""

    def __init__(self, work_ms: float = 10.0, share: float = 0.0, **options: Any) -> None:
        super().__init__(**options)
        self.work_ms = work_ms
        self.share = share

    def choose(self, state: Any, time_left_ms: int) -> Any:
        target = self.share * time_left_ms if self.share else self.work_ms
        end = time.process_time() + target / 1000.0
        while time.process_time() < end:
            pass
        return state.legal_moves()[0]


class SilentBot(Bot):
    """Says hello, then never answers a request."""

    def init_game(self, game: str, seat: int, players: int, setup: dict, time_left_ms: int, match: str) -> None:
        time.sleep(3600)
