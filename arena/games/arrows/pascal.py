"""The 2001 contest's Pascal module interface for Arrows: what board.dat holds and what turn's d is.

A `pascal:unit.pas` bot (protocol/SPEC.md section 12) plays a game whose folder has this module:
the SDK serving the compiled module writes `board_pairs(setup)` to board.dat before each
InitGame, passes `turn_argument(events, seat)` as turn's d, and sends the d the module leaves as
its move. Pure: no I/O of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .rules import RESIGN

NO_MOVE = RESIGN  # d when the module moves first; as an answer, a resignation


def board_pairs(setup: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The pairs of board.dat: (cols, rows), the first mover's head, the other's, their directions, blocked cells."""
    first = int(setup.get("to_move", 0)) & 1
    heads, dirs = setup["heads"], setup["dirs"]
    pairs = [(setup["cols"], setup["rows"]), tuple(heads[first]), tuple(heads[1 - first]),
             (dirs[first], dirs[1 - first])]
    pairs += [tuple(cell) for cell in setup.get("blocked", [])]
    return [(int(x), int(y)) for x, y in pairs]


def turn_argument(events: Sequence[Sequence[Any]], seat: int) -> int:
    """turn's d: the other seat's last direction since this seat's last turn, else NO_MOVE."""
    d = NO_MOVE
    for actor, move in events:
        if isinstance(actor, int) and actor >= 0 and actor != seat:
            d = move
    return d


def move_of(d: int) -> int:
    """The move a module's answer d stands for (a direction, or 255 to resign)."""
    return d
