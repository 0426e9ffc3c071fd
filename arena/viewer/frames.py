"""Per-ply positions of a match log as plain data a page can draw without knowing any rules.

Each frame's board is computed in Python by the game's own Framer (its draw.py's FRAMER, else
the position's to_data()), and its text picture beside it: the page's scripts only draw what a
frame says, so the pictures cannot drift from the rules engines.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from arena.games import Game, GameError, game_file, game_module, get_game
from arena.kit.drawing import Framer
from arena.logs.matchlog import MatchLog
from arena.logs.replay import describe_event, positions, verify
from arena.outcomes import public_detail



def framer_class(game: str) -> type[Framer]:
    """The Framer of a game: its draw.py's FRAMER, else the kit's (each position's to_data())."""
    module = game_module(game, "draw")
    cls = getattr(module, "FRAMER", None) if module is not None else None
    if module is not None and not (isinstance(cls, type) and issubclass(cls, Framer)):
        raise TypeError(f"{module.__name__}: FRAMER must be a subclass of arena.kit.drawing.Framer, got {cls!r}")
    return cls or Framer


def _frames(game: Game, log: MatchLog, events: dict[int, list[str]],
            clocks: list[float]) -> tuple[list[dict[str, Any]], str, str]:
    """(every position's frame, why the replay stopped early or "", why the game's framer failed or "")."""
    frames: list[dict[str, Any]] = []
    stopped = drawing_error = ""
    try:
        views: Framer | None = framer_class(game.name)()
    except Exception as exc:  # noqa: BLE001 - a game's broken draw.py: the page shows the text picture and why
        views, drawing_error = None, f"draw.py: {type(exc).__name__}: {exc}"
    try:
        for record, state in positions(log):
            ply = 0 if record is None else record["ply"]
            frame: dict[str, Any] = {"ply": ply, "events": events.get(ply, [])}
            if record is not None:
                clocks = list(record["clocks"])
                frame.update(seat=record["seat"], move=game.render_move(record["move"]),
                             raw=record["move"], time_ms=record["time_ms"])
            frame.update(clocks=clocks, to_move=state.to_move(), scores=[float(s) for s in state.scores()],
                         text=state.render(), board=None)
            if views is not None:
                try:
                    frame["board"] = views.view(state, record)
                except Exception as exc:  # noqa: BLE001 - as above, from this ply on
                    views, drawing_error = None, f"draw.py at ply {ply}: {type(exc).__name__}: {exc}"
            frames.append(frame)
    except GameError as exc:
        stopped = f"replay stopped after ply {len(frames) - 1}: {exc}"
    return frames, stopped, drawing_error


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
    frames, stopped, drawing_error = _frames(game, log, events, clocks)
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
        "drawing": "own" if game_file(game.name, "draw.js") is not None else "none",
        "drawing_error": drawing_error,
        "verdict": {"ok": verdict.ok, "message": verdict.message, "ply": verdict.ply},
        "output": {str(k): v for k, v in sorted(log.output.items()) if shown is None or int(k) in shown},
    }
