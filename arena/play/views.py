"""Terminal views of tiles, tenten and blocky for `arena play` (see arena/play/ui.py)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from arena.games import Move, State
from arena.games.blocky import KINDS, SYMBOLS, BlockyState
from arena.games.tenten import TentenState, block_picture
from arena.games.tiles import COLOUR_NAMES, COLOURS, TilesState
from arena.match.result import MatchResult
from arena.play.ui import SEAT_STYLES, VIEWS, Command, Terminal, View, numbers

# --- tiles -----------------------------------------------------------------------------

TILE_STYLES = {"g": ("bold", "yellow"), "b": ("bold", "blue")}
COLOUR_WORDS = {"g": "g", "y": "g", "yellow": "g", "geel": "g", "b": "b", "blue": "b", "blauw": "b"}


class TilesView(View):
    """Tegelspel: plates and both players' rows; a move is a plate and a colour."""

    game_name = "tiles"

    def tiles(self, yellow: int, blue: int, width: int) -> str:
        """A row of tiles, coloured, padded with dots to width."""
        cells = ["g"] * yellow + ["b"] * blue + ["."] * (width - yellow - blue)
        return " ".join(self.term.paint(c, *TILE_STYLES.get(c, ("dim",))) for c in cells)

    def intro(self, state: State) -> str:
        return ("Tiles: a move takes every tile of one colour from one plate (numbered from 0) and lays\n"
                "them in one of your rows: a row that is empty or holds that colour only, with room for all.\n"
                "Among those the fullest row is used (the lowest on a tie); the plate is refilled from the pot.\n"
                "A full row scores; the game ends when a player has filled every row or the mover cannot move.\n"
                "Type the plate and the colour: 0 g (yellow) or 2 b (blue).")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, TilesState)  # narrowing: this view only gets tiles states
        pot = "".join(self.term.paint(c, *TILE_STYLES[c]) for c in state.pot[:40])
        more = "…" if len(state.pot) > 40 else ""
        lines = [f"pot: {pot or '-'}{more} ({len(state.pot)} left)"]
        lines.append("plates: " + "   ".join(
            f"{p}: " + self.tiles(g, b, state.size) for p, (g, b) in enumerate(state.plates)))
        heads = [f"{self.names[s]} ({state.full_rows(s)} full)" for s in (0, 1)]
        width = max(2 * state.row_len + 6, len(heads[0]) + 3)
        lines.append("        " + "".join(self.term.paint(f"{h:<{width}}", "bold", SEAT_STYLES[s])
                                           for s, h in enumerate(heads)).rstrip())
        for j in range(len(state.boards[0])):
            pad = " " * (width - (2 * state.row_len - 1))  # the tiles are 2 * row_len - 1 characters wide
            rows = [self.tiles(state.boards[s][j][0], state.boards[s][j][1], state.row_len) + pad for s in (0, 1)]
            lines.append(self.term.paint(f"row {j:<3}", "dim") + " " + "".join(rows).rstrip())
        return "\n".join(lines)

    def ask_move(self, state: State) -> Move | Command:
        assert isinstance(state, TilesState)
        while True:
            text = self.read("Your move (plate colour, e.g. 0 g): ")
            if isinstance(text, Command):
                return text
            move, reason = self.parse(text, state)
            if reason is None:
                return move
            legal = ", ".join(f"{p} {c}" for p, c in state.legal_moves())
            self.refuse(f"{reason}. Moves now: {legal}.")

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        found = re.fullmatch(r"\s*(\d+)\s*,?\s*([a-z]+)\s*|\s*([a-z]+)\s*,?\s*(\d+)\s*", text.lower())
        if found is None:
            return None, "Type a plate number and a colour (g or b)"
        plate, word = (found.group(1), found.group(2)) if found.group(1) else (found.group(4), found.group(3))
        colour = COLOUR_WORDS.get(word)
        if colour is None:
            return None, f"{word!r} is not a colour (g = yellow, b = blue)"
        move = [int(plate), colour]
        reason = self.illegal(state, move)
        return (move, None) if reason is None else (None, reason[:1].upper() + reason[1:])

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(before, TilesState)
        if seat in self.humans:
            return None
        plate, colour = move
        count = before.plates[plate][COLOURS.index(colour)]
        row = before.target_row(seat, COLOURS.index(colour), count)
        return (f"{self.name(seat)} took {count} {COLOUR_NAMES[colour]} tile{'s' * (count != 1)} "
                f"from plate {plate} into row {row}.")


# --- tenten ----------------------------------------------------------------------------


