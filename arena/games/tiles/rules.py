"""Tiles (Tegelspel): take all tiles of one colour from a plate and lay them in one row.

Setup keys: `pot` (string of `g`/`b`), `plates` (M, 1..5), `plate_size` (N, 1..5), `rows`
(K, 1..10), `row_len` (L, 1..6), `boards` (per seat K rows `[yellow, blue]`), `to_move`
(0/1, default 0) and one extension, `plate_tiles` (`[[yellow, blue]] * M`): when given, the
plates hold exactly that and `pot` is what is left in the pot. Without it the plates are
filled from the front of the pot, as in the seed. The extension exists because a position
in play (an empty pot with half-empty plates) cannot always be written as a pot alone;
`to_setup` only uses it then.

Rows, plates and seats are numbered from 0 in moves, setups and messages.
The assignment's text format (`.txt`, `.tiles`) is read by `parse_setup_file` and written by
`setup_to_text`; `distinct_moves` is the assignment's `bepaalVerschillendeZetten`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
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
    need_int,
    need_list,
    need_pair,
    need_setup_map,
)
from protocol.messages import Reason

NAME = game_of_module(__name__)  # the folder's name
VERSION = 1
COLOURS = ("g", "b")  # index 0 = yellow (geel), 1 = blue (blauw), as in [yellow, blue]
COLOUR_NAMES = {"g": "yellow", "b": "blue"}
LIMITS = {"plates": (1, 5), "plate_size": (1, 5), "rows": (1, 10), "row_len": (1, 6)}
SETUP_KEYS = {"pot", "plates", "plate_size", "rows", "row_len", "boards", "to_move", "plate_tiles"}
# Options of the random-setup generator: "min_<key>"/"max_<key>" for the four sizes,
# min_pot/max_pot (pot length) and fill (chance that a starting row already holds tiles).
# The default sizes give real games (RULES.md quotes their lengths, bench/tiles_lengths.py
# measures them): at least 4 rows of 3 or more, and a plate holds fewer tiles than a row.
DEFAULT_RANGES = {"plates": (2, 4), "plate_size": (2, 4), "rows": (4, 6), "row_len": (3, 6)}
OPTION_KEYS = {f"{b}_{k}" for k in (*DEFAULT_RANGES, "pot") for b in ("min", "max")} | {"fill"}
MAX_POT = 10_000  # a generous bound so that a setup stays a small message
DRAWS = 100  # tries at a position with a legal first move (only rows begun by `fill` can need more than one)


def fill_plates(pot: str, plates: int, size: int) -> tuple[list[list[int]], str]:
    """Plate i gets the next `size` tiles of the pot, as far as it goes; returns (plates, rest)."""
    contents = []
    for i in range(plates):
        chunk = pot[i * size:(i + 1) * size]
        contents.append([chunk.count("g"), chunk.count("b")])
    return contents, pot[plates * size:]


def fold_plates(plate_tiles: list[list[int]], pot: str, size: int) -> str | None:
    """A pot that fills the plates with plate_tiles and leaves pot, or None if there is none."""
    total = sum(g + b for g, b in plate_tiles) + len(pot)
    for i, (g, b) in enumerate(plate_tiles):
        if g + b != min(size, max(0, total - i * size)):
            return None
    return "".join("g" * g + "b" * b for g, b in plate_tiles) + pot


class TilesState(State):
    """A Tiles position: pot remainder, per-plate [yellow, blue] counts, per-seat rows."""

    __slots__ = ("boards", "mover", "plates", "ply", "pot", "row_len", "size")

    def __init__(
        self,
        size: int,
        row_len: int,
        pot: str,
        plates: list[list[int]],
        boards: list[list[list[int]]],
        mover: int,
        ply: int = 0,
    ) -> None:
        # Plates and rows are [yellow, blue] counts: the order of tiles never matters.
        self.size = size
        self.row_len = row_len
        self.pot = pot
        self.plates = plates
        self.boards = boards
        self.mover = mover
        self.ply = ply

    def full_rows(self, seat: int) -> int:
        """How many rows of seat's board are full."""
        return sum(1 for y, b in self.boards[seat] if y + b == self.row_len)

    def target_row(self, seat: int, colour: int, count: int) -> int:
        """The row where count tiles of colour go on seat's board (fullest fitting, lowest), or -1."""
        best, best_fill = -1, -1
        limit = self.row_len - count
        for j, row in enumerate(self.boards[seat]):
            fill = row[colour]
            # A row fits when it holds no tile of the other colour and has room for all.
            if not row[1 - colour] and fill <= limit and fill > best_fill:
                best, best_fill = j, fill
        return best

    def _all_full(self) -> bool:
        k = len(self.boards[0])
        return self.full_rows(0) == k or self.full_rows(1) == k

    def legal_moves(self) -> list[Move]:
        if self._all_full():
            return []
        return self._moves(self.mover)

    def _moves(self, seat: int) -> list[Move]:
        moves = []
        for p, plate in enumerate(self.plates):
            for c in (0, 1):
                if plate[c] and self.target_row(seat, c, plate[c]) >= 0:
                    moves.append([p, COLOURS[c]])
        return moves

    def to_move(self) -> int | None:
        return None if self.is_over() else self.mover

    def apply(self, move: Move) -> list[Event]:
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if (
            not isinstance(move, (list, tuple))
            or len(move) != 2
            or not is_int(move[0])
            or move[1] not in COLOURS
        ):
            raise IllegalMove(move, 'a move is [plate, "g" | "b"]')
        p, c = move[0], COLOURS.index(move[1])
        if not 0 <= p < len(self.plates):
            raise IllegalMove(move, f"there are plates 0..{len(self.plates) - 1}")
        count = self.plates[p][c]
        if not count:
            raise IllegalMove(move, f"plate {p} holds no {COLOUR_NAMES[move[1]]} tile")
        row = self.target_row(self.mover, c, count)
        if row < 0:
            raise IllegalMove(move, f"no row takes {count} {COLOUR_NAMES[move[1]]} tile(s)")
        self.boards[self.mover][row][c] += count
        refill, self.pot = self.pot[:count], self.pot[count:]
        plate = self.plates[p]
        plate[c] = 0
        plate[0] += refill.count("g")
        plate[1] += len(refill) - refill.count("g")
        self.mover ^= 1
        self.ply += 1
        return []

    def is_over(self) -> bool:
        return self._all_full() or not self._moves(self.mover)

    def end_reason(self) -> Reason:
        return Reason.NORMAL if self._all_full() else Reason.BLOCKED

    def scores(self) -> list[float]:
        full = self.full_rows(0), self.full_rows(1)
        return [float(full[0] - full[1]), float(full[1] - full[0])]

    def render(self) -> str:
        lines = [f"pot: {self.pot or '-'} ({len(self.pot)} left)"]
        lines.append(
            "plates: "
            + "  ".join(
                f"{p}:[" + ("g" * g + "b" * b).ljust(self.size, ".") + "]"
                for p, (g, b) in enumerate(self.plates)
            )
        )
        for seat in (0, 1):
            lines.append(f"seat {seat} ({self.full_rows(seat)} full):")
            for j, (g, b) in enumerate(self.boards[seat]):
                lines.append(f"  {j}: " + ("g" * g + "b" * b).ljust(self.row_len, "."))
        if self.is_over():
            lines.append(f"game over ({self.end_reason()}), scores {self.scores()}")
        else:
            lines.append(f"to move: seat {self.mover}")
        return "\n".join(lines)

    def to_setup(self) -> dict[str, Any]:
        setup: dict[str, Any] = {
            "pot": self.pot,
            "plates": len(self.plates),
            "plate_size": self.size,
            "rows": len(self.boards[0]),
            "row_len": self.row_len,
            "boards": [[list(row) for row in board] for board in self.boards],
            "to_move": self.mover,
        }
        folded = fold_plates(self.plates, self.pot, self.size)
        if folded is None:
            setup["plate_tiles"] = [list(plate) for plate in self.plates]
        else:
            setup["pot"] = folded
        return setup

    def to_data(self) -> dict[str, Any]:
        data = self.to_setup()
        data["pot"] = self.pot
        data["plate_tiles"] = [list(plate) for plate in self.plates]
        data["ply"] = self.ply
        return data

    def copy(self) -> TilesState:
        return TilesState(
            self.size,
            self.row_len,
            self.pot,
            [list(plate) for plate in self.plates],
            [[list(row) for row in board] for board in self.boards],
            self.mover,
            self.ply,
        )


