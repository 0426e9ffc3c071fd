"""Sprague-Grundy values of Blocking positions: Node Kayles on the king's graph.

Playing a free cell x removes x and its free king-neighbours. Two free cells interact only
when one is a king-neighbour of the other, so a position is the disjunctive sum of the
connected components of the graph "free cells, joined at king distance 1", and its value is
the XOR of the components' Grundy values.

A component is handled as a *shape* `(h, w, mask)`: its cells inside their bounding box,
bit `r * (w + 1) + c`. Column `w` of every row is a guard of zeros, so shifting a mask by
one bit never wraps a cell into the next row, and a king dilation is four shifts.

Values are memoised under the translation-normalised shape and under its canonical form
(the least of the 8 rotations/reflections), in a process-wide table so that what one move
or match learns serves every later one. Three shortcuts never need a search:
- full rectangles 1 x n and 2 x n: the octal game 0.137 (Dawson's Kayles, OEIS A002187);
  in a 2 x n strip every move blocks whole columns, so it is the 1 x n game;
- a shape mapped onto itself by a reflection or half-turn that takes no cell to itself or
  to a neighbour: value 0 (the second player mirrors every move: Tweedledum-Tweedledee).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from functools import lru_cache

Shape = tuple[int, int, int]  # (height, width, mask with stride width + 1)

MAX_MEMO = 2_000_000  # entries per table (~200 bytes each); a safety valve for long-lived pools
DAWSON_LIMIT = 256
# The 8 symmetries of a rectangle as (r, c, h, w) -> (r', c'); indices 4..7 swap h and w.
IDENTITY, FLIP_H, FLIP_V, HALF_TURN, TRANSPOSE, ROT_A, ROT_B, ANTI_TRANSPOSE = range(8)
INVOLUTIONS = (FLIP_H, FLIP_V, HALF_TURN, TRANSPOSE, ANTI_TRANSPOSE)


class SolveTimeout(Exception):
    """The deadline (or the node limit) of an exact computation passed; the memo keeps what was finished."""


def _dawson_table(limit: int) -> tuple[int, ...]:
    """Grundy values of Node Kayles on a path of n cells, n < limit."""
    values = [0, 1]
    for n in range(2, limit):
        options = {values[n - 2]}  # an end cell removes two cells
        for i in range(1, n - 1):  # an inner cell i removes i-1..i+1
            options.add(values[i - 1] ^ values[n - i - 2])
        values.append(mex(options))
    return tuple(values)


def mex(values: set[int]) -> int:
    """The least non-negative integer not in values."""
    g = 0
    while g in values:
        g += 1
    return g


DAWSON = _dawson_table(DAWSON_LIMIT)


def split(mask: int, stride: int) -> Iterator[int]:
    """The king-connected components of mask (a guarded mask with the given stride)."""
    while mask:
        comp = mask & -mask
        while True:
            grown = comp | comp << 1 | comp >> 1  # a king dilation: four shifts
            grown = (grown | grown << stride | grown >> stride) & mask
            if grown == comp:
                break
            comp = grown
        yield comp
        mask ^= comp


def normalise(comp: int, stride: int) -> Shape:
    """The shape of a component given in a frame of the given stride (translation removed)."""
    r0 = ((comp & -comp).bit_length() - 1) // stride
    r1 = (comp.bit_length() - 1) // stride
    row_mask = (1 << stride) - 1
    rows = [(comp >> (r * stride)) & row_mask for r in range(r0, r1 + 1)]
    cols = 0
    for row in rows:
        cols |= row
    c0 = (cols & -cols).bit_length() - 1
    w = cols.bit_length() - c0
    s2 = w + 1
    mask = 0
    for i, row in enumerate(rows):
        mask |= (row >> c0) << (i * s2)
    return r1 - r0 + 1, w, mask


def transform(kind: int, r: int, c: int, h: int, w: int) -> tuple[int, int]:
    """Where symmetry `kind` of an h x w box takes cell (r, c)."""
    if kind < 4:
        return (h - 1 - r if kind & 2 else r), (w - 1 - c if kind & 1 else c)
    if kind == TRANSPOSE:
        return c, r
    if kind == ROT_A:
        return c, h - 1 - r
    if kind == ROT_B:
        return w - 1 - c, r
    return w - 1 - c, h - 1 - r


class Frame:
    """Tables of one h x w bounding box: neighbourhoods, symmetry images, mirror conflicts."""

    def __init__(self, h: int, w: int) -> None:
        self.h, self.w, self.stride = h, w, w + 1
        side = max(h, w)
        # Eight images of a row are packed into one int, `block` bits apart, so that the
        # images of a whole shape are one OR per row instead of one shift per cell.
        self.block = side * (side + 1)
        self.nbr = [0] * (h * self.stride)
        # image[kind][index] = the index of the cell's image in the image's own frame.
        self.image: list[list[int]] = [[-1] * (h * self.stride) for _ in range(8)]
        # conflict[kind] = cells that the involution kind maps onto themselves or a neighbour.
        self.conflict = [0] * 8
        for r in range(h):
            for c in range(w):
                index = r * self.stride + c
                for rr in range(max(0, r - 1), min(h, r + 2)):
                    for cc in range(max(0, c - 1), min(w, c + 2)):
                        self.nbr[index] |= 1 << (rr * self.stride + cc)
                for kind in range(8):
                    rr, cc = transform(kind, r, c, h, w)
                    self.image[kind][index] = rr * ((w if kind < 4 else h) + 1) + cc
                    if max(abs(rr - r), abs(cc - c)) <= 1:
                        self.conflict[kind] |= 1 << index
        self._rows: dict[tuple[int, int], int] = {}

    def row_images(self, r: int, pattern: int) -> int:
        """The packed images under the 8 symmetries of row r holding pattern."""
        key = (r, pattern)
        packed = self._rows.get(key)
        if packed is None:
            packed = 0
            base = r * self.stride
            for kind in range(8):
                image = self.image[kind]
                bits = 0
                p = pattern
                while p:
                    low = p & -p
                    bits |= 1 << image[base + low.bit_length() - 1]
                    p ^= low
                packed |= bits << (kind * self.block)
            if len(self._rows) < 1 << 16:
                self._rows[key] = packed
        return packed

    def variants(self, mask: int) -> list[Shape]:
        """The shape mask under each of the 8 symmetries, in symmetry order."""
        h, w, stride = self.h, self.w, self.stride
        row_mask = (1 << w) - 1
        packed = 0
        for r in range(h):
            pattern = (mask >> (r * stride)) & row_mask
            if pattern:
                packed |= self.row_images(r, pattern)
        block_mask = (1 << self.block) - 1
        return [
            ((h, w) if kind < 4 else (w, h)) + ((packed >> (kind * self.block)) & block_mask,)
            for kind in range(8)
        ]

    def mirror_zero(self, shape: Shape, forms: list[Shape]) -> bool:
        """True when an involutive symmetry maps the shape onto itself, no cell near its image."""
        mask = shape[2]
        return any(forms[k] == shape and not mask & self.conflict[k] for k in INVOLUTIONS)


@lru_cache(maxsize=4096)
def frame(h: int, w: int) -> Frame:
    """The (cached) tables of an h x w box."""
    return Frame(h, w)


def variants(shape: Shape) -> list[Shape]:
    """The shape under each of the 8 symmetries, in symmetry order."""
    return frame(shape[0], shape[1]).variants(shape[2])


def full_strip(shape: Shape) -> int | None:
    """The length of a full 1 x n or 2 x n rectangle (either orientation), else None."""
    h, w, mask = shape
    if min(h, w) > 2 or max(h, w) >= DAWSON_LIMIT:
        return None
    if mask.bit_count() != h * w:
        return None
    return max(h, w)


_SHARED: dict[Shape, int] = {}
_SHARED_RAW: dict[tuple[int, int], int] = {}


class GrundySolver:
    """Exact Grundy values of shapes with a memo shared by every solver of the process."""

    def __init__(self, memo: dict[Shape, int] | None = None) -> None:
        self.memo = _SHARED if memo is None else memo
        # Components met inside a search, keyed by (stride, mask >> lowest bit): that key
        # is translation-invariant within a frame and skips normalising on a hit.
        self.raw: dict[tuple[int, int], int] = _SHARED_RAW if memo is None else {}
        self.deadline = float("inf")
        self.expanded = 0  # shapes whose options were enumerated (a measure of work)
        # A search stops (SolveTimeout) once `expanded` reaches this: a fixed effort, not a time.
        self.node_limit: int | None = None

    def known(self, shape: Shape) -> int | None:
        """The value if it needs no search (memo, strip table, mirror rule), else None."""
        value = self.memo.get(shape)
        if value is not None:
            return value
        length = full_strip(shape)
        if length is not None:
            return DAWSON[length]
        fr = frame(shape[0], shape[1])
        forms = fr.variants(shape[2])
        value = self.memo.get(min(forms))
        if value is None and fr.mirror_zero(shape, forms):
            value = 0
        if value is not None:
            self._store(shape, value)
        return value

    def value(self, shape: Shape, deadline: float | None = None) -> int:
        """The Grundy value of a shape; raises SolveTimeout when deadline (monotonic) passes."""
        if deadline is not None:
            self.deadline = deadline
        value = self.memo.get(shape)
        if value is not None:
            return value
        length = full_strip(shape)
        if length is not None:
            return DAWSON[length]
        fr = frame(shape[0], shape[1])
        forms = fr.variants(shape[2])
        canon = min(forms)
        value = self.memo.get(canon)
        if value is None:
            value = 0 if fr.mirror_zero(shape, forms) else self._expand(shape, fr, forms)
            self._store(canon, value)
        self._store(shape, value)
        return value

    def position_value(self, mask: int, stride: int) -> int:
        """The Grundy value of a guarded mask of free cells (XOR over its components)."""
        raw = self.raw
        whole = (stride, mask // (mask & -mask)) if mask else (stride, 0)
        g = raw.get(whole)
        if g is not None:
            return g
        g = 0
        for comp in split(mask, stride):
            key = (stride, comp // (comp & -comp))
            value = raw.get(key)
            if value is None:
                value = self.value(normalise(comp, stride))
                raw[key] = value
            g ^= value
        if len(raw) >= MAX_MEMO:
            raw.clear()
        raw[whole] = g
        return g

    def record(self, shape: Shape, value: int) -> None:
        """Remember a value found outside value() (under the shape and its canonical form)."""
        self._store(min(variants(shape)), value)
        self._store(shape, value)

    def _store(self, shape: Shape, value: int) -> None:
        if len(self.memo) >= MAX_MEMO:
            self.memo.clear()
        self.memo[shape] = value

    def _expand(self, shape: Shape, fr: Frame, forms: list[Shape]) -> int:
        """mex over every move of the shape (one move per orbit of its symmetries)."""
        limit = self.node_limit
        if time.monotonic() > self.deadline or (limit is not None and self.expanded >= limit):
            raise SolveTimeout
        self.expanded += 1
        mask = shape[2]
        stride, nbr = fr.stride, fr.nbr
        # Moves that a symmetry of the shape maps onto each other have equal values.
        autos = [fr.image[k] for k in range(1, 8) if forms[k] == shape]
        options: set[int] = set()
        rest = mask
        count = 0
        while rest:
            low = rest & -rest
            rest ^= low
            index = low.bit_length() - 1
            if autos and any(image[index] < index for image in autos):
                continue
            count += 1
            if count & 15 == 0 and time.monotonic() > self.deadline:
                raise SolveTimeout
            options.add(self.position_value(mask & ~nbr[index], stride))
        return mex(options)
