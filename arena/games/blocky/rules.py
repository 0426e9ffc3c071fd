"""Blocky (CSC148): reshape a quad-tree of coloured blocks towards each seat's goal."""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

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
    need_setup_map,
    short_json,
)

NAME = game_of_module(__name__)  # the folder's name
VERSION = 1
MAX_DEPTH = 6
MAX_COLOURS = 36
MAX_TURNS = 10_000
SETUP_KEYS = {"max_depth", "colours", "turns", "board", "goals"}
GOAL_KINDS = ("blob", "perimeter")
REORDERS = ("rotate_cw", "rotate_ccw", "swap_h", "swap_v")
KINDS = REORDERS + ("smash", "paint", "combine", "pass")
PENALTY = {"smash": 3, "paint": 1, "combine": 1}
SYMBOLS = "0123456789abcdefghijklmnopqrstuvwxyz"

# A block: a colour (a leaf) or a list of four blocks [upper-right, upper-left, lower-left,
# lower-right]. Plain nested lists keep states msgpack/JSON data with no conversion.
Tree = int | list


# --- trees -------------------------------------------------------------------------------


def copy_tree(tree: Tree) -> Tree:
    """An independent copy of a tree."""
    return [copy_tree(child) for child in tree] if isinstance(tree, list) else tree


def rotate_cw(tree: Tree) -> Tree:
    """The tree turned clockwise: children [c1, c2, c3, c0], each turned as well."""
    if not isinstance(tree, list):
        return tree
    c0, c1, c2, c3 = (rotate_cw(child) for child in tree)
    return [c1, c2, c3, c0]


def rotate_ccw(tree: Tree) -> Tree:
    """The tree turned counter-clockwise: children [c3, c0, c1, c2], each turned as well."""
    if not isinstance(tree, list):
        return tree
    c0, c1, c2, c3 = (rotate_ccw(child) for child in tree)
    return [c3, c0, c1, c2]


def swap_h(tree: Tree) -> Tree:
    """Left and right halves exchanged: [c1, c0, c3, c2] (children keep their inside)."""
    c0, c1, c2, c3 = tree
    return [c1, c0, c3, c2]


def swap_v(tree: Tree) -> Tree:
    """Top and bottom halves exchanged: [c3, c2, c1, c0] (children keep their inside)."""
    c0, c1, c2, c3 = tree
    return [c3, c2, c1, c0]


REORDER = {"rotate_cw": rotate_cw, "rotate_ccw": rotate_ccw, "swap_h": swap_h, "swap_v": swap_v}


def majority(children: list) -> int | None:
    """The colour found strictly more often than every other among leaf children, or None."""
    ranked = Counter(children).most_common(2)
    if len(ranked) == 1 or ranked[0][1] > ranked[1][1]:
        return ranked[0][0]
    return None


def random_tree(rng: random.Random, level: int, max_depth: int, colours: int) -> Tree:
    """A random block at level: subdivided with probability exp(-0.25·level), else one colour."""
    if level < max_depth and rng.random() < math.exp(-0.25 * level):
        return [random_tree(rng, level + 1, max_depth, colours) for _ in range(4)]
    return rng.randrange(colours)


def tree_error(tree: Any, max_depth: int, colours: int, path: list[int], level: int) -> str | None:
    """Why tree (at path, level) is not a valid block, or None."""
    if isinstance(tree, (list, tuple)):
        if len(tree) != 4:
            return f"block at path {path} must be a colour or a list of four blocks"
        if level >= max_depth:
            return f"block at path {path} is subdivided deeper than max_depth {max_depth}"
        for i, child in enumerate(tree):
            error = tree_error(child, max_depth, colours, path + [i], level + 1)
            if error:
                return error
        return None
    if not is_int(tree) or not 0 <= tree < colours:
        return f"block at path {path} is {tree!r}, not a colour 0..{colours - 1} or four blocks"
    return None


def is_path(value: Any) -> bool:
    """True when value is a list of child indices 0..3."""
    return isinstance(value, (list, tuple)) and all(is_int(i) and 0 <= i < 4 for i in value)