def distinct_moves(state: TilesState) -> list[Move]:
    """The legal moves, keeping only the lowest plate of each (colour, tile count) class."""
    seen: set[tuple[str, int]] = set()
    moves = []
    for p, colour in state.legal_moves():
        key = (colour, state.plates[p][COLOURS.index(colour)])
        if key not in seen:
            seen.add(key)
            moves.append([p, colour])
    return moves


class Tiles(Game):
    """The tile game of seed 002: fill more rows of yellow or blue tiles than the opponent."""

    name = NAME
    version = VERSION
    min_players = 2
    max_players = 2
    description = "take one colour from a plate into a row; most full rows wins"
    chance = True  # the pot is drawn from the seed
    exact_setups = True

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(NAME, setup, SETUP_KEYS,
                               ("pot", "plates", "plate_size", "rows", "row_len", "boards"))
        pot = check_pot(setup["pot"], "pot")
        m, n, k, length = (need_int(NAME, key, setup[key], *LIMITS[key]) for key in LIMITS)
        boards = need_list(NAME, "boards", setup["boards"])
        if len(boards) != 2:
            raise SetupError(NAME, f"boards must hold 2 boards (one per seat), got {len(boards)}")
        result_boards = []
        for seat, board in enumerate(boards):
            board = need_list(NAME, f"boards[{seat}]", board)
            if len(board) != k:
                raise SetupError(NAME, f"boards[{seat}] must hold {k} rows, got {len(board)}")
            result_boards.append(
                [check_row(need_pair(NAME, f"boards[{seat}][{j}]", row), seat, j, length)
                 for j, row in enumerate(board)]
            )
        to_move = need_int(NAME, "to_move", setup.get("to_move", 0), 0, 1)
        result: dict[str, Any] = {
            "pot": pot, "plates": m, "plate_size": n, "rows": k, "row_len": length,
            "boards": result_boards, "to_move": to_move,
        }
        if "plate_tiles" in setup:
            plates = need_list(NAME, "plate_tiles", setup["plate_tiles"])
            if len(plates) != m:
                raise SetupError(NAME, f"plate_tiles must hold {m} plates, got {len(plates)}")
            result["plate_tiles"] = []
            for p, plate in enumerate(plates):
                g, b = need_pair(NAME, f"plate_tiles[{p}]", plate)
                if g < 0 or b < 0 or g + b > n:
                    raise SetupError(
                        NAME, f"plate_tiles[{p}] = [{g}, {b}]: a plate holds 0..{n} tiles"
                    )
                result["plate_tiles"].append([g, b])
        return result

    def random_setup(
        self, rng: random.Random, players: int = 2, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Complete partial; options min_/max_ plates, plate_size, rows, row_len, pot and fill.

        What the generator draws gives a real game: a plate holds fewer tiles than a row where the
        ranges allow, the pot fills the plates and one to two boards' rows (min_pot/max_pot
        otherwise), and the position has a legal first move wherever the partial setup leaves room.
        """
        setup = dict(partial or {})
        options = {key: setup.pop(key) for key in OPTION_KEYS if key in setup}
        fill = options.get("fill", 0.0)
        if not isinstance(fill, (int, float)) or isinstance(fill, bool) or not 0 <= fill <= 1:
            raise SetupError(NAME, f"fill must be a number in [0, 1], got {fill!r}")
        boards = setup.get("boards")
        if isinstance(boards, list) and boards and isinstance(boards[0], list):
            setup.setdefault("rows", len(boards[0]))
        for key in LIMITS:
            if key in setup:
                need_int(NAME, key, setup[key], *LIMITS[key])
        ranges = {key: _option_range(options, key, lo, hi) for key, (lo, hi) in DEFAULT_RANGES.items()}
        drawn: dict[str, Any] = {}
        for _ in range(DRAWS):
            drawn = self._draw(rng, setup, ranges, options, fill)
            fixed = setup.keys() >= {"pot", *LIMITS, "boards"}  # nothing to draw again
            if fixed or self.new_state(self.validate_setup(drawn)).legal_moves():
                break
        drawn.setdefault("to_move", 0)
        return self.validate_setup(drawn, players)

    def _draw(self, rng: random.Random, setup: dict[str, Any], ranges: dict[str, tuple[int, int]],
              options: dict[str, Any], fill: float) -> dict[str, Any]:
        """The partial setup with whatever it leaves open drawn from rng."""
        out = dict(setup)
        for key in ("rows", "row_len", "plates"):
            if key not in out:
                lo, hi = ranges[key]
                if key == "row_len" and "plate_size" in out:  # room for one colour of a whole plate
                    lo = max(lo, min(out["plate_size"] + 1, hi))
                out[key] = rng.randint(lo, hi)
        if "plate_size" not in out:
            lo, hi = ranges["plate_size"]
            out["plate_size"] = rng.randint(lo, min(hi, max(lo, out["row_len"] - 1)))
        if "pot" not in out:
            plates, board = out["plates"] * out["plate_size"], out["rows"] * out["row_len"]
            lo, hi = _pot_range(options, plates + board, plates + 2 * board)
            out["pot"] = "".join(rng.choice(COLOURS) for _ in range(rng.randint(lo, hi)))
        if "boards" not in out:
            out["boards"] = [[self._random_row(rng, out["row_len"], fill) for _ in range(out["rows"])] for _ in "01"]
        return out

    @staticmethod
    def _random_row(rng: random.Random, length: int, fill: float) -> list[int]:
        """An empty row, or with chance fill a row of one colour that is not yet full."""
        if length < 2 or rng.random() >= fill:
            return [0, 0]
        row = [0, 0]
        row[rng.randrange(2)] = rng.randint(1, length - 1)
        return row

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        return self.new_state(self.validate_setup(setup, players)), []

    def new_state(self, setup: Mapping[str, Any]) -> TilesState:
        """The position of a validated setup."""
        if "plate_tiles" in setup:
            plates, pot = [list(p) for p in setup["plate_tiles"]], setup["pot"]
        else:
            plates, pot = fill_plates(setup["pot"], setup["plates"], setup["plate_size"])
        boards = [[list(row) for row in board] for board in setup["boards"]]
        return TilesState(setup["plate_size"], setup["row_len"], pot, plates, boards, setup["to_move"])

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        state = self.new_state(self.validate_setup({k: data[k] for k in SETUP_KEYS if k in data}))
        state.ply = need_int(NAME, "ply", data.get("ply", 0), 0)
        return state

    def parse_setup_file(self, data: bytes, filename: str) -> dict[str, Any] | None:
        if filename.lower().rpartition(".")[2] not in ("txt", "tiles"):
            return None
        return setup_from_text(data)

    def render_move(self, move: Move) -> str:
        if isinstance(move, (list, tuple)) and len(move) == 2 and move[1] in COLOUR_NAMES:
            return f"{COLOUR_NAMES[move[1]]} ({move[1]}) from plate {move[0]}"
        return repr(move)


def _option_range(options: Mapping[str, Any], key: str, lo: int, hi: int) -> tuple[int, int]:
    """The range of one size from its min_/max_ options, each within the size's limits (defaults lo..hi)."""
    floor, ceiling = LIMITS[key]
    lo = need_int(NAME, f"min_{key}", options.get(f"min_{key}", lo), floor, ceiling)
    return lo, need_int(NAME, f"max_{key}", options.get(f"max_{key}", max(lo, hi)), lo, ceiling)


