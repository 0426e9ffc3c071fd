"""Replaying match logs: re-simulation that detects tampering, and the text view."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from arena.games import GameError, State, UnknownGame, get_game
from arena.matchlog import MatchLog
from arena.referee import offender_last

FAILURE_REASONS = {"timeout", "illegal", "crash", "protocol"}


@dataclass
class Verdict:
    """The outcome of verifying a log: ok, or the first ply that disagrees and why."""

    ok: bool
    message: str
    ply: int | None = None
    truncated: bool = False


class Disagreement(Exception):
    """The log disagrees with the re-simulation at a ply."""

    def __init__(self, ply: int, message: str) -> None:
        super().__init__(f"ply {ply}: {message}")
        self.ply = ply


def _start(log: MatchLog) -> tuple[State, list[list[Any]]]:
    header = log.header
    try:
        game = get_game(header["game"])
    except UnknownGame as exc:
        raise Disagreement(0, str(exc)) from None
    if header.get("game_version") != game.version:
        raise Disagreement(0, f"log is for {game.name} version {header.get('game_version')}, "
                              f"this arena has version {game.version}")
    try:
        setup = game.validate_setup(header["setup"], header["players"])
        return game.start(setup, header["players"], header["seed"])
    except (GameError, KeyError, TypeError) as exc:
        raise Disagreement(0, f"setup does not validate: {exc}") from None


def positions(log: MatchLog) -> Iterator[tuple[dict[str, Any] | None, State]]:
    """Yield (move record, state after it), starting with (None, initial state)."""
    state, _ = _start(log)
    yield None, state
    for record in log.records:
        if record["kind"] == "move":
            state.apply(record["move"])
            yield record, state


def _simulate(log: MatchLog) -> tuple[State, int]:
    state, opening = _start(log)
    expected: deque[list[Any]] = deque(opening)
    ply = 0
    illegal_seat: int | None = None
    for record in log.records:
        kind = record.get("kind")
        if kind == "event":
            if not expected:
                raise Disagreement(ply, f"referee event {record.get('event')!r} was never generated")
            want = expected.popleft()
            if record.get("event") != want:
                raise Disagreement(ply, f"referee event {record.get('event')!r} differs from the "
                                        f"seeded generator's {want!r}")
        elif kind == "move":
            if expected:
                raise Disagreement(ply, f"referee event {expected[0]!r} missing before ply {ply + 1}")
            ply += 1
            if record.get("ply") != ply:
                raise Disagreement(ply, f"ply numbered {record.get('ply')!r}")
            if state.is_over():
                raise Disagreement(ply, "a move after the game was over")
            if record.get("seat") != state.to_move():
                raise Disagreement(ply, f"seat {record.get('seat')!r} moved, but seat {state.to_move()} was to move")
            try:
                expected.extend(state.apply(record.get("move")))
            except GameError as exc:
                raise Disagreement(ply, f"move {record.get('move')!r} is not legal: {exc}") from None
        elif kind == "illegal":
            try:
                state.copy().apply(record.get("move"))
            except GameError:
                illegal_seat = record.get("seat")
            else:
                raise Disagreement(ply + 1, f"move {record.get('move')!r} recorded as illegal is legal")
    if expected and not log.truncated:
        raise Disagreement(ply, f"referee event {expected[0]!r} missing at the end")
    if illegal_seat is not None and log.result and log.result.get("offender") != illegal_seat:
        raise Disagreement(ply, "an illegal move was recorded but its seat is not the offender")
    return state, ply


def verify(log: MatchLog) -> Verdict:
    """Re-simulate the log from its setup and seed; report the first disagreement."""
    try:
        state, plies = _simulate(log)
    except Disagreement as exc:
        return Verdict(False, str(exc), exc.ply, log.truncated)
    if log.result is None:
        return Verdict(False, f"log is truncated after ply {plies} (no result record)", plies, True)
    result = log.result
    reason = result.get("reason")
    if result.get("plies") != plies:
        return Verdict(False, f"result: plies {result.get('plies')!r}, but the log holds {plies} moves", plies)
    offender = result.get("offender")
    if reason in FAILURE_REASONS:
        if state.is_over():
            return Verdict(False, f"result: {reason} of seat {offender} after the game was already over", plies)
        if not isinstance(offender, int) or not 0 <= offender < log.header["players"]:
            return Verdict(False, f"result: {reason} without a valid offender", plies)
        scores = [float(s) for s in state.forfeit_scores(offender)]
        ranks = offender_last(scores, offender)
    else:
        if not state.is_over():
            return Verdict(False, f"result: {reason!r} but the game is not over after ply {plies}", plies)
        if reason != state.end_reason():
            return Verdict(False, f"result: reason {reason!r}, re-simulation gives {state.end_reason()!r}", plies)
        want_offender = state.resigned() if reason == "resigned" else None
        if offender != want_offender:
            return Verdict(False, f"result: offender {offender!r}, re-simulation gives {want_offender!r}", plies)
        scores = [float(s) for s in state.scores()]
        ranks = state.ranks()
    if [float(s) for s in result.get("scores", [])] != scores:
        return Verdict(False, f"result: scores {result.get('scores')!r}, re-simulation gives {scores!r}", plies)
    if list(result.get("ranks", [])) != ranks:
        return Verdict(False, f"result: ranks {result.get('ranks')!r}, re-simulation gives {ranks!r}", plies)
    return Verdict(True, f"verified: {plies} plies, reason {reason}, scores {scores}", None, log.truncated)


def render_replay(log: MatchLog, at: int | None = None) -> Iterator[str]:
    """The match as text: header, each move with the board after it, the result."""
    header = log.header
    game = get_game(header["game"])
    names = [seat.get("name", f"seat {i}") for i, seat in enumerate(header.get("seats", []))]
    yield (f"{header['game']} v{header.get('game_version')}  match {header.get('match')}  "
           f"seed {header.get('seed')}  players: {', '.join(names)}")
    clock = header.get("clock", {})
    yield f"clock: budget {clock.get('budget_ms')} ms, increment {clock.get('increment_ms')} ms, margin {clock.get('margin_ms')} ms"
    try:
        for record, state in positions(log):
            ply = 0 if record is None else record["ply"]
            if at is not None and ply != at:
                continue
            if record is None:
                yield "initial position:"
            else:
                seat = record["seat"]
                clocks = ", ".join(f"{c:.0f}" for c in record.get("clocks", []))
                yield (f"ply {ply}: seat {seat} ({names[seat] if seat < len(names) else '?'}) "
                       f"plays {game.render_move(record['move'])}  [{record.get('time_ms', 0):.1f} ms; clocks {clocks} ms]")
            yield state.render()
            yield ""
    except GameError as exc:
        yield f"replay stopped: {exc}"
    if log.result is None:
        yield f"log is truncated: no result (crashed referee?); {len(log.moves)} plies shown"
    elif at is None:
        r = log.result
        yield (f"result: reason {r.get('reason')}, scores {r.get('scores')}, ranks {r.get('ranks')}, "
               f"offender {r.get('offender')}" + (f" ({r.get('detail')})" if r.get("detail") else ""))
