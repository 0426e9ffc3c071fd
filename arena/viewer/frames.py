"""Per-ply positions of a match log as plain data a page can draw without knowing any rules.

Every game's view is computed here, in Python, from State.to_data(): the page's script
only draws what a frame says, so the pictures cannot drift from the rules engines.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from arena.games import Game, GameError, State, get_game
from arena.logs.matchlog import MatchLog
from arena.logs.replay import describe_event, positions, verify
from arena.outcomes import public_detail

View = dict[str, Any]
ARROW_STEPS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))  # protocol/SPEC.md §8.1
RESIGN = 255


def blocking_view(data: Mapping[str, Any], picks: dict[tuple[int, int], int], last: list[int] | None) -> View:
    """Blocking: the grid row-major as one string: '-' free, 'X' blocked, a digit = picked by that seat."""
    rows, cols = data["rows"], data["cols"]
    grid = [["-"] * cols for _ in range(rows)]
    for r, c in data["blocked"]:
        grid[r][c] = "X"
    for (r, c), seat in picks.items():
        grid[r][c] = str(seat)
    return {"rows": rows, "cols": cols, "grid": "".join("".join(row) for row in grid), "last": last}


def arrows_view(data: Mapping[str, Any]) -> View:
    """Arrows: blocked cells, each seat's chain of [x, y, dir] (head last) and target."""
    cols, rows = data["cols"], data["rows"]
    chains = [[[x, y, d]] for (x, y), d in zip(data["heads"], data["dirs"], strict=True)]
    occupied = {tuple(cell) for cell in data.get("blocked", [])} | {tuple(h) for h in data["heads"]}
    mover = data.get("to_move", 0)
    resigned = None

    def target(seat: int) -> list[int] | None:
        x, y, d = chains[seat][-1]
        dx, dy = ARROW_STEPS[d]
        return [x + dx, y + dy] if 1 <= x + dx <= cols and 1 <= y + dy <= rows else None

    for move in data.get("moves", []):
        if move == RESIGN:
            resigned = mover
            break
        cell = target(mover)
        if cell is None:  # pragma: no cover - the engine never accepts a move to nowhere
            break
        chains[mover].append([cell[0], cell[1], move])
        occupied.add(tuple(cell))
        mover ^= 1
    targets = [target(seat) for seat in (0, 1)]
    return {
        "cols": cols, "rows": rows, "blocked": [list(c) for c in data.get("blocked", [])],
        "chains": chains, "targets": targets, "mover": mover, "resigned": resigned,
    }


def tiles_view(data: Mapping[str, Any]) -> View:
    """Tiles: pot, plates as [yellow, blue], both boards as rows of [yellow, blue]."""
    return {
        "pot": data["pot"], "plates": data["plate_tiles"], "plate_size": data["plate_size"],
        "boards": data["boards"], "row_len": data["row_len"], "mover": data.get("to_move", 0),
    }


def tenten_view(data: Mapping[str, Any], dropped: list[list[int]]) -> View:
    """Tenten: filled cells, the blocks on offer, the cells of the last drop, score and round."""
    return {
        "size": data["size"], "filled": data["filled"], "offer": data["on_offer"], "dropped": dropped,
        "points": data["points"], "round": data["round"], "drops": data["drops"],
        "left": None if data.get("sequence") is None else len(data["sequence"]),
    }


def quad_leaves(tree: Any, depth: int) -> list[list[int]]:
    """The leaves of a Blocky tree as [x, y, size, colour] in unit cells, y from the top."""
    leaves: list[list[int]] = []

    def walk(block: Any, x: int, y: int, size: int) -> None:
        if isinstance(block, list):
            half = size // 2
            corners = ((x + half, y), (x, y), (x, y + half), (x + half, y + half))
            for child, (cx, cy) in zip(block, corners, strict=True):
                walk(child, cx, cy, half)
        else:
            leaves.append([x, y, size, block])

    walk(tree, 0, 0, 1 << depth)
    return leaves


def block_rect(path: list[int], depth: int) -> list[int]:
    """The [x, y, size] of the block at a path, in unit cells."""
    x, y, size = 0, 0, 1 << depth
    for i in path:
        size //= 2
        x += size if i in (0, 3) else 0
        y += size if i in (2, 3) else 0
    return [x, y, size]


def blocky_view(state: State, data: Mapping[str, Any], move: Any) -> View:
    """Blocky: the quad-tree as coloured squares, goals, goal scores and penalties."""
    depth = data["max_depth"]
    last = None
    if isinstance(move, list) and len(move) >= 2 and isinstance(move[1], list):
        last = block_rect(move[1], depth)
    goal_scores = [int(state.goal_score(s)) for s in range(data["players"])]  # type: ignore[attr-defined]
    return {
        "depth": depth, "colours": data["colours"], "leaves": quad_leaves(data["board"], depth),
        "goals": data["goals"], "penalties": data["penalties"], "goal_scores": goal_scores,
        "last": last, "turns": data["turns"],
    }


class Framer:
    """Builds the view of each position of one match, in order (a game may need the previous one)."""

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """The frame of state, reached by record's move (None: the initial position)."""
        return {"text": state.render()}


# The framer of each game, by game name; the page's script draws what they return (DRAW in viewer.js).
FRAMERS: dict[str, type[Framer]] = {}


