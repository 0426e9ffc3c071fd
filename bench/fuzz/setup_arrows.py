"""Fuzz target: the arrows pair files of the 2001 contest (.dat: binary TPair records; .txt: text pairs).

The first byte says the format (bit 0: text) and the number of seats; the rest is the file,
read as every setup file is (_setups.check).
"""

from __future__ import annotations

import harness

with harness.instrument(__name__):
    import _setups

    from arena.games import get_game

ARROWS = get_game("arrows")


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Read one pair file; raise Finding (or any other exception) when the answer is wrong."""
    if data:
        name = "board.txt" if data[0] & 1 else "board.dat"
        _setups.check(ARROWS, 2, data[1:], name)


def seeds() -> list[bytes]:
    """The project's contest boards in both formats."""
    return [bytes([flag]) + data for flag, suffix in ((0, ".dat"), (1, ".txt"))
            for game, data in _setups.example_setups(suffix) if game is ARROWS]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