def as_tree(tree: Any) -> Tree:
    """A validated tree with tuples turned into lists."""
    return [as_tree(child) for child in tree] if isinstance(tree, (list, tuple)) else tree


def flatten(tree: Tree, max_depth: int) -> list[list[int]]:
    """The unit-cell colours as columns: grid[x][y], x from the left, y from the top."""
    n = 1 << max_depth
    grid = [[0] * n for _ in range(n)]

    def paint(block: Tree, x: int, y: int, size: int) -> None:
        if isinstance(block, list):
            half = size // 2
            paint(block[0], x + half, y, half)
            paint(block[1], x, y, half)
            paint(block[2], x, y + half, half)
            paint(block[3], x + half, y + half, half)
        else:
            for column in grid[x : x + size]:
                column[y : y + size] = [block] * size

    paint(tree, 0, 0, n)
    return grid


def blob_score(grid: list[list[int]], colour: int) -> int:
    """The size of the largest orthogonally connected group of unit cells of colour."""
    n = len(grid)
    seen = [[False] * n for _ in range(n)]
    best = 0
    for x0 in range(n):
        for y0 in range(n):
            if seen[x0][y0] or grid[x0][y0] != colour:
                continue
            seen[x0][y0] = True
            todo, size = [(x0, y0)], 0
            while todo:  # iterative flood fill: deep boards would overflow a recursive one
                x, y = todo.pop()
                size += 1
                for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                    if 0 <= nx < n and 0 <= ny < n and not seen[nx][ny] and grid[nx][ny] == colour:
                        seen[nx][ny] = True
                        todo.append((nx, ny))
            best = max(best, size)
    return best


def perimeter_score(grid: list[list[int]], colour: int) -> int:
    """Unit cells of colour on the outer edge, once per side they touch (corners twice)."""
    n = len(grid)
    last = n - 1
    return sum(
        (grid[i][0] == colour) + (grid[i][last] == colour)
        + (grid[0][i] == colour) + (grid[last][i] == colour)
        for i in range(n)
    )


def goal_score(grid: list[list[int]], goal: Mapping[str, Any]) -> int:
    """The score of a goal {"kind", "colour"} on a flattened board."""
    scorer = blob_score if goal["kind"] == "blob" else perimeter_score
    return scorer(grid, goal["colour"])


def tree_text(tree: Tree) -> str:
    """A compact one-line form of a tree, e.g. [[0,1,1,3],2,1,3]."""
    if isinstance(tree, list):
        return "[" + ",".join(tree_text(child) for child in tree) + "]"
    return str(tree)


