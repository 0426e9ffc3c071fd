"""1010! (tenten): drop offered blocks on a square board; full rows and columns empty out."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Any, NamedTuple

from arena.games.base import (
    Event,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    chance_rng,
    game_of_module,
    is_int,
    need_int,
    need_list,
    need_pair,
    need_setup_map,
    short_json,
)
from arena.kit.setups import random_sizes

NAME = game_of_module(__name__)  # the folder's name
VERSION = 1
MAX_SIZE = 32
MAX_OFFER = 10
MAX_SEQUENCE = 10_000
SETUP_KEYS = {"size", "offer", "sequence", "max_rounds", "filled"}
# Options of the random-setup generator (never part of a finished setup).
OPTION_KEYS = {"min_size", "max_size", "sequence_length", "density"}

Block = tuple[tuple[int, int], ...]  # canonical form: sorted (dk, dr) dots


def _shape(*dots: tuple[int, int]) -> Block:
    return tuple(sorted(dots))


def _line(length: int, vertical: bool) -> Block:
    return _shape(*(((0, i) if vertical else (i, 0)) for i in range(length)))


# The weighted catalogue of blocks (Coelho's count of the real game, total weight 42).
CATALOGUE: list[tuple[Block, int]] = [
    (_shape((0, 0)), 2),
    (_line(2, False), 3),
    (_line(2, True), 3),
    (_line(3, False), 3),
    (_line(3, True), 3),
    (_line(4, False), 2),
    (_line(4, True), 2),
    (_line(5, False), 2),
    (_line(5, True), 2),
    (_shape((0, 0), (1, 0), (0, 1), (1, 1)), 6),
    (_shape(*((k, r) for k in range(3) for r in range(3))), 2),
    (_shape((0, 0), (1, 0), (0, 1)), 2),
    (_shape((0, 0), (1, 0), (1, 1)), 2),
    (_shape((0, 0), (0, 1), (1, 1)), 2),
    (_shape((1, 0), (0, 1), (1, 1)), 2),
    (_shape((0, 0), (1, 0), (2, 0), (0, 1), (0, 2)), 1),
    (_shape((0, 0), (1, 0), (2, 0), (2, 1), (2, 2)), 1),
    (_shape((0, 0), (0, 1), (0, 2), (1, 2), (2, 2)), 1),
    (_shape((2, 0), (2, 1), (2, 2), (0, 2), (1, 2)), 1),
]
_CATALOGUE_BLOCKS = [block for block, _ in CATALOGUE]
_CATALOGUE_WEIGHTS = [weight for _, weight in CATALOGUE]


def line_bonus(lines: int) -> int:
    """The bonus for emptying `lines` rows and columns with one drop: 10 + 20 + ... = 5n(n+1)."""
    return 5 * lines * (lines + 1)


# --- bit masks ----------------------------------------------------------------------------
# The board is one int: bit (r-1)*size + (k-1) is cell [k, r]. Checking a drop is one AND,
# dropping is one OR, and a line is full when board & line == line, so bots can search
# thousands of positions per round cheaply.


class Placement(NamedTuple):
    """One anchor position of a block: its cells as a mask and the lines those cells touch."""

    k: int
    r: int
    mask: int
    lines: tuple[int, ...]
    dots: int


def cell_bit(size: int, k: int, r: int) -> int:
    """The bit of cell [k, r] (1-based column and row)."""
    return 1 << ((r - 1) * size + (k - 1))


@lru_cache(maxsize=64)
def line_masks(size: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The masks of every row (bottom first) and every column (left first)."""
    row = (1 << size) - 1
    rows = tuple(row << (r * size) for r in range(size))
    column = sum(1 << (r * size) for r in range(size))
    columns = tuple(column << k for k in range(size))
    return rows, columns