def framer(game: str) -> Callable[[type[Framer]], type[Framer]]:
    """Register a Framer class for a game."""
    def add(cls: type[Framer]) -> type[Framer]:
        FRAMERS[game] = cls
        return cls
    return add


@framer("blocking")
class BlockingFramer(Framer):
    """Blocking: the grid, with every picked cell marked by its seat."""

    def __init__(self) -> None:
        self.picks: dict[tuple[int, int], int] = {}

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """The grid after record's pick."""
        if record is not None:
            move = record["move"]
            self.picks[(move[0], move[1])] = record["seat"]
        return blocking_view(state.to_data(), self.picks, None if record is None else list(record["move"]))


@framer("arrows")
class ArrowsFramer(Framer):
    """Arrows: the board and both chains."""

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """The board."""
        return arrows_view(state.to_data())


@framer("tiles")
class TilesFramer(Framer):
    """Tiles: plates, pot and rows."""

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """Plates, pot and rows."""
        return tiles_view(state.to_data())


@framer("tenten")
class TentenFramer(Framer):
    """Tenten: the board, the cells the last block covered, and the offer."""

    def __init__(self) -> None:
        self.offer: list[Any] = []

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """The board after record's drop."""
        data = state.to_data()
        dropped = []
        if record is not None:
            move = record["move"]
            if 0 <= move[0] < len(self.offer):
                dropped = [[move[1] + dk, move[2] + dr] for dk, dr in self.offer[move[0]]]
        self.offer = data["on_offer"]
        return tenten_view(data, dropped)


@framer("blocky")
class BlockyFramer(Framer):
    """Blocky: the quad-tree, goals, scores and penalties."""

    def view(self, state: State, record: dict[str, Any] | None) -> View:
        """The board after record's action."""
        return blocky_view(state, state.to_data(), None if record is None else record["move"])


def _events_by_ply(game: Game, log: MatchLog, shown: Collection[int] | None) -> dict[int, list[str]]:
    events: dict[int, list[str]] = {}
    for record in log.records:
        if record["kind"] == "event":
            events.setdefault(record["ply"], []).append(describe_event(game, record["event"]))
        elif record["kind"] == "illegal":
            seat = record["seat"]
            text = (f"seat {seat} tried the illegal move {record['move']!r}: {record.get('detail', '')}"
                    if shown is None or seat in shown else f"seat {seat} tried an illegal move")
            events.setdefault(record["ply"] - 1, []).append(text)
    return events


def _result_for(result: dict[str, Any] | None, shown: Collection[int] | None) -> dict[str, Any] | None:
    """The log's result, its failure detail replaced by a generic one unless the offender's seat is shown."""
    if result is None or shown is None or result.get("offender") in shown or not result.get("detail"):
        return result
    return {**result, "detail": public_detail(str(result.get("reason", "")), int(result.get("plies", 0)))}


def match_data(log: MatchLog, shown: Collection[int] | None = None) -> dict[str, Any]:
    """Everything a viewer page shows: header, one frame per ply, result, verification, output.

    shown: the seats whose private part (output, failure detail, illegal move, command) the
    page may show; None shows every seat's (a person's own logs).
    """
    header = log.header
    game = get_game(header["game"])
    names = log.names
    clock = header.get("clock", {})
    budget = float(clock.get("budget_ms", 0))
    clocks = [budget] * len(names)
    used = [0.0] * len(names)
    for entry in log.records:
        if entry["kind"] == "ready":
            clocks[entry["seat"]] = entry["clock"]
            used[entry["seat"]] = entry["time_ms"]
    events = _events_by_ply(game, log, shown)
    views = FRAMERS.get(game.name, Framer)()
    frames: list[dict[str, Any]] = []
    stopped = ""
    try:
        for record, state in positions(log):
            ply = 0 if record is None else record["ply"]
            frame: dict[str, Any] = {"ply": ply, "events": events.get(ply, [])}
            if record is not None:
                clocks = list(record["clocks"])
                frame.update(seat=record["seat"], move=game.render_move(record["move"]),
                             raw=record["move"], time_ms=record["time_ms"])
            frame["clocks"] = clocks
            frame["to_move"] = state.to_move()
            frame["scores"] = [float(s) for s in state.scores()]
            frame["board"] = views.view(state, record)
            frames.append(frame)
    except GameError as exc:
        stopped = f"replay stopped after ply {len(frames) - 1}: {exc}"
    verdict = verify(log)
    return {
        "game": game.name,
        "game_version": header.get("game_version"),
        "match": header.get("match"),
        "seed": header.get("seed"),
        "format": header.get("format"),
        "names": names,
        "bots": [s.get("bot", "") if isinstance(s, dict) and (shown is None or seat in shown) else ""
                 for seat, s in enumerate(header.get("seats", []))],
        "clock": clock,
        "ready_ms": used,
        "frames": frames,
        "result": _result_for(log.result, shown),
        "truncated": log.truncated,
        "truncation": log.truncation,
        "stopped": stopped,
        "verdict": {"ok": verdict.ok, "message": verdict.message, "ply": verdict.ply},
        "output": {str(k): v for k, v in sorted(log.output.items()) if shown is None or int(k) in shown},
    }