class TentenView(View):
    """1010!: the board with columns and rows from 1 (rows from the bottom) and the offer."""

    game_name = "tenten"

    def intro(self, state: State) -> str:
        assert isinstance(state, TentenState)
        return (f"1010! on a {state.size} x {state.size} board: columns 1..{state.size} from the left, "
                f"rows 1..{state.size} from the bottom.\n"
                "Drop the blocks on offer one at a time, in any order; full rows and columns empty out.\n"
                "A point per dot, and 10, 30, 60, ... for 1, 2, 3, ... lines emptied at once.\n"
                "Type the block number, then the column and row where its anchor goes: 0 3 4.\n"
                "The anchor is @ (a dot) or + (not a dot) in the block's picture.")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, TentenState)
        size = state.size
        width = len(str(size)) + 1
        lines = [f"round {state.round}, score {self.term.paint(str(state.points), 'bold')}"
                 + (f", {len(state.sequence)} blocks to come" if state.sequence is not None else "")]
        for r in range(size, 0, -1):
            cells = "".join(self.term.paint(f"{'#' if state.is_filled(k, r) else '.':>{width}}",
                                            "cyan" if state.is_filled(k, r) else "dim")
                            for k in range(1, size + 1))
            lines.append(self.term.paint(f"{r:>{width - 1}}", "dim") + cells)
        lines.append(self.term.paint(" " * (width - 1) + "".join(f"{k:>{width}}" for k in range(1, size + 1)), "dim"))
        if state.offer:
            pictures = [block_picture(block) for block in state.offer]
            height = max(len(p) for p in pictures)
            widths = [max(len(p[0]), 3) for p in pictures]
            padded = [[""] * (height - len(p)) + p for p in pictures]
            lines.append("offer: " + "   ".join(f"{i:<{w}}" for i, w in enumerate(widths)).rstrip())
            for row in range(height):
                lines.append("       " + "   ".join(
                    self.term.paint(f"{p[row]:<{w}}", "bold", "cyan") for p, w in zip(padded, widths)).rstrip())
        return "\n".join(lines)

    prompt = "Drop (block column row): "

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        assert isinstance(state, TentenState)
        values = numbers(text)
        if values is not None and len(values) == 2 and len(state.offer) == 1:
            values = [0, *values]  # one block on offer: its number may be left out
        if values is None or len(values) != 3:
            return None, "Type three numbers: the block, the column and the row (e.g. 0 3 4)."
        reason = self.illegal(state, values)
        return (values, None) if reason is None else (None, reason[:1].upper() + reason[1:] + ".")

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        assert isinstance(before, TentenState) and isinstance(after, TentenState)
        gained = after.points - before.points
        who = "You" if seat in self.humans else self.name(seat)
        return f"{who} dropped block {move[0]} at column {move[1]}, row {move[2]}: +{gained} points."

    def outcome(self, result: MatchResult, state: State) -> list[str]:
        assert isinstance(state, TentenState)
        if result.offender is not None:
            return [f"You stopped. Final score {result.scores[0]:g}."]
        why = "No block on offer fits any more" if state.offer else "No more blocks: the last round is over"
        return [f"{why}. Final score {result.scores[0]:g}."]


# --- blocky ----------------------------------------------------------------------------

BLOCKY_ALIASES = {"cw": "rotate_cw", "ccw": "rotate_ccw", "h": "swap_h", "v": "swap_v", "s": "smash",
                  "p": "paint", "c": "combine", "pass": "pass", **{k: k for k in KINDS}}
BLOCKY_BG = ("bg_red", "bg_green", "bg_yellow", "bg_blue", "bg_magenta", "bg_cyan", "bg_white")


def cell_path(x: int, y: int, level: int, max_depth: int) -> list[int]:
    """The path of the level-`level` block holding unit cell (x, y) (x from the left, y from the top)."""
    path, size, x0, y0 = [], 2 ** max_depth, 0, 0
    for _ in range(level):
        half = size // 2
        right, lower = x >= x0 + half, y >= y0 + half
        path.append({(True, False): 0, (False, False): 1, (False, True): 2, (True, True): 3}[(right, lower)])
        x0, y0, size = x0 + half * right, y0 + half * lower, half
    return path