def _pot_range(options: Mapping[str, Any], lo: int, hi: int) -> tuple[int, int]:
    """The pot's length range: min_pot/max_pot, else lo..hi (one of them given: the other moves to meet it)."""
    given_lo, given_hi = options.get("min_pot"), options.get("max_pot")
    if given_hi is not None:
        hi = need_int(NAME, "max_pot", given_hi, 1, MAX_POT)
        lo = min(lo, hi)
    if given_lo is not None:
        lo = need_int(NAME, "min_pot", given_lo, 1, hi if given_hi is not None else MAX_POT)
    return lo, max(lo, hi)


def check_pot(pot: Any, where: str) -> str:
    """Return pot if it is a string of g/b letters; else raise SetupError naming where."""
    if not isinstance(pot, str):
        raise SetupError(NAME, f"{where} must be a string of g and b, got {type(pot).__name__}")
    if len(pot) > MAX_POT:
        raise SetupError(NAME, f"{where} holds {len(pot)} tiles, at most {MAX_POT} allowed")
    for i, letter in enumerate(pot):
        if letter not in COLOURS:
            raise SetupError(
                NAME, f"{where}: letter {i + 1} is {letter!r}, only 'g' and 'b' are tiles"
            )
    return pot


def check_row(row: tuple[int, int], seat: int, j: int, length: int) -> list[int]:
    """Return a board row [yellow, blue] as a list if it is a possible row; else SetupError."""
    y, b = row
    if y < 0 or b < 0:
        raise SetupError(NAME, f"row {j} of player {seat} has a negative count ({y} {b})")
    if y and b:
        raise SetupError(NAME, f"row {j} of player {seat} holds both colours ({y} yellow, {b} blue)")
    if y + b > length:
        raise SetupError(NAME, f"row {j} of player {seat} holds {y + b} tiles, more than L = {length}")
    return [y, b]


