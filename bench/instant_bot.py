"""A bench bot that answers at once: it precomputes the whole sequential-vs-sequential game."""

from __future__ import annotations

from typing import Any

from arena.games import get_game
from protocol.bot import Bot


class InstantBot(Bot):
    """Plays its precomputed moves without looking at the events."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.plans: dict[tuple[str, int], list[Any]] = {}

    def init_game(self, game: str, seat: int, players: int, setup: dict[str, Any], time_left_ms: int,
                  match: str) -> None:
        key = (repr(sorted(setup.items())), seat)
        if key not in self.plans:  # every bench match has the same board: plan it once
            state, _ = get_game(game).start(setup, players, 0)
            moves = []
            while not state.is_over():
                move = state.legal_moves()[0]
                if state.to_move() == seat:
                    moves.append(move)
                state.apply(move)
            self.plans[key] = moves[::-1]
        self.moves = list(self.plans[key])

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        return self.moves.pop()


class LibraryInstantBot(InstantBot):
    """The same, calling a native function through ctypes every turn, as the SDK serves a Pascal module."""

    def __init__(self, library: str = "", **options: Any) -> None:
        super().__init__(**options)
        import ctypes

        self.lib = ctypes.CDLL(library)
        self.lib.arena_turn.argtypes = [ctypes.c_int32, ctypes.c_int32]
        self.lib.arena_turn.restype = ctypes.c_int32

    def turn(self, events: list[list[Any]], time_left_ms: int) -> Any:
        self.lib.arena_turn(255, time_left_ms)
        return self.moves.pop()
