"""Arrows (swawolne strzały, the 2001 Pascal module contest): extend your chain of arrows.

Coordinates are 1-based `[x, y]`: x is the column (left to right), y the row (top down).
Internally a cell is the bit index `(y - 1) * cols + (x - 1)`.

Setup keys: `cols`, `rows` (4..10), `heads` ([[x, y], [x, y]]), `dirs` ([d0, d1], 0..7),
`blocked` ([[x, y], ...], optional) and two extensions: `to_move` (0 or 1, default 0) so
that any position can become a setup, and `large` (true) which lifts the board limit from
the contest's 10 to 100 cells per side.

A position turns into a setup (`to_setup`) by treating every piece behind the two heads as
a blocked cell: for the rules a piece and a blocked cell are the same thing, and so the
setup also fits the contest's file of pairs (only the pictures of the old chains are lost).

Setup files mirror the contest's `file of TPair`: binary (`.dat`, `.bin`: little-endian
signed 16-bit x and y per record, no header) or text (`.txt`, `.pairs`: one pair per line,
`#` starts a comment). Pair 1 = (cols, rows), 2 = head of seat 0, 3 = head of seat 1,
4 = (dir of seat 0, dir of seat 1), then one pair per blocked cell. A pair file cannot say
who moves first (seat 0 always does) nor lift the size limit.
"""

from __future__ import annotations

import random
import re
import struct
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from arena.games.base import (
    Event,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    game_of_module,
    is_int,
    iter_bits,
    need_int,
    need_list,
    need_pair,
    need_setup_map,
)
from protocol.messages import Reason

NAME = game_of_module(__name__)  # the folder's name
VERSION = 1
MIN_SIDE = 4
MAX_SIDE = 10  # the contest's range
MAX_LARGE_SIDE = 100  # with "large": true
RESIGN = 255  # the Pascal interface's "no move possible"
SETUP_KEYS = {"cols", "rows", "heads", "dirs", "blocked", "to_move", "large"}
# Options of the random-setup generator (never part of a finished setup).
OPTION_KEYS = {"min_size", "max_size", "density"}
DEFAULT_DENSITY = 0.1

# Direction d -> (dx, dy), y growing downwards; 0 = N, then clockwise.
DIRECTIONS: tuple[tuple[int, int], ...] = (
    (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1),
)
DIRECTION_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
# The prefix of a validation message -> the pair of a pair file that holds that field.
_FIELD_PAIR = re.compile(r"^(cols|rows|heads\[(\d)\]|dirs\[(\d)\]|blocked\[(\d+)\])")


@lru_cache(maxsize=64)
def target_table(cols: int, rows: int) -> tuple[int, ...]:
    """Entry cell*8+d: the cell that an arrow on cell pointing in direction d points at, or -1."""
    table = []
    for cell in range(cols * rows):
        x, y = cell % cols, cell // cols
        for dx, dy in DIRECTIONS:
            nx, ny = x + dx, y + dy
            table.append(ny * cols + nx if 0 <= nx < cols and 0 <= ny < rows else -1)
    return tuple(table)


@lru_cache(maxsize=64)
def neighbour_masks(cols: int, rows: int) -> tuple[int, ...]:
    """For each cell, the bit mask of its up to 8 neighbours (the cell itself excluded)."""
    table = target_table(cols, rows)
    masks = []
    for cell in range(cols * rows):
        mask = 0
        for d in range(8):
            if table[cell * 8 + d] >= 0:
                mask |= 1 << table[cell * 8 + d]
        masks.append(mask)
    return tuple(masks)