# --- the assignment's text format ---------------------------------------------------------------


def _ranged(number: int, key: str, value: int) -> int:
    """A size of the text format within its limits, else a SetupError naming its line and letter."""
    lo, hi = LIMITS[key]
    if not lo <= value <= hi:
        symbol = {"plates": "M", "plate_size": "N", "rows": "K", "row_len": "L"}[key]
        raise SetupError(NAME, f"line {number}: {symbol} ({key}) must be in {lo}..{hi}, got {value}")
    return value


def setup_from_text(data: bytes) -> dict[str, Any]:
    """Parse the assignment's text format; every error names the line it is on."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(NAME, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    # Blank lines carry nothing in the assignment's format (it reads with `fin >>`); skip them.
    lines = [(n, line.strip()) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    cursor = iter(lines)
    last = [0]

    def next_line(what: str) -> tuple[int, str]:
        for number, line in cursor:
            last[0] = number
            return number, line
        raise SetupError(NAME, f"missing line: expected {what} after line {last[0]}")

    def ints(what: str, count: int) -> tuple[int, list[int]]:
        number, line = next_line(what)
        fields = line.split()
        try:
            if len(fields) != count:
                raise ValueError
            return number, [int(f) for f in fields]
        except ValueError:
            raise SetupError(
                NAME, f"line {number}: expected {what} ({count} integers), got {line!r}"
            ) from None

    number, pot = next_line("the pot")
    try:
        check_pot(pot, "the pot")
    except SetupError as exc:
        raise SetupError(NAME, f"line {number}: {exc.detail}") from None
    number, (m, n) = ints("M N (plates, tiles per plate)", 2)
    m, n = _ranged(number, "plates", m), _ranged(number, "plate_size", n)
    number, (k, length) = ints("K L (rows, cells per row)", 2)
    k, length = _ranged(number, "rows", k), _ranged(number, "row_len", length)
    boards: list[list[list[int]]] = [[], []]
    for seat in (0, 1):
        for j in range(k):
            number, row = ints(f"row {j} of player {seat} (yellow blue)", 2)
            try:
                boards[seat].append(check_row((row[0], row[1]), seat, j, length))
            except SetupError as exc:
                raise SetupError(NAME, f"line {number}: {exc.detail}") from None
    number, (to_move,) = ints("the player to move", 1)
    if to_move not in (0, 1):
        raise SetupError(NAME, f"line {number}: the player to move must be 0 or 1, got {to_move}")
    for number, line in cursor:
        raise SetupError(NAME, f"line {number}: unexpected content after the player to move: {line!r}")
    setup = {"pot": pot, "plates": m, "plate_size": n, "rows": k, "row_len": length,
             "boards": boards, "to_move": to_move}
    return GAME.validate_setup(setup)


def setup_to_text(setup: Mapping[str, Any]) -> str:
    """The setup in the assignment's text format; refuses plates that no pot can produce."""
    valid = GAME.validate_setup(setup)
    pot = valid["pot"]
    if "plate_tiles" in valid:
        folded = fold_plates(valid["plate_tiles"], pot, valid["plate_size"])
        if folded is None:
            raise SetupError(NAME, "plate_tiles: these plates cannot be written in the text format")
        pot = folded
    if not pot:
        raise SetupError(NAME, "pot: the text format needs a non-empty pot")
    lines = [pot, f"{valid['plates']} {valid['plate_size']}", f"{valid['rows']} {valid['row_len']}"]
    lines += [f"{y} {b}" for board in valid["boards"] for y, b in board]
    lines.append(str(valid["to_move"]))
    return "\n".join(lines) + "\n"


TilesState.game = GAME = Tiles()