@lru_cache(maxsize=4096)
def placements(size: int, block: Block) -> tuple[Placement, ...]:
    """Every anchor [k, r] that keeps all dots of block on the board, row by row from the bottom."""
    rows, columns = line_masks(size)
    min_k = min(dk for dk, _ in block)
    max_k = max(dk for dk, _ in block)
    min_r = min(dr for _, dr in block)
    max_r = max(dr for _, dr in block)
    result = []
    for r in range(1 - min_r, size - max_r + 1):
        for k in range(1 - min_k, size - max_k + 1):
            mask = 0
            for dk, dr in block:
                mask |= cell_bit(size, k + dk, r + dr)
            touched = {r + dr for _, dr in block}, {k + dk for dk, _ in block}
            lines = tuple(rows[i - 1] for i in sorted(touched[0])) + tuple(
                columns[i - 1] for i in sorted(touched[1])
            )
            result.append(Placement(k, r, mask, lines, len(block)))
    return tuple(result)


def score_drop(board: int, placement: Placement) -> tuple[int, int]:
    """Drop a (fitting) placement on board: the new board after emptying lines, and the points."""
    board |= placement.mask
    full = 0
    cleared = 0
    for line in placement.lines:
        if board & line == line:
            full |= line
            cleared += 1
    return board & ~full, placement.dots + line_bonus(cleared)


def fits_somewhere(board: int, size: int, block: Block) -> bool:
    """True when block can be dropped somewhere on board."""
    return any(not board & p.mask for p in placements(size, block))


# --- blocks as data ------------------------------------------------------------------------


def block_error(block: Any) -> str | None:
    """Why block is not a valid block (non-empty, distinct, connected [dk, dr] dots), or None."""
    if not isinstance(block, (list, tuple)):
        return f"must be a list of [dk, dr] dots, got {type(block).__name__}"
    if not block:
        return "is an empty block"
    dots = set()
    for dot in block:
        if (
            not isinstance(dot, (list, tuple))
            or len(dot) != 2
            or not all(is_int(v) and abs(v) <= 2 * MAX_SIZE for v in dot)
        ):
            return f"has a dot {dot!r} that is not a pair of integers within ±{2 * MAX_SIZE}"
        if tuple(dot) in dots:
            return f"has the dot {list(dot)} twice"
        dots.add((dot[0], dot[1]))
    start = next(iter(dots))
    seen, todo = {start}, [start]
    while todo:
        k, r = todo.pop()
        for near in ((k + 1, r), (k - 1, r), (k, r + 1), (k, r - 1)):
            if near in dots and near not in seen:
                seen.add(near)
                todo.append(near)
    if len(seen) != len(dots):
        return "is not orthogonally connected"
    return None


def to_block(game: str, name: str, value: Any) -> Block:
    """Validate a block given as data and return its canonical form; raise SetupError."""
    error = block_error(value)
    if error:
        raise SetupError(game, f"{name} {error}")
    return tuple(sorted((dot[0], dot[1]) for dot in value))


def block_data(block: Block) -> list[list[int]]:
    """A block as wire data: a list of [dk, dr]."""
    return [[dk, dr] for dk, dr in block]


def block_picture(block: Block) -> list[str]:
    """A block drawn top row first: '#' dot, '@' dot on the anchor, '+' bare anchor, '.' gap."""
    cells = set(block)
    ks = [dk for dk, _ in block] + [0]
    rs = [dr for _, dr in block] + [0]
    lines = []
    for dr in range(max(rs), min(rs) - 1, -1):
        row = ""
        for dk in range(min(ks), max(ks) + 1):
            if (dk, dr) == (0, 0):
                row += "@" if (0, 0) in cells else "+"
            else:
                row += "#" if (dk, dr) in cells else "."
        lines.append(row)
    return lines


