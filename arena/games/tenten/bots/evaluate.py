"""Board evaluation for the tenten search bots: room for the catalogue's blocks, and combos.

Every term is computed on the board's bit mask with shifts, ANDs and popcounts, so one
evaluation costs a few microseconds and a round's search can afford thousands. The terms,
and why each is there:

- **fit** — for every catalogue block, weighted by its catalogue weight (its chance of being
  offered), the anchors where it fits, saturating at three: the game ends when an offered
  block fits nowhere, and room for more copies than a round's three cannot matter before
  the next clear. This is the survival term.
- **big** — the 3×3 square and the 1×5 lines, counted once when one fits and again when a
  second fits beside it: they are the hardest blocks to place, and losing the last room
  for them is how most games die, so they are weighted apart.
- **holes** — empty cells with no empty orthogonal neighbour: only the 1×1 block (weight 2
  of 42) can fill them, so each is a cell lost until a line clears around it.
- **rough** — filled/empty boundaries along rows and columns (the board's edge counting as
  filled): a compact filled region leaves large free rectangles, a ragged one leaves slivers.
- **filled** — filled cells: fewer dots on the board is more room.
- **lines** — completely empty rows and columns: room for the long lines and the squares.
- **combo** — the sum over rows and columns of (filled cells in the line)² / size: it grows
  when the dots gather in a few lines, which is what lets one drop empty several lines at
  once (the bonus per line grows with the lines emptied together: 10, 15, 20, ... each),
  instead of spreading them so that every line empties alone.

The weights were tuned on 300-round 10×10 games (bots/STRENGTH.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from ..rules import CATALOGUE, Block


@dataclass(frozen=True)
class Weights:
    """Weights of the evaluation terms (points per unit of each term)."""

    fit: float = 4.0  # per catalogue weight unit per anchor that fits (at most COPIES)
    big: float = 80.0  # per big block (3×3, 1×5 h, 1×5 v) that fits, and again for a second
    holes: float = 20.0  # per isolated empty cell
    rough: float = 1.5  # per filled/empty boundary
    filled: float = 0.0  # per filled cell (tuned to 0: the other terms already prefer room)
    lines: float = 2.0  # per empty row or column
    combo: float = 1.0  # per (filled cells in a line)² / size, rows and columns


DEFAULT_WEIGHTS = Weights()
COPIES = 3  # a round offers three blocks: room for three of one kind is all that can matter
DEAD = -1_000_000.0  # the value of a board where the round cannot be finished
TERMS = ("fit", "big", "holes", "rough", "filled", "lines", "combo")


class Evaluator:
    """Evaluates boards of one size; tables are built once per size (see `evaluator`)."""

    def __init__(self, size: int, weights: Weights = DEFAULT_WEIGHTS) -> None:
        self.size = size
        self.weights = weights
        full = self.full = (1 << size * size) - 1
        column = sum(1 << (r * size) for r in range(size))
        row = (1 << size) - 1
        self.lines = tuple(row << (r * size) for r in range(size)) + tuple(
            column << k for k in range(size)
        )
        self.not_left = full & ~column
        self.not_right = full & ~(column << (size - 1))
        self.below_top = full >> size
        # Edge cells, once per wall they touch (a corner cell twice).
        self.left_right = column | column << (size - 1)
        self.bottom_top = row | row << (size * (size - 1))
        # Per catalogue block: the shift of each dot, its catalogue weight, the anchors that
        # keep it on the board (as bits of the board mask) and whether it is a big block.
        self.shapes: list[tuple[tuple[int, ...], int, int, bool]] = []
        for block, weight in CATALOGUE:
            width = max(dk for dk, _ in block) + 1
            height = max(dr for _, dr in block) + 1
            valid = 0
            for r in range(size - height + 1):
                for k in range(size - width + 1):
                    valid |= 1 << (r * size + k)
            big = len(block) == 9 or (len(block) == 5 and _is_line(block))
            shifts = tuple(dk + dr * size for dk, dr in block)
            self.shapes.append((shifts, weight, valid, big))

    @staticmethod
    def second_copy(empty: int, anchors: int, shifts: tuple[int, ...], valid: int) -> int:
        """1 when a second copy fits beside the copy at the lowest anchor, else 0."""
        low = anchors & -anchors
        for shift in shifts:
            empty &= ~(low << shift)
        for shift in shifts:
            valid &= empty >> shift
        return 1 if valid else 0

    def raw(self, board: int) -> tuple[float, int, int, int, int, int, float]:
        """The unweighted terms of board, in the order of TERMS."""
        size = self.size
        full = self.full
        empty = full & ~board
        fit = 0.0
        big = 0
        for shifts, weight, valid, is_big in self.shapes:
            # A block fits at an anchor when every dot's cell is empty: AND the empty mask
            # shifted back by each dot's offset, over the anchors that stay on the board.
            anchors = valid
            for shift in shifts:
                anchors &= empty >> shift
            if anchors:
                # Anchors overlap, so their count overstates the copies that fit; saturating
                # at COPIES keeps the term about room for a round's blocks, not about area.
                fit += weight * min(anchors.bit_count(), COPIES)
                if is_big:
                    big += 1 + self.second_copy(empty, anchors, shifts, valid)
        # An isolated empty cell: every neighbour filled or off the board.
        free = ((empty << 1) & self.not_left) | ((empty >> 1) & self.not_right)
        free |= ((empty << size) & full) | (empty >> size)
        holes = (empty & ~free).bit_count()
        rough = (
            ((board ^ (board >> 1)) & self.not_right).bit_count()
            + ((board ^ (board >> size)) & self.below_top).bit_count()
            + (empty & self.left_right).bit_count()
            + (empty & self.bottom_top).bit_count()
        )
        lines = 0
        combo = 0
        for line in self.lines:
            count = (board & line).bit_count()
            if not count:
                lines += 1
            combo += count * count
        return fit, big, holes, rough, board.bit_count(), lines, combo / size

    def terms(self, board: int) -> dict[str, float]:
        """Every term of the evaluation of board by name, unweighted (for tuning and tests)."""
        return dict(zip(TERMS, self.raw(board)))

    def value(self, board: int) -> float:
        """The evaluation of board: higher is better (see the module docstring)."""
        w = self.weights
        fit, big, holes, rough, filled, lines, combo = self.raw(board)
        return (
            w.fit * fit
            + w.big * big
            - w.holes * holes
            - w.rough * rough
            - w.filled * filled
            + w.lines * lines
            + w.combo * combo
        )


def _is_line(block: Block) -> bool:
    """True when block's dots lie on one row or one column."""
    return len({dk for dk, _ in block}) == 1 or len({dr for _, dr in block}) == 1


@lru_cache(maxsize=16)
def evaluator(size: int, weights: Weights = DEFAULT_WEIGHTS) -> Evaluator:
    """The shared evaluator of one board size and weights."""
    return Evaluator(size, weights)