class ArrowsState(State):
    """An Arrows position; occupancy is one integer bit mask (bit = cell index)."""

    __slots__ = (
        "chains",
        "cols",
        "dirs",
        "heads",
        "mover",
        "moves",
        "occupied",
        "resigner",
        "rows",
        "start",
        "stuck",
        "table",
    )

    def __init__(self, setup: Mapping[str, Any]) -> None:
        # Bit masks: "is the target free" is one shift-and-AND, a move is one OR, and a
        # copy is a handful of ints; a 100x100 board is still a single Python int.
        self.cols: int = setup["cols"]
        self.rows: int = setup["rows"]
        self.start = dict(setup)  # the validated setup, kept for to_data (replay form)
        self.table = target_table(self.cols, self.rows)
        self.heads = [self.index(*head) for head in setup["heads"]]
        self.dirs = list(setup["dirs"])
        self.chains = [1 << self.heads[0], 1 << self.heads[1]]  # each seat's pieces
        blocked = 0
        for x, y in setup["blocked"]:
            blocked |= 1 << self.index(x, y)
        self.occupied = blocked | self.chains[0] | self.chains[1]
        self.mover: int = setup.get("to_move", 0)
        self.moves: list[int] = []
        self.resigner: int | None = None
        self.stuck = self._mover_is_stuck()

    def index(self, x: int, y: int) -> int:
        """The bit index of the 1-based cell [x, y]."""
        return (y - 1) * self.cols + (x - 1)

    def cell(self, index: int) -> list[int]:
        """The 1-based [x, y] of a bit index."""
        return [index % self.cols + 1, index // self.cols + 1]

    def target(self, seat: int) -> int:
        """The cell index seat's head points at, or -1 when that is off the board."""
        return self.table[self.heads[seat] * 8 + self.dirs[seat]]

    def is_playable(self, seat: int) -> bool:
        """True when seat's target is on the board, free, and not the other seat's target."""
        t = self.target(seat)
        return t >= 0 and not self.occupied >> t & 1 and t != self.target(1 - seat)

    def _mover_is_stuck(self) -> bool:
        return not self.is_playable(self.mover)

    def to_move(self) -> int | None:
        return None if self.is_over() else self.mover

    def legal_moves(self) -> list[Move]:
        # Any direction may be chosen for the new piece; only the target decides.
        return [] if self.is_over() else list(range(8))

    def apply(self, move: Move) -> list[Event]:
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if not is_int(move) or not (0 <= move <= 7 or move == RESIGN):
            raise IllegalMove(move, "a move is a direction 0..7 (or 255 to resign)")
        self.moves.append(move)
        if move == RESIGN:
            self.resigner = self.mover
            return []
        t = self.target(self.mover)
        self.occupied |= 1 << t
        self.chains[self.mover] |= 1 << t
        self.heads[self.mover] = t
        self.dirs[self.mover] = move
        self.mover ^= 1
        self.stuck = self._mover_is_stuck()
        return []

    def is_over(self) -> bool:
        return self.stuck or self.resigner is not None

    def end_reason(self) -> Reason:
        return Reason.RESIGNED if self.resigner is not None else Reason.BLOCKED

    def resigned(self) -> int | None:
        return self.resigner

    def loser(self) -> int | None:
        """The seat that lost (blocked or resigned), or None while the game goes on."""
        if self.resigner is not None:
            return self.resigner
        return self.mover if self.stuck else None

    def scores(self) -> list[float]:
        loser = self.loser()
        if loser is None:
            return [0.0, 0.0]
        return [0.0, 1.0] if loser == 0 else [1.0, 0.0]

    def forfeit_scores(self, offender: int) -> list[float]:
        return [0.0, 1.0] if offender == 0 else [1.0, 0.0]

    def render(self) -> str:
        width = len(str(self.cols))
        lines = [" " * 3 + " ".join(str(x).rjust(width) for x in range(1, self.cols + 1))]
        glyphs = {self.heads[0]: "A", self.heads[1]: "B"}
        for y in range(self.rows):
            row = []
            for x in range(self.cols):
                i = y * self.cols + x
                if i in glyphs:
                    glyph = glyphs[i]
                elif self.chains[0] >> i & 1:
                    glyph = "a"
                elif self.chains[1] >> i & 1:
                    glyph = "b"
                else:
                    glyph = "#" if self.occupied >> i & 1 else "."
                row.append(glyph.rjust(width))
            lines.append(f"{y + 1:>2} " + " ".join(row))
        for seat, letter in enumerate("AB"):
            t = self.target(seat)
            where = "off the board" if t < 0 else str(self.cell(t))
            lines.append(
                f"{letter}: seat {seat} head {self.cell(self.heads[seat])} "
                f"facing {DIRECTION_NAMES[self.dirs[seat]]} ({self.dirs[seat]}), target {where}"
            )
        if self.resigner is not None:
            lines.append(f"seat {self.resigner} resigned")
        elif self.stuck:
            lines.append(f"seat {self.mover} is blocked and loses")
        else:
            lines.append(f"to move: seat {self.mover}")
        return "\n".join(lines)

    def to_data(self) -> dict[str, Any]:
        # Replay form: the starting setup plus the moves; state_from_data re-checks them.
        return {**self.start, "moves": list(self.moves)}

    def to_setup(self) -> dict[str, Any]:
        blocked = self.occupied & ~(1 << self.heads[0]) & ~(1 << self.heads[1])
        setup: dict[str, Any] = {
            "cols": self.cols,
            "rows": self.rows,
            "heads": [self.cell(h) for h in self.heads],
            "dirs": list(self.dirs),
            "blocked": sorted(self.cell(i) for i in iter_bits(blocked)),
        }
        if self.mover:
            setup["to_move"] = self.mover
        if self.start.get("large"):
            setup["large"] = True
        return setup

    def copy(self) -> ArrowsState:
        other = object.__new__(ArrowsState)
        for slot in ArrowsState.__slots__:
            setattr(other, slot, getattr(self, slot))
        other.heads, other.dirs = list(self.heads), list(self.dirs)
        other.chains, other.moves = list(self.chains), list(self.moves)
        return other


class Arrows(Game):
    """Two chains of arrows grow on a board; a player whose target is not playable loses."""

    name = NAME
    version = VERSION
    min_players = 2
    max_players = 2
    description = "put a new arrow where your last one points; a blocked player loses"
    exact_setups = True

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(NAME, setup, SETUP_KEYS, ("cols", "rows", "heads", "dirs"))
        large = setup.get("large", False)
        if not isinstance(large, bool):
            raise SetupError(NAME, f"large must be true or false, got {large!r}")
        side = MAX_LARGE_SIDE if large else MAX_SIDE
        hint = "" if large else ' (set "large": true for boards up to 100)'
        sizes = []
        for key in ("cols", "rows"):
            value = need_int(NAME, key, setup[key])
            if not MIN_SIDE <= value <= side:
                raise SetupError(NAME, f"{key} must be in {MIN_SIDE}..{side}, got {value}{hint}")
            sizes.append(value)
        cols, rows = sizes
        blocked: set[tuple[int, int]] = set()
        for i, cell in enumerate(need_list(NAME, "blocked", setup.get("blocked", []))):
            x, y = need_pair(NAME, f"blocked[{i}]", cell)
            if not (1 <= x <= cols and 1 <= y <= rows):
                raise SetupError(NAME, f"blocked[{i}] = [{x}, {y}] is off the {cols}x{rows} board")
            blocked.add((x, y))
        heads = need_list(NAME, "heads", setup["heads"])
        if len(heads) != 2:
            raise SetupError(NAME, f"heads must hold 2 cells, got {len(heads)}")
        pairs = []
        for i, head in enumerate(heads):
            x, y = need_pair(NAME, f"heads[{i}]", head)
            if not (1 <= x <= cols and 1 <= y <= rows):
                raise SetupError(NAME, f"heads[{i}] = [{x}, {y}] is off the {cols}x{rows} board")
            if (x, y) in blocked:
                raise SetupError(NAME, f"heads[{i}] = [{x}, {y}] is a blocked cell")
            pairs.append([x, y])
        if pairs[0] == pairs[1]:
            raise SetupError(NAME, f"heads[1] = {pairs[1]} is the same cell as heads[0]")
        dirs = need_list(NAME, "dirs", setup["dirs"])
        if len(dirs) != 2:
            raise SetupError(NAME, f"dirs must hold 2 directions, got {len(dirs)}")
        for i, d in enumerate(dirs):
            need_int(NAME, f"dirs[{i}]", d, 0, 7)
        to_move = need_int(NAME, "to_move", setup.get("to_move", 0), 0, 1)
        result: dict[str, Any] = {
            "cols": cols,
            "rows": rows,
            "heads": pairs,
            "dirs": list(dirs),
            "blocked": [list(c) for c in sorted(blocked)],
        }
        if to_move:
            result["to_move"] = to_move
        if large:
            result["large"] = True
        return result

    def random_setup(
        self, rng: random.Random, players: int = 2, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Complete partial; options: min_size, max_size (over 10 sets "large"), density."""
        # density is the share of blocked cells (default 0.1), always leaving room for the
        # heads. Directions are drawn among those whose targets are playable (see
        # _random_dirs) so that a random board does not end before its first move.
        partial = dict(partial or {})
        lo = need_int(NAME, "min_size", partial.pop("min_size", MIN_SIDE), MIN_SIDE, MAX_LARGE_SIDE)
        hi = need_int(NAME, "max_size", partial.pop("max_size", MAX_SIDE), lo, MAX_LARGE_SIDE)
        density = partial.pop("density", DEFAULT_DENSITY)
        if not isinstance(density, (int, float)) or isinstance(density, bool) or not 0 <= density < 1:
            raise SetupError(NAME, f"density must be a number in [0, 1), got {density!r}")
        setup = dict(partial)
        cols = setup.setdefault("cols", rng.randint(lo, hi))
        rows = setup.setdefault("rows", rng.randint(lo, hi))
        if is_int(cols) and is_int(rows) and max(cols, rows) > MAX_SIDE:
            setup.setdefault("large", True)
        # Sizes are checked before cells are listed, so a bad size is a SetupError, not a hang.
        side = MAX_LARGE_SIDE if setup.get("large") else MAX_SIDE
        cols = need_int(NAME, "cols", cols, MIN_SIDE, side)
        rows = need_int(NAME, "rows", rows, MIN_SIDE, side)
        cells = [[x, y] for y in range(1, rows + 1) for x in range(1, cols + 1)]
        if "blocked" not in setup:
            heads = need_list(NAME, "heads", setup.get("heads", []))
            taken = [list(need_pair(NAME, f"heads[{i}]", h)) for i, h in enumerate(heads)]
            candidates = [c for c in cells if c not in taken]
            count = min(int(len(cells) * density), len(candidates) - 2)
            setup["blocked"] = rng.sample(candidates, max(0, count))
        if "heads" not in setup:
            blocked = {need_pair(NAME, f"blocked[{i}]", c)
                       for i, c in enumerate(need_list(NAME, "blocked", setup["blocked"]))}
            free = [c for c in cells if tuple(c) not in blocked]
            setup["heads"] = rng.sample(free, 2) if len(free) >= 2 else free
        if "dirs" not in setup:
            setup["dirs"] = self._random_dirs(rng, setup)
        return self.validate_setup(setup, players)

    def _random_dirs(self, rng: random.Random, setup: dict[str, Any]) -> list[int]:
        """Directions whose targets are on the board, free and distinct, when there are any."""
        try:
            base = self.validate_setup({**setup, "dirs": [0, 0]})
        except SetupError:
            return [rng.randrange(8), rng.randrange(8)]  # validate_setup will explain
        state = ArrowsState(base)
        table, targets, dirs = state.table, [], []
        for seat in (0, 1):
            good = [
                d for d in range(8)
                if (t := table[state.heads[seat] * 8 + d]) >= 0
                and not state.occupied >> t & 1 and t not in targets
            ]
            d = rng.choice(good) if good else rng.randrange(8)
            dirs.append(d)
            targets.append(table[state.heads[seat] * 8 + d])
        return dirs

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        return ArrowsState(self.validate_setup(setup, players)), []

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        state = ArrowsState(self.validate_setup({k: data[k] for k in SETUP_KEYS if k in data}))
        for move in need_list(NAME, "moves", data.get("moves", [])):
            try:
                state.apply(move)
            except IllegalMove as exc:
                raise SetupError(NAME, f"moves: {exc}") from None
        return state

    def parse_setup_file(self, data: bytes, filename: str) -> dict[str, Any] | None:
        suffix = filename.lower().rpartition(".")[2]
        if suffix in ("dat", "bin"):
            return setup_from_pairs(pairs_from_binary(data))
        if suffix in ("txt", "pairs"):
            return setup_from_pairs(pairs_from_text(data))
        return None

    def render_move(self, move: Move) -> str:
        if is_int(move) and 0 <= move <= 7:
            return f"{DIRECTION_NAMES[move]} ({move})"
        if move == RESIGN and is_int(move):
            return f"resign ({RESIGN})"
        return repr(move)


# --- the contest's file of TPair ---------------------------------------------------------

_TPAIR = struct.Struct("<hh")  # TP7 `integer` is a little-endian signed 16-bit word


def pairs_from_binary(data: bytes) -> list[tuple[int, int]]:
    """The pairs of a Turbo Pascal 7 `file of TPair` (4 bytes per record, no header)."""
    if len(data) % _TPAIR.size:
        raise SetupError(
            NAME,
            f"pair file: length {len(data)} bytes is not a multiple of 4 "
            "(each TPair is two 16-bit integers)",
        )
    return [_TPAIR.unpack_from(data, i) for i in range(0, len(data), _TPAIR.size)]


def pairs_from_text(data: bytes) -> list[tuple[int, int]]:
    """The pairs of the text encoding: two integers per line, `#` comments, blank lines."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(NAME, f"pair file: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    pairs = []
    for number, line in enumerate(text.splitlines(), 1):
        content = line.split("#", 1)[0].strip()
        if not content:
            continue
        fields = content.split()
        try:
            if len(fields) != 2:
                raise ValueError
            pairs.append((int(fields[0]), int(fields[1])))
        except ValueError:
            raise SetupError(
                NAME, f"pair file line {number}: expected two integers, got {content!r}"
            ) from None
    return pairs


def setup_from_pairs(pairs: Sequence[Sequence[int]], large: bool = False) -> dict[str, Any]:
    """The validated setup described by a file of pairs; errors name the offending pair."""
    if len(pairs) < 4:
        raise SetupError(
            NAME,
            f"pair file: needs at least 4 pairs (size, head 0, head 1, directions), got {len(pairs)}",
        )
    setup: dict[str, Any] = {
        "cols": pairs[0][0],
        "rows": pairs[0][1],
        "heads": [list(pairs[1]), list(pairs[2])],
        "dirs": list(pairs[3]),
        "blocked": [list(p) for p in pairs[4:]],
    }
    if large:
        setup["large"] = True
    try:
        return GAME.validate_setup(setup)
    except SetupError as exc:
        match = _FIELD_PAIR.match(exc.detail)
        if match is None:
            raise
        field, head, direction, block = match.groups()
        number = (
            1 if field in ("cols", "rows")
            else 2 + int(head) if head is not None
            else 4 if direction is not None
            else 5 + int(block)
        )
        raise SetupError(NAME, f"pair file, pair {number}: {exc.detail}") from None


def setup_to_pairs(setup: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The pairs of a setup, in file order; refuses a setup the file format cannot express."""
    valid = GAME.validate_setup(setup)
    if valid.get("to_move"):
        raise SetupError(NAME, "to_move: a pair file cannot say that seat 1 moves first")
    pairs = [
        (valid["cols"], valid["rows"]),
        tuple(valid["heads"][0]),
        tuple(valid["heads"][1]),
        tuple(valid["dirs"]),
    ]
    return pairs + [(x, y) for x, y in valid["blocked"]]


def pairs_to_binary(setup: Mapping[str, Any]) -> bytes:
    """The setup as a Turbo Pascal 7 binary `file of TPair`."""
    return b"".join(_TPAIR.pack(x, y) for x, y in setup_to_pairs(setup))


def pairs_to_text(setup: Mapping[str, Any]) -> str:
    """The setup as the text encoding of a file of pairs (with explanatory comments)."""
    pairs = setup_to_pairs(setup)
    labels = ["cols rows", "head of seat 0 (x y)", "head of seat 1 (x y)", "dirs of seats 0 and 1"]
    lines = ["# arrows board: a file of TPair, one pair per line"]
    for i, (x, y) in enumerate(pairs):
        label = labels[i] if i < len(labels) else "blocked (x y)" if i == len(labels) else ""
        lines.append(f"{x} {y}" + (f"  # {label}" if label else ""))
    return "\n".join(lines) + "\n"


ArrowsState.game = GAME = Arrows()