class BlockyState(State):
    """A Blocky position: the board tree, goals, penalties and the number of moves made."""

    def __init__(self, setup: Mapping[str, Any], players: int, seed: int) -> None:
        self.max_depth: int = setup["max_depth"]
        self.colours: int = setup["colours"]
        self.turns: int = setup["turns"]
        self.players = players
        self.board: Tree = copy_tree(setup["board"]) if "board" in setup else 0
        self.goals: list[dict[str, Any]] = [dict(g) for g in setup.get("goals", [])]
        self.penalties = [0] * players
        self.ply = 0
        self.seed = seed
        self.counter = 0  # chance draws made so far (see chance_rng)
        self.grid: list[list[int]] | None = None  # flatten cache, dropped on every change

    # --- rules --------------------------------------------------------------------------

    def draw(self) -> random.Random:
        """The generator of the next chance draw."""
        rng = chance_rng(self.seed, self.counter)
        self.counter += 1
        return rng

    def flat(self) -> list[list[int]]:
        """The flattened board (cached until the board changes); do not mutate it."""
        if self.grid is None:
            self.grid = flatten(self.board, self.max_depth)
        return self.grid

    def goal_score(self, seat: int) -> int:
        """The goal score of seat, without penalties."""
        return goal_score(self.flat(), self.goals[seat])

    def block_at(self, path: list[int]) -> Tree:
        """The block at path (which must exist)."""
        block = self.board
        for i in path:
            block = block[i]
        return block

    def set_block(self, path: list[int], tree: Tree) -> None:
        """Replace the block at path (which must exist) by tree."""
        if path:
            self.block_at(path[:-1])[path[-1]] = tree
        else:
            self.board = tree
        self.grid = None

    def to_move(self) -> int | None:
        return None if self.is_over() else self.ply % self.players

    def is_over(self) -> bool:
        return self.ply >= self.players * self.turns

    def legal_moves(self) -> list[Move]:
        if self.is_over():
            return []
        moves: list[Move] = []
        deepest = self.max_depth

        def walk(block: Tree, path: list[int], level: int) -> None:
            if isinstance(block, list):
                moves.extend([kind, list(path)] for kind in REORDERS)
                if level == deepest - 1 and majority(block) is not None:
                    moves.append(["combine", list(path)])
                for i, child in enumerate(block):
                    walk(child, path + [i], level + 1)
            elif level < deepest:
                moves.append(["smash", list(path)])
            else:
                moves.extend(["paint", list(path), c] for c in range(self.colours) if c != block)

        walk(self.board, [], 0)
        moves.append(["pass"])
        return moves

    def check(self, move: Move) -> tuple[str, list[int], Tree]:
        """Return (kind, path, block) of a legal move; raise IllegalMove otherwise."""
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if not isinstance(move, (list, tuple)) or not move or move[0] not in KINDS:
            raise IllegalMove(move, f"a move is [kind, path, ...], kind one of {', '.join(KINDS)}")
        kind = move[0]
        if kind == "pass":
            if len(move) != 1:
                raise IllegalMove(move, 'pass is ["pass"]')
            return kind, [], self.board
        if len(move) != (3 if kind == "paint" else 2):
            shape = '["paint", path, colour]' if kind == "paint" else f'["{kind}", path]'
            raise IllegalMove(move, f"a {kind} move is {shape}")
        path = move[1]
        if not is_path(path):
            raise IllegalMove(move, "a path is a list of child indices 0..3")
        block = self.board
        for depth, i in enumerate(path):
            if not isinstance(block, list):
                raise IllegalMove(move, f"no block at path {list(path[: depth + 1])}")
            block = block[i]
        level = len(path)
        if kind in REORDERS:
            if not isinstance(block, list):
                raise IllegalMove(move, "the block has no children")
        elif kind == "smash":
            if isinstance(block, list) or level >= self.max_depth:
                raise IllegalMove(move, "only a leaf that is not a unit cell can be smashed")
        elif kind == "paint":
            colour = move[2]
            if not is_int(colour) or not 0 <= colour < self.colours:
                raise IllegalMove(move, f"a colour is 0..{self.colours - 1}")
            if isinstance(block, list) or level != self.max_depth:
                raise IllegalMove(move, "only a unit cell can be painted")
            if block == colour:
                raise IllegalMove(move, "the cell already has that colour")
        else:  # combine
            if not isinstance(block, list) or level != self.max_depth - 1:
                raise IllegalMove(move, "only a block of four unit cells can be combined")
            if majority(block) is None:
                raise IllegalMove(move, "no colour occurs more often than every other")
        return kind, list(path), block

    def apply(self, move: Move) -> list[Event]:
        kind, path, block = self.check(move)
        seat = self.ply % self.players
        events: list[Event] = []
        if kind in REORDER:
            self.set_block(path, REORDER[kind](block))
        elif kind == "smash":
            rng = self.draw()
            level = len(path)
            new = [random_tree(rng, level + 1, self.max_depth, self.colours) for _ in range(4)]
            self.set_block(path, new)
            events.append([-1, {"smash": path, "block": copy_tree(new)}])
        elif kind == "paint":
            self.set_block(path, move[2])
        elif kind == "combine":
            self.set_block(path, majority(block))
        self.penalties[seat] += PENALTY.get(kind, 0)
        self.ply += 1
        return events

    def apply_event(self, payload: Any) -> None:
        if not isinstance(payload, Mapping):
            raise IllegalMove(payload, "a blocky event is a map")
        keys = set(payload)
        if keys == {"smash", "block"}:
            path = payload["smash"]
            if not is_path(path):
                raise IllegalMove(payload, "smash must be a path of child indices 0..3")
            parent = self.board
            for i in path[:-1]:
                if not isinstance(parent, list):
                    raise IllegalMove(payload, f"no block at path {list(path)}")
                parent = parent[i]
            if path and not isinstance(parent, list):
                raise IllegalMove(payload, f"no block at path {list(path)}")
            block = payload["block"]
            error = tree_error(block, self.max_depth, self.colours, list(path), len(path))
            if error:
                raise IllegalMove(payload, error)
            self.set_block(list(path), as_tree(block))
        elif keys and keys <= {"board", "goals"}:
            # The opening event of a match whose setup left the board or the goals to chance.
            if "board" in payload:
                error = tree_error(payload["board"], self.max_depth, self.colours, [], 0)
                if error:
                    raise IllegalMove(payload, error)
                self.set_block([], as_tree(payload["board"]))
            if "goals" in payload:
                try:
                    self.goals = check_goals(payload["goals"], self.players, self.colours)
                except SetupError as exc:
                    raise IllegalMove(payload, exc.detail) from exc
        else:
            raise IllegalMove(payload, 'a blocky event is {"smash": path, "block": tree}')

    def scores(self) -> list[float]:
        return [float(self.goal_score(s) - self.penalties[s]) for s in range(self.players)]

    # --- views --------------------------------------------------------------------------

    def render(self) -> str:
        grid = self.flat()
        n = len(grid)
        mover = self.to_move()
        status = "over" if mover is None else f"seat {mover} to move"
        lines = [f"blocky move {self.ply} of {self.players * self.turns}, {status}"]
        for y in range(n):
            lines.append(" ".join(SYMBOLS[grid[x][y]] for x in range(n)))
        lines.append(f"board {tree_text(self.board)}")
        for seat, goal in enumerate(self.goals):
            score = self.goal_score(seat)
            lines.append(
                f"seat {seat}: {goal['kind']} of colour {goal['colour']}: {score}"
                f" - penalty {self.penalties[seat]} = {score - self.penalties[seat]}"
            )
        return "\n".join(lines)

    def setup_data(self) -> dict[str, Any]:
        """The setup fields of this position."""
        return {
            "max_depth": self.max_depth,
            "colours": self.colours,
            "turns": self.turns,
            "board": copy_tree(self.board),
            "goals": [dict(g) for g in self.goals],
        }

    def to_data(self) -> dict[str, Any]:
        data = self.setup_data()
        data.update(
            players=self.players,
            penalties=list(self.penalties),
            ply=self.ply,
            seed=self.seed,
            counter=self.counter,
        )
        return data

    def to_setup(self) -> dict[str, Any]:
        # The moves left: at least one each, since a setup cannot hold a finished game.
        setup = self.setup_data()
        setup["turns"] = max(1, self.turns - self.ply // self.players)
        return setup

    def copy(self) -> BlockyState:
        other = BlockyState(self.setup_data(), self.players, self.seed)
        other.penalties, other.ply, other.counter = list(self.penalties), self.ply, self.counter
        other.grid = self.grid  # shared read-only until either side changes its board
        return other


def check_goals(value: Any, players: int, colours: int) -> list[dict[str, Any]]:
    """Validate a list of goals, one per seat; raise SetupError naming the bad one."""
    goals = need_list(NAME, "goals", value)
    if len(goals) != players:
        raise SetupError(NAME, f"goals must hold one goal per seat ({players}), got {len(goals)}")
    result = []
    for i, goal in enumerate(goals):
        if not isinstance(goal, Mapping) or set(goal) != {"kind", "colour"}:
            raise SetupError(NAME, f'goals[{i}] must be {{"kind": k, "colour": c}}, got {goal!r}')
        if goal["kind"] not in GOAL_KINDS:
            kind = goal["kind"]
            raise SetupError(NAME, f"goals[{i}].kind must be blob or perimeter, got {kind!r}")
        colour = need_int(NAME, f"goals[{i}].colour", goal["colour"], 0, colours - 1)
        result.append({"kind": goal["kind"], "colour": colour})
    return result


def random_goals(rng: random.Random, players: int, colours: int) -> list[dict[str, Any]]:
    """Goals of one random kind with distinct random colours, one per seat."""
    kind = rng.choice(GOAL_KINDS)
    return [{"kind": kind, "colour": c} for c in rng.sample(range(colours), players)]


class Blocky(Game):
    """Blocky for 1..4 players: rotate, swap, smash, paint and combine blocks of a quad-tree."""

    name = NAME
    version = VERSION
    min_players = 1
    max_players = 4
    description = "reshape a quad-tree of coloured blocks towards your blob or perimeter goal"
    chance = True  # a smash draws the new sub-blocks from the seed

    def describe_event(self, payload: Any) -> str:
        """A smash and the blocks it drew."""
        if isinstance(payload, dict) and "smash" in payload:
            return f"referee: smash at {payload['smash']} gives {short_json(payload.get('block'), 200)}"
        return super().describe_event(payload)

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(NAME, setup, SETUP_KEYS)
        max_depth = need_int(NAME, "max_depth", setup.get("max_depth", 3), 0, MAX_DEPTH)
        colours = need_int(NAME, "colours", setup.get("colours", 4), 2, MAX_COLOURS)
        turns = need_int(NAME, "turns", setup.get("turns", 10), 1, MAX_TURNS)
        result: dict[str, Any] = {"max_depth": max_depth, "colours": colours, "turns": turns}
        if "board" in setup:
            error = tree_error(setup["board"], max_depth, colours, [], 0)
            if error:
                raise SetupError(NAME, f"board: {error}")
            result["board"] = as_tree(setup["board"])
        if "goals" in setup:
            result["goals"] = check_goals(setup["goals"], players, colours)
        elif colours < players:
            raise SetupError(
                NAME, f"colours ({colours}) must be at least players ({players}) for random goals"
            )
        return result

    def random_setup(
        self, rng: random.Random, players: int = 2, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        setup = dict(partial or {})
        setup.setdefault("max_depth", 3)
        setup.setdefault("colours", 4)
        setup.setdefault("turns", rng.randint(5, 10))
        checked = self.validate_setup(setup, players)  # fields checked before they are used
        if "board" not in setup:
            setup["board"] = random_tree(rng, 0, checked["max_depth"], checked["colours"])
        if "goals" not in setup:
            setup["goals"] = random_goals(rng, players, checked["colours"])
        return self.validate_setup(setup, players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        setup = self.validate_setup(setup, players)
        state = BlockyState(setup, players, seed)
        # A setup without board or goals leaves them to chance: drawn from the match seed and
        # announced in an opening event, like every other chance outcome.
        opening: dict[str, Any] = {}
        if "board" not in setup:
            state.board = random_tree(state.draw(), 0, state.max_depth, state.colours)
            opening["board"] = copy_tree(state.board)
        if "goals" not in setup:
            state.goals = random_goals(state.draw(), players, state.colours)
            opening["goals"] = [dict(g) for g in state.goals]
        return state, [[-1, opening]] if opening else []

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        players = int(data["players"])
        setup = self.validate_setup({k: data[k] for k in SETUP_KEYS if k in data}, players)
        state = BlockyState(setup, players, int(data["seed"]))
        state.penalties = [int(p) for p in data["penalties"]]
        state.ply = int(data["ply"])
        state.counter = int(data["counter"])
        return state

    def render_move(self, move: Move) -> str:
        if isinstance(move, (list, tuple)) and move and move[0] == "paint" and len(move) == 3:
            return f"paint {move[1]} with colour {move[2]}"
        if isinstance(move, (list, tuple)):
            return " ".join(str(part) for part in move)
        return repr(move)


BlockyState.game = GAME = Blocky()