class BlockyView(View):
    """Blocky: the flattened board with coordinates; moves name a block by its path."""

    game_name = "blocky"

    def intro(self, state: State) -> str:
        assert isinstance(state, BlockyState)
        n = 2 ** state.max_depth
        return (f"Blocky: the board is a quad-tree, {n} x {n} unit cells (x 0..{n - 1} from the left, "
                f"y 0..{n - 1} from the top), colours 0..{state.colours - 1}.\n"
                "A block is named by its path of children from the top: 0 upper-right, 1 upper-left, "
                "2 lower-left, 3 lower-right;\n"
                "- is the whole board, 03 the lower-right child of the upper-right quarter. Or name it by a "
                "cell: x,y is the smallest block holding it, x,y:L its block at level L.\n"
                "Moves: cw PATH, ccw PATH (rotate), h PATH, v PATH (swap), smash PATH (penalty 3), "
                "paint CELL COLOUR (1), combine PATH (1), pass.")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, BlockyState)
        grid = state.flat()
        n = len(grid)
        lines = [f"move {state.ply + 1 if not state.is_over() else state.ply} of {state.players * state.turns}",
                 self.term.paint("   " + " ".join(f"{x:>2}" for x in range(n)), "dim")]
        for y in range(n):
            cells = []
            for x in range(n):
                colour = grid[x][y]
                cells.append(self.term.paint(f"{SYMBOLS[colour]:>2}", "bold", BLOCKY_BG[colour % len(BLOCKY_BG)]))
            lines.append(self.term.paint(f"{y:>2}", "dim") + " " + " ".join(cells))
        for seat, goal in enumerate(state.goals):
            score = state.goal_score(seat)
            lines.append(f"{self.name(seat)}: {goal['kind']} of colour {goal['colour']}: {score} "
                         f"- penalty {state.penalties[seat]} = {score - state.penalties[seat]}")
        return "\n".join(lines)

    prompt = "Your move (e.g. cw -, smash 1, paint 3,4 2, pass): "

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        assert isinstance(state, BlockyState)
        words = text.split()
        if not words:
            return None, "Type a move (? for help)."
        kind = BLOCKY_ALIASES.get(words[0].lower())
        if kind is None:
            return None, f"{words[0]!r} is not a move: cw, ccw, h, v, smash, paint, combine or pass."
        if kind == "pass":
            move: list = ["pass"]
        else:
            want = 3 if kind == "paint" else 2
            if len(words) != want:
                shape = "paint CELL COLOUR" if kind == "paint" else f"{words[0]} PATH"
                return None, f"Type {shape}."
            path = self.path(words[1], state)
            if isinstance(path, str):
                return None, path
            move = [kind, path]
            if kind == "paint":
                if not re.fullmatch(r"\d+", words[2]):
                    return None, f"A colour is a number 0..{state.colours - 1}."
                move.append(int(words[2]))
        reason = self.illegal(state, move)
        return (move, None) if reason is None else (None, reason[:1].upper() + reason[1:] + ".")

    def path(self, word: str, state: BlockyState) -> list[int] | str:
        """A path from `-`, digits 0-3, `x,y` (the smallest block holding that cell) or `x,y:L`.

        Returns the reason instead when the word names no block.
        """
        n = 2 ** state.max_depth
        if word in ("-", "top", "."):
            return []
        if re.fullmatch(r"[0-3]+", word):
            return [int(c) for c in word]
        found = re.fullmatch(r"(\d+),(\d+)(?::(\d+))?", word)
        if found is None:
            return f"{word!r} names no block: a path like 03, - for the whole board, or x,y or x,y:level."
        x, y = int(found.group(1)), int(found.group(2))
        if not (0 <= x < n and 0 <= y < n):
            return f"Cell {x},{y} is off the board (0..{n - 1})."
        if found.group(3) is None:
            return self.smallest_block(state, cell_path(x, y, state.max_depth, state.max_depth))
        at = int(found.group(3))
        if at > state.max_depth:
            return f"Level {at} is deeper than the deepest level, {state.max_depth}."
        return cell_path(x, y, at, state.max_depth)

    @staticmethod
    def smallest_block(state: BlockyState, path: list[int]) -> list[int]:
        """The longest prefix of path that names a block of the board (the leaf holding the cell)."""
        block, depth = state.board, 0
        while depth < len(path) and isinstance(block, list):
            block = block[path[depth]]
            depth += 1
        return path[:depth]


def view_for(game: str, term: Terminal, names: Sequence[str], humans: Sequence[int]) -> View:
    """The view registered for a game (the rules engine's own text rendering for a game without one)."""
    cls = VIEWS.get(game)
    if cls is None:
        cls = type(f"{game.title()}View", (View,), {"game_name": game})
        del VIEWS[game]  # a stand-in, not the game's own view
    return cls(term, names, humans)