class TentenState(State):
    """A 1010! position: the board as one bit mask, the blocks on offer, the blocks to come."""

    def __init__(
        self,
        size: int,
        offer_size: int,
        board: int,
        sequence: list[Block] | None,
        max_rounds: int | None,
        seed: int,
    ) -> None:
        self.size = size
        self.offer_size = offer_size
        self.board = board
        self.sequence = sequence  # blocks still to be offered; None: draw from the catalogue
        self.max_rounds = max_rounds
        self.seed = seed
        self.counter = 0  # chance draws made so far (see chance_rng)
        self.offer: list[Block] = []
        self.round = 0
        self.points = 0
        self.drops = 0
        self.over = False

    # --- rules --------------------------------------------------------------------------

    def next_offer(self) -> list[Event]:
        """Start the next round if there is one; return its offer event."""
        if self.max_rounds is not None and self.round >= self.max_rounds:
            return []
        if self.sequence is not None:
            if not self.sequence:
                return []
            self.offer = self.sequence[: self.offer_size]
            self.sequence = self.sequence[self.offer_size :]
        else:
            rng = chance_rng(self.seed, self.counter)
            self.counter += 1
            self.offer = rng.choices(_CATALOGUE_BLOCKS, _CATALOGUE_WEIGHTS, k=self.offer_size)
        self.round += 1
        return [[-1, {"offer": [block_data(block) for block in self.offer]}]]

    def update_over(self) -> None:
        """Recompute whether the game is over (no offer left, or nothing on offer fits)."""
        self.over = not any(fits_somewhere(self.board, self.size, b) for b in self.offer)

    def to_move(self) -> int | None:
        return None if self.over else 0

    def legal_moves(self) -> list[Move]:
        if self.over:
            return []
        return [
            [i, p.k, p.r]
            for i, block in enumerate(self.offer)
            for p in placements(self.size, block)
            if not self.board & p.mask
        ]

    def find_placement(self, move: Move) -> Placement:
        """The placement a move [i, k, r] names; raise IllegalMove when it is not legal."""
        if self.over:
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, (list, tuple)) or len(move) != 3 or not all(map(is_int, move)):
            raise IllegalMove(move, "a move is [i, k, r]")
        i, k, r = move
        if not 0 <= i < len(self.offer):
            raise IllegalMove(move, f"block {i} is not on offer ({len(self.offer)} on offer)")
        block = self.offer[i]
        for dk, dr in block:
            if not (1 <= k + dk <= self.size and 1 <= r + dr <= self.size):
                raise IllegalMove(move, f"dot [{k + dk}, {r + dr}] is off the board")
            if self.board & cell_bit(self.size, k + dk, r + dr):
                raise IllegalMove(move, f"cell [{k + dk}, {r + dr}] is filled")
        min_k = min(dk for dk, _ in block)
        min_r = min(dr for _, dr in block)
        width = max(dk for dk, _ in block) - min_k + 1
        # placements() runs row by row from the bottom, each row holding size - width + 1 anchors.
        index = (r + min_r - 1) * (self.size - width + 1) + (k + min_k - 1)
        return placements(self.size, block)[index]

    def apply(self, move: Move) -> list[Event]:
        placement = self.find_placement(move)
        self.board, points = score_drop(self.board, placement)
        self.points += points
        self.drops += 1
        del self.offer[move[0]]
        events = [] if self.offer else self.next_offer()
        self.update_over()
        return events

    def apply_event(self, payload: Any) -> None:
        if not isinstance(payload, Mapping) or set(payload) != {"offer"}:
            raise IllegalMove(payload, 'a tenten event is {"offer": [block, ...]}')
        blocks = payload["offer"]
        if not isinstance(blocks, (list, tuple)) or not 1 <= len(blocks) <= self.offer_size:
            raise IllegalMove(payload, f"an offer holds 1..{self.offer_size} blocks")
        offer = []
        for i, block in enumerate(blocks):
            error = block_error(block)
            if error:
                raise IllegalMove(payload, f"offer[{i}] {error}")
            offer.append(tuple(sorted((dot[0], dot[1]) for dot in block)))
        self.offer = offer
        self.update_over()

    def is_over(self) -> bool:
        return self.over

    def scores(self) -> list[float]:
        return [float(self.points)]

    # --- views --------------------------------------------------------------------------

    def is_filled(self, k: int, r: int) -> bool:
        """True when cell [k, r] is filled."""
        return bool(self.board & cell_bit(self.size, k, r))

    def filled_cells(self) -> list[list[int]]:
        """Every filled cell as [k, r], sorted."""
        size = self.size
        return sorted(
            [k, r] for r in range(1, size + 1) for k in range(1, size + 1) if self.is_filled(k, r)
        )

    def render(self) -> str:
        size = self.size
        left = "over" if self.over else f"{len(self.offer)} on offer"
        if self.sequence is not None:
            left += f", {len(self.sequence)} in sequence"
        lines = [f"tenten round {self.round}, {self.drops} drops, score {self.points} ({left})"]
        width = len(str(size)) + 1  # one blank column between two-digit column numbers
        for r in range(size, 0, -1):
            cells = "".join(
                f"{'#' if self.is_filled(k, r) else '.':>{width}}" for k in range(1, size + 1)
            )
            lines.append(f"{r:>{width - 1}}{cells}")
        lines.append(" " * (width - 1) + "".join(f"{k:>{width}}" for k in range(1, size + 1)))
        if self.offer:
            pictures = [block_picture(block) for block in self.offer]
            height = max(len(p) for p in pictures)
            widths = [max(len(p[0]), 2) for p in pictures]
            # Bottom-align the shapes so that they read like blocks standing on a shelf.
            padded = [[""] * (height - len(p)) + p for p in pictures]
            labels = "   ".join(f"{i:<{w}}" for i, w in enumerate(widths))
            lines.append(f"offer: {labels}".rstrip())
            for row in range(height):
                lines.append(
                    "       "
                    + "   ".join(f"{p[row]:<{w}}" for p, w in zip(padded, widths)).rstrip()
                )
        return "\n".join(lines)

    def to_data(self) -> dict[str, Any]:
        return {
            "size": self.size,
            "offer": self.offer_size,
            "filled": self.filled_cells(),
            "sequence": None if self.sequence is None else [block_data(b) for b in self.sequence],
            "max_rounds": self.max_rounds,
            "on_offer": [block_data(b) for b in self.offer],
            "round": self.round,
            "points": self.points,
            "drops": self.drops,
            "seed": self.seed,
            "counter": self.counter,
        }

    def to_setup(self) -> dict[str, Any]:
        # Exact at the start of a round in sequence mode (the offer goes back in front of the
        # sequence); a catalogue offer cannot be written into a setup and is drawn afresh.
        setup: dict[str, Any] = {"size": self.size, "offer": self.offer_size}
        if self.sequence is not None:
            setup["sequence"] = [block_data(b) for b in self.offer + self.sequence]
        if self.max_rounds is not None:
            setup["max_rounds"] = max(1, self.max_rounds - self.round + 1)
        filled = self.filled_cells()
        if filled:
            setup["filled"] = filled
        return setup

    def copy(self) -> TentenState:
        other = TentenState(
            self.size,
            self.offer_size,
            self.board,
            None if self.sequence is None else list(self.sequence),
            self.max_rounds,
            self.seed,
        )
        other.counter, other.offer, other.round = self.counter, list(self.offer), self.round
        other.points, other.drops, other.over = self.points, self.drops, self.over
        return other


