"""Per-ply positions of a match log as plain data a page can draw without knowing any rules.

Each frame's board is computed in Python by the game's own Framer (its draw.py's FRAMER, else
the position's to_data()), and its text picture beside it: the page's scripts only draw what a
frame says, so the pictures cannot drift from the rules engines.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from arena.games import Game, GameError, State, game_file, game_module, get_game
from arena.kit.drawing import Framer
from arena.logs.matchlog import MatchLog
from arena.logs.replay import describe_event, positions, verify
from arena.outcomes import public_detail
from arena.viewer.seatviews import SeatViews


def framer_class(game: str) -> type[Framer]:
    """The Framer of a game: its draw.py's FRAMER, else the kit's (each position's to_data())."""
    module = game_module(game, "draw")
    cls = getattr(module, "FRAMER", None) if module is not None else None
    if module is not None and not (isinstance(cls, type) and issubclass(cls, Framer)):
        raise TypeError(f"{module.__name__}: FRAMER must be a subclass of arena.kit.drawing.Framer, got {cls!r}")
    return cls or Framer


def _framer(game: Game) -> tuple[Framer | None, str]:
    """The game's framer for the whole positions, or (None, why its draw.py cannot be used)."""
    try:
        return framer_class(game.name)(), ""
    except Exception as exc:  # noqa: BLE001 - a game's broken draw.py: the page shows the text picture and why
        return None, f"draw.py: {type(exc).__name__}: {exc}"


def _seat_views(game: Game, log: MatchLog) -> tuple[SeatViews | None, str]:
    """Every seat's view of the match (a game of hidden information), or (None, why there is none)."""
    if not game.hidden_information:
        return None, ""
    try:
        cls = framer_class(game.name)
    except Exception:  # noqa: BLE001 - said once, by the whole positions' framer
        cls = None
    try:
        return SeatViews(game, log.header["setup"], log.header["players"], cls), ""
    except (GameError, KeyError, TypeError, ValueError) as exc:
        return None, f"the seats' views: {type(exc).__name__}: {exc}"


def _move_fields(game: Game, record: dict[str, Any]) -> dict[str, Any]:
    """What a frame says of the move (or simultaneous turn) that reached it."""
    fields = {"seat": record["seat"], "move": game.render_move(record["move"]), "raw": record["move"],
              "time_ms": record["time_ms"]}
    if "turn" in record:  # every mover's move of a simultaneous turn, in seat order
        fields["turn"] = [{"seat": r["seat"], "move": game.render_move(r["move"]), "raw": r["move"],
                           "time_ms": r["time_ms"]} for r in record["turn"]]
    return fields


def _frames(game: Game, log: MatchLog, events: dict[int, list[str]],
            clocks: list[float]) -> tuple[list[dict[str, Any]], str, str, str]:
    """(every frame, why the replay stopped early, why the game's framer failed, why the seats' views stopped)."""
    frames: list[dict[str, Any]] = []
    stopped = ""
    views, drawing_error = _framer(game)
    seats, seats_error = _seat_views(game, log)
    caused = _caused_by_ply(log)
    try:
        for record, state in positions(log):
            ply = 0 if record is None else record["ply"]
            frame: dict[str, Any] = {"ply": ply, "events": events.get(ply, [])}
            if record is not None:
                clocks = list(record["clocks"])
                frame.update(_move_fields(game, record))
            frame.update(clocks=clocks, to_move=state.to_move(), scores=[float(s) for s in state.scores()],
                         text=state.render(), board=None)
            if len(state.movers()) > 1:  # a simultaneous turn comes next: every mover is to move
                frame["movers"] = state.movers()
            if views is not None:
                try:
                    frame["board"] = views.view(state, record)
                except Exception as exc:  # noqa: BLE001 - as above, from this ply on
                    views, drawing_error = None, f"draw.py at ply {ply}: {type(exc).__name__}: {exc}"
            if seats is not None:
                frame.update(_views_of(seats, state, record, caused.get(ply, [])))
            frames.append(frame)
    except GameError as exc:
        stopped = f"replay stopped after ply {len(frames) - 1}: {exc}"
    if seats is not None and seats.error:
        seats_error = seats.error
    return frames, stopped, drawing_error, seats_error


def _caused_by_ply(log: MatchLog) -> dict[int, list[list[Any]]]:
    """The referee events each turn caused (ply 0: the opening), as logged."""
    caused: dict[int, list[list[Any]]] = {}
    for record in log.records:
        if record["kind"] == "event":
            caused.setdefault(record["ply"], []).append(record["event"])
    return caused


def _views_of(seats: SeatViews, state: State, record: dict[str, Any] | None,
              caused: list[list[Any]]) -> dict[str, Any]:
    """A frame's seat views (`views`, one per seat) and its public part (`public`), advanced past record."""
    if record is None:
        seats.opening(state, caused)
    else:
        seats.turn(state, record.get("turn", [record]), caused)
    views = seats.frames(record)
    if views is None:
        return {}
    movers = record.get("turn", [record]) if record is not None else []
    public = {"moves": [{"seat": r["seat"], "move": seats.describe_move(seats.public["moves"], r["seat"])}
                        for r in movers],
              "events": list(seats.public["events"]), "common": seats.common}
    return {"views": views, "public": public}


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


HIDDEN_TEXT = "(what the seats hold is shown once the game has ended)"


def public_frame(frame: dict[str, Any]) -> dict[str, Any]:
    """A frame of a game of hidden information as a spectator may see it while it is played.

    Public is what every seat was shown alike: a move or referee event every other seat saw
    whole, and the position (board, text, scores) as long as every seat has been shown the same
    (one share of the setup, every event whole) and their views draw the same picture. Views
    that merely look alike prove nothing (two hands of equal cards): once anything was kept
    from a seat, the position waits for the end of the game.
    """
    views, public = frame.get("views"), frame.get("public")
    out = {key: frame[key] for key in ("ply", "clocks", "to_move", "movers") if key in frame}
    same = views is not None and public is not None and public["common"] and all(
        v["board"] == views[0]["board"] and v["text"] == views[0]["text"] and v["scores"] == views[0]["scores"]
        for v in views)
    out["board"] = views[0]["board"] if same and views else None
    out["text"] = views[0]["text"] if same and views else HIDDEN_TEXT
    out["scores"] = views[0]["scores"] if same and views else None
    out["events"] = list(public["events"]) if public is not None else []
    if "seat" in frame:
        moves = public["moves"] if public is not None else []
        told = {m["seat"]: m["move"] for m in moves}
        out.update(seat=frame["seat"], move=told.get(frame["seat"]), time_ms=frame["time_ms"])
        if "turn" in frame:
            out["turn"] = [{"seat": t["seat"], "move": told.get(t["seat"]), "time_ms": t["time_ms"]}
                           for t in frame["turn"]]
    return out


def live_data(log: MatchLog) -> dict[str, Any]:
    """What a spectator's page shows of a match still being played: only what every seat may see.

    No seed (it would tell every chance draw still to come), no bot's output, command or
    verdict; in a game of hidden information, the public part of each frame (public_frame).
    """
    data = match_data(log, shown=set())
    hidden = bool(data["hidden"])
    data.update(seed=None, result=None, output={}, bots=["" for _ in data["bots"]], live=True, hidden=False,
                verdict={"ok": True, "message": "the game is being played", "ply": None}, views_error="",
                truncated=False, truncation="")
    if hidden:
        data["frames"] = [public_frame(frame) for frame in data["frames"]]
        # An exception's words may quote what the whole truth holds: only that something stopped.
        data["stopped"] = "the replay stopped early" if data["stopped"] else ""
        data["drawing_error"] = "the game's drawing failed" if data["drawing_error"] else ""
    return data


def match_data(log: MatchLog, shown: Collection[int] | None = None) -> dict[str, Any]:
    """Everything a viewer page shows: header, one frame per turn, result, verification, output.

    shown: the seats whose private part (output, failure detail, illegal move, command) the
    page may show; None shows every seat's (a person's own logs). In a game of hidden
    information every frame also holds each seat's own view (`views`) and what all of them
    saw alike (`public`): the whole truth is shown, and a seat's-eye view at the press of a key.
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
    frames, stopped, drawing_error, views_error = _frames(game, log, events, clocks)
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
        "hidden": bool(game.hidden_information),
        "views_error": views_error,
        "live": False,
        "verdict": {"ok": verdict.ok, "message": verdict.message, "ply": verdict.ply},
        "output": {str(k): v for k, v in sorted(log.output.items()) if shown is None or int(k) in shown},
    }
