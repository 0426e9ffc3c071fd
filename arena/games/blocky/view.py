"""The terminal view of Blocky for `arena play`: the flattened board; moves name a block by its path or a cell."""

from __future__ import annotations

import re

from arena.games import Move, State
from arena.kit.terminal import View

from .rules import KINDS, SYMBOLS, BlockyState

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




VIEW = BlockyView