def _full_lines(size: int, cells: Iterable[tuple[int, int]]) -> list[str]:
    """Names of the rows and columns that cells fill completely."""
    cells = set(cells)
    span = range(1, size + 1)
    names = [f"row {r}" for r in span if all((k, r) in cells for k in span)]
    return names + [f"column {k}" for k in span if all((k, r) in cells for r in span)]


class Tenten(Game):
    """Single-player 1010!: rounds of offered blocks, points for dots and emptied lines."""

    name = NAME
    version = VERSION
    min_players = 1
    max_players = 1
    description = "drop offered blocks on a square board; full rows and columns empty out"
    chance = True  # the offers are drawn from the seed (unless the setup fixes a sequence)

    def describe_event(self, payload: Any) -> str:
        """An offer of blocks."""
        if isinstance(payload, dict) and "offer" in payload:
            try:
                drawn = ["/".join(block_picture([tuple(dot) for dot in block])) for block in payload["offer"]]
            except (TypeError, ValueError):  # not blocks: shown as they are
                return f"referee offers {short_json(payload['offer'], 200)}"
            count = len(drawn)
            # Each block top row first, rows split by '/': '#' a dot, '@' the dot on the anchor.
            return f"referee offers {count} block{'s' if count != 1 else ''}: " + "   ".join(drawn)
        return super().describe_event(payload)

    def validate_setup(self, setup: Mapping[str, Any], players: int = 1) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(NAME, setup, SETUP_KEYS)
        size = need_int(NAME, "size", setup.get("size", 10), 1, MAX_SIZE)
        result: dict[str, Any] = {
            "size": size,
            "offer": need_int(NAME, "offer", setup.get("offer", 3), 1, MAX_OFFER),
        }
        if "sequence" in setup:
            blocks = need_list(NAME, "sequence", setup["sequence"])
            if not 1 <= len(blocks) <= MAX_SEQUENCE:
                raise SetupError(
                    NAME, f"sequence must hold 1..{MAX_SEQUENCE} blocks, got {len(blocks)}"
                )
            result["sequence"] = [
                block_data(to_block(NAME, f"sequence[{i}]", b)) for i, b in enumerate(blocks)
            ]
        if "max_rounds" in setup:
            result["max_rounds"] = need_int(NAME, "max_rounds", setup["max_rounds"], 1, 10**6)
        if "filled" in setup:
            cells = set()
            for i, cell in enumerate(need_list(NAME, "filled", setup["filled"])):
                k, r = need_pair(NAME, f"filled[{i}]", cell)
                if not (1 <= k <= size and 1 <= r <= size):
                    raise SetupError(
                        NAME, f"filled[{i}] = [{k}, {r}] is off the {size}x{size} board"
                    )
                cells.add((k, r))
            full = _full_lines(size, cells)
            if full:
                # A full line can never stand on the board: it empties in the drop that fills it.
                raise SetupError(NAME, f"filled must not fill a whole line ({', '.join(full)})")
            result["filled"] = [[k, r] for k, r in sorted(cells)]
        return result

    def random_setup(
        self, rng: random.Random, players: int = 1, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        partial = dict(partial or {})
        lo, hi, density = random_sizes(NAME, partial, 6, 10, MAX_SIZE)
        length = partial.pop("sequence_length", None)
        setup = dict(partial)
        if "size" not in setup:
            setup["size"] = rng.randint(lo, hi)
        size = need_int(NAME, "size", setup["size"], 1, MAX_SIZE)
        if length is not None and "sequence" not in setup:
            count = need_int(NAME, "sequence_length", length, 1, MAX_SEQUENCE)
            drawn = rng.choices(_CATALOGUE_BLOCKS, _CATALOGUE_WEIGHTS, k=count)
            setup["sequence"] = [block_data(block) for block in drawn]
        if density and "filled" not in setup:
            cells = [(k, r) for r in range(1, size + 1) for k in range(1, size + 1)]
            chosen = set(rng.sample(cells, int(len(cells) * density)))
            # Open one random cell in every full line so that the board is a reachable one.
            for r in range(1, size + 1):
                if all((k, r) in chosen for k in range(1, size + 1)):
                    chosen.discard((rng.randint(1, size), r))
            for k in range(1, size + 1):
                if all((k, r) in chosen for r in range(1, size + 1)):
                    chosen.discard((k, rng.randint(1, size)))
            setup["filled"] = [[k, r] for k, r in sorted(chosen)]
        return self.validate_setup(setup, players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        state = self.new_state(self.validate_setup(setup, players), seed)
        events = state.next_offer()
        state.update_over()
        return state, events

    def new_state(self, setup: Mapping[str, Any], seed: int) -> TentenState:
        """The position of a validated setup before the first offer."""
        size = setup["size"]
        board = 0
        for k, r in setup.get("filled", []):
            board |= cell_bit(size, k, r)
        sequence = setup.get("sequence")
        return TentenState(
            size,
            setup["offer"],
            board,
            None if sequence is None else [tuple(map(tuple, b)) for b in sequence],
            setup.get("max_rounds"),
            seed,
        )

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        setup = {"size": data["size"], "offer": data["offer"], "filled": data["filled"]}
        if data.get("sequence"):
            setup["sequence"] = data["sequence"]
        if data.get("max_rounds") is not None:
            setup["max_rounds"] = data["max_rounds"]
        state = self.new_state(self.validate_setup(setup), int(data["seed"]))
        if data.get("sequence") is not None and not data["sequence"]:
            state.sequence = []  # an exhausted sequence is not the catalogue
        state.counter = int(data["counter"])
        state.round = int(data["round"])
        state.points = int(data["points"])
        state.drops = int(data["drops"])
        state.offer = [to_block(NAME, f"on_offer[{i}]", b) for i, b in enumerate(data["on_offer"])]
        state.update_over()
        return state

    def render_move(self, move: Move) -> str:
        return f"block {move[0]} at column {move[1]}, row {move[2]}"


TentenState.game = GAME = Tenten()
