"""Replaying match logs: re-simulation that detects tampering, and the text view."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from arena.clock import ClockError, ClockMode, ClockSettings
from arena.games import Game, GameError, State, UnknownGame, get_game, ranks_with_last
from arena.games.base import short_json
from arena.logs.matchlog import MatchLog, position_fingerprint
from arena.outcomes import FAILURES, Reason

CLOCK_TOLERANCE_MS = 0.01  # the referee rounds clocks and times to 0.001 ms
# A margin follows from an allowance rebuilt from a rounded clock, which can be 1 ms lower than sent.
MARGIN_TOLERANCE_MS = 1 + CLOCK_TOLERANCE_MS
MARGIN_FORMAT = 4  # from this format on the margin is one reserve per match, and records carry what is left
ROUNDING_MS = 0.001  # per logged time: each is rounded to 0.001 ms, the total as well
# Endings after which the offender may have used time no record charges: its illegal move,
# the reply it sent before breaking the protocol, the turn it ran out of time in, and a
# resignation written by an arena older than the `resign` record.
# A remote seat that lost its connection is charged the wait it did not come back in, as a timeout is.
UNLOGGED_TIME_REASONS = frozenset({Reason.TIMEOUT, Reason.ILLEGAL, Reason.PROTOCOL, Reason.RESIGNED, Reason.DISCONNECT})


@dataclass
class Verdict:
    """The outcome of verifying a log: ok, or the first ply that disagrees and why."""

    ok: bool
    message: str
    ply: int | None = None
    truncated: bool = False
    plies: int = 0  # plies re-simulated without disagreement


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
    if len(header.get("seats", [])) != header["players"]:
        raise Disagreement(0, f"header: {header['players']} players but {len(header.get('seats', []))} seats")
    try:
        setup = game.validate_setup(header["setup"], header["players"])
        return game.start(setup, header["players"], header["seed"])
    except (GameError, KeyError, TypeError) as exc:
        raise Disagreement(0, f"setup does not validate: {exc}") from None


def positions(log: MatchLog) -> Iterator[tuple[dict[str, Any] | None, State]]:
    """Yield (move record, state after it), starting with (None, initial state).

    A simultaneous turn is yielded once, after all its moves: its last record, with the turn's
    records under "turn". The same State object is yielded every time and changed in place by
    the next move: copy it (or take to_data()) before advancing when positions are kept.
    """
    state, _ = _start(log)
    yield None, state
    turn: list[dict[str, Any]] = []
    for record in log.records:
        if record["kind"] != "move":
            continue
        movers = state.movers()
        if len(movers) <= 1:
            state.apply(record["move"])
            yield record, state
            continue
        turn.append(record)
        if {r["seat"] for r in turn} >= set(movers):
            state.apply_turn({r["seat"]: r["move"] for r in turn})
            yield {**turn[-1], "turn": turn}, state
            turn = []


def header_clocks(header: dict[str, Any]) -> list[ClockSettings]:
    """Every seat's clock settings: the header's `seat_clocks` when present, else `clock` for all."""
    players = header["players"]
    per_seat = header.get("seat_clocks")
    if per_seat is None:
        return [ClockSettings(**header["clock"])] * players
    if not isinstance(per_seat, list) or len(per_seat) != players:
        raise ValueError(f"seat_clocks must hold one clock per seat ({players})")
    return [ClockSettings(**c) for c in per_seat]


def margin_left(record: dict[str, Any], settings: ClockSettings) -> float:
    """The margin a seat has left after a `ready` or `move` record of its own (format 4: absent means all of it)."""
    margin = record.get("margin", settings.margin_ms)
    return float(margin) if isinstance(margin, (int, float)) and not isinstance(margin, bool) else -1.0


class _Clocks:
    """Every seat's clock (and, from format 4, margin) as the log states it, checked against the clock rules."""

    def __init__(self, log: MatchLog) -> None:
        try:
            self.seat_settings = header_clocks(log.header)
        except (ClockError, TypeError, ValueError) as exc:
            raise Disagreement(0, f"header: clock settings do not validate: {exc}") from None
        self.left = [float(s.budget_ms) for s in self.seat_settings]
        self.margins = [float(s.margin_ms) for s in self.seat_settings] if log.format >= MARGIN_FORMAT else None

    def _margin(self, record: dict[str, Any], ply: int) -> None:
        """A reply's time past its allowance comes out of the seat's margin for good (format 4)."""
        seat = record["seat"]
        if self.margins is None:
            return  # older formats: a fresh margin for every request, and no record of it
        settings = self.seat_settings[seat]
        allowance = int(self.left[seat] if settings.move_cap_ms is None else min(self.left[seat], settings.move_cap_ms))
        want = max(0.0, self.margins[seat] - max(0.0, record["time_ms"] - allowance))
        logged = margin_left(record, settings)
        if not 0 <= logged <= settings.margin_ms or abs(logged - want) > MARGIN_TOLERANCE_MS:
            raise Disagreement(ply, f"seat {seat}'s margin is {record.get('margin', settings.margin_ms)!r} ms, but "
                                    f"{self.margins[seat]} ms less what {record['time_ms']} ms took past its "
                                    f"{allowance} ms leaves {want:.3f}")
        self.margins[seat] = logged

    def ready(self, record: dict[str, Any], ply: int) -> None:
        seat = record["seat"]
        if not 0 <= seat < len(self.left):
            raise Disagreement(ply, f"ready of seat {seat}, which does not exist")
        want = max(0.0, self.left[seat] - record["time_ms"])
        if abs(record["clock"] - want) > CLOCK_TOLERANCE_MS:
            raise Disagreement(ply, f"seat {seat}'s clock after init is {record['clock']} ms, but "
                                    f"{self.left[seat]} - {record['time_ms']} ms used leaves {want:.3f}")
        self._margin(record, ply)
        self.left[seat] = float(record["clock"])

    def move(self, record: dict[str, Any], ply: int) -> None:
        seat, clocks = record["seat"], record["clocks"]
        if len(clocks) != len(self.left):
            raise Disagreement(ply, f"{len(clocks)} clocks for {len(self.left)} seats")
        self._margin(record, ply)
        increment = self.seat_settings[seat].increment_ms
        for other, logged in enumerate(clocks):
            want = self.left[other]
            if other == seat:
                want = max(0.0, want - record["time_ms"]) + increment
            if not isinstance(logged, (int, float)) or abs(logged - want) > CLOCK_TOLERANCE_MS:
                if other == seat:
                    why = (f"{self.left[other]} - {record['time_ms']} ms used + {increment} ms "
                           f"increment gives {want:.3f}")
                else:
                    why = f"it was {want} and seat {other} did not move"
                raise Disagreement(ply, f"seat {other}'s clock is {logged!r} ms, but {why}")
        self.left = [float(c) for c in clocks]


class _Views:
    """What each seat may be sent, re-derived from the rules (a game of hidden information): checked against `sent`."""

    def __init__(self, log: MatchLog, state: State, opening: list[list[Any]]) -> None:
        self.game = state.game
        self.on = bool(getattr(self.game, "hidden_information", False))
        self.setup = log.header.get("setup", {})
        self.queues: list[list[list[Any]]] = [[] for _ in range(log.header["players"])]
        self.deliver(state, opening)

    def deliver(self, state: State, events: list[list[Any]], skip: int | None = None) -> None:
        """Queue each seat's view of events, as the referee does."""
        if not self.on:
            return
        for seat, queue in enumerate(self.queues):
            if seat != skip:
                queue.extend(seen for event in events if (seen := state.observe(event, seat)) is not None)

    def sent(self, record: dict[str, Any], ply: int) -> None:
        """A `sent` record: the seat was shown exactly its own view, no more."""
        seat = record.get("seat")
        if not self.on or not isinstance(seat, int) or not 0 <= seat < len(self.queues):
            raise Disagreement(ply, f"a sent record for seat {seat!r} in a game without hidden information")
        if "setup" in record:
            want = self.game.observe_setup(self.game.validate_setup(self.setup, len(self.queues)), seat)
            if record["setup"] != want:
                raise Disagreement(ply, f"seat {seat} was sent the setup {short_json(record['setup'])}, but its "
                                        f"view is {short_json(want)}: it was shown more than its observation")
        if "events" not in record:
            return
        if record["events"] != self.queues[seat]:
            raise Disagreement(ply, f"seat {seat} was sent {short_json(record['events'])}, but its view of the "
                                    f"game is {short_json(self.queues[seat])}: it was shown more than its observation")
        self.queues[seat] = []


class _Replay:
    """Re-plays a log's records one by one against the rules, the clock rules and each seat's view."""

    def __init__(self, log: MatchLog) -> None:
        self.log = log
        self.state, opening = _start(log)
        self.clocks = _Clocks(log)
        self.views = _Views(log, self.state, opening)
        self.expected: deque[list[Any]] = deque(opening)
        self.turn: list[dict[str, Any]] = []  # the records of a simultaneous turn not yet complete
        self.ply = 0
        self.illegal_seat: int | None = None
        self.resigned_seat: int | None = None  # a seat that answered its turn with `resign`
        self.ready: set[int] = set()  # the seats that answered init
        self.matched = False  # a fingerprint agreed: the engine describes positions as the writer's did

    def record(self, record: dict[str, Any]) -> None:
        """Check one record against what the re-play says."""
        kind, ply = record["kind"], self.ply
        if self.illegal_seat is not None and kind in ("move", "event", "illegal", "resign"):
            raise Disagreement(ply + 1, f"a {kind} record after the illegal move that ended the match")
        if self.resigned_seat is not None and kind in ("move", "event", "illegal", "resign"):
            raise Disagreement(ply + 1, f"a {kind} record after the resignation that ended the match")
        if not ply and kind in ("move", "illegal", "resign") and len(self.ready) < len(self.clocks.left):
            # The referee sends the first turn only once every seat answered init.
            missing = sorted(set(range(len(self.clocks.left))) - self.ready)
            raise Disagreement(1, f"a {kind} record, but seat(s) {missing} never answered init")
        if kind == "event":
            self.event(record)
        elif kind == "ready":
            if ply:
                raise Disagreement(ply, f"ready of seat {record['seat']} after the first move")
            if record["seat"] in self.ready:
                raise Disagreement(ply, f"seat {record['seat']} answered init twice")
            self.clocks.ready(record, ply)
            self.ready.add(record["seat"])
        elif kind == "sent":
            self.views.sent(record, ply)
        elif kind == "move":
            self.move(record)
        elif kind in ("illegal", "resign"):
            self.refusal(record)

    def event(self, record: dict[str, Any]) -> None:
        """A referee event: the seeded generator's next one."""
        ply = self.ply
        if not self.expected:
            raise Disagreement(ply, f"referee event {short_json(record['event'])} was never generated "
                                    f"by the seeded generator")
        want = self.expected.popleft()
        if record["event"] != want:
            raise Disagreement(ply, f"referee event {short_json(record['event'])} differs from the seeded "
                                    f"generator's {short_json(want)}")
        if record["ply"] != ply:
            raise Disagreement(ply, f"referee event numbered ply {record['ply']}, generated after ply {ply}")

    def move(self, record: dict[str, Any]) -> None:
        """A move: played (a simultaneous turn's once every mover's is in), its clocks and position checked."""
        state = self.state
        if self.expected:
            raise Disagreement(self.ply, f"referee event {short_json(self.expected[0])} missing before ply "
                                         f"{self.ply + 1}")
        if len(state.movers()) > 1:
            self.turn = _turn_move(state, record, self.ply + 1, self.turn)
            self.clocks.move(record, self.ply + 1)
            if {r["seat"] for r in self.turn} < set(state.movers()):
                return  # the turn is played once every mover's record is in
            played, self.turn = self.turn, []
            self.ply += 1
            try:
                caused = state.apply_turn({r["seat"]: r["move"] for r in played})
            except GameError as exc:
                raise Disagreement(self.ply, f"the turn's moves are not legal together: {exc}") from None
        else:
            self.ply += 1
            _check_move(state, record, self.ply)
            try:
                caused = state.apply(record["move"])
            except GameError as exc:
                raise Disagreement(self.ply, f"move {short_json(record['move'])} is not legal: {exc}") from None
            self.clocks.move(record, self.ply)
            played = [record]
        self.expected.extend(caused)
        for r in played:
            self.views.deliver(state, [[r["seat"], r["move"]]], skip=r["seat"])
        self.views.deliver(state, caused)
        self.position(record)

    def position(self, record: dict[str, Any]) -> None:
        """The position a move reached, against the fingerprint the writer logged."""
        if "pos" not in record:
            return
        if record["pos"] != position_fingerprint(self.state):
            hint = "" if self.matched else (
                f" (no earlier fingerprint matched: if nothing was edited, this arena's {self.log.header['game']} "
                f"engine describes positions differently from the one that wrote the log)")
            raise Disagreement(self.ply, f"seat {record['seat']}'s move {short_json(record['move'])} does not lead "
                                         f"to the position the match reached (fingerprint differs): "
                                         f"the move was changed{hint}")
        self.matched = True

    def refusal(self, record: dict[str, Any]) -> None:
        """An illegal move or a resignation: by a seat that was to move, and (illegal) truly illegal."""
        state, ply, what = self.state, self.ply, ("illegal move" if record["kind"] == "illegal" else "resignation")
        if record["ply"] != ply + 1 or record["seat"] not in state.movers():
            raise Disagreement(ply + 1, f"{what} recorded for seat {record['seat']} at ply "
                                        f"{record['ply']}, but {_movers(state)} to play ply {ply + 1}")
        if record["kind"] == "resign":
            self.resigned_seat = record["seat"]
            return
        try:
            if len(state.movers()) > 1:
                state.check_move(record["seat"], record["move"])
            else:
                state.copy().apply(record["move"])
        except GameError:
            self.illegal_seat = record["seat"]
        else:
            raise Disagreement(ply + 1, f"move {short_json(record['move'])} recorded as illegal is legal")


def _simulate(log: MatchLog) -> tuple[State, int, int | None, int | None]:
    """Re-play every record; return (final state, plies, seat of a recorded illegal move, seat that resigned)."""
    replay = _Replay(log)
    for record in log.records:
        replay.record(record)
    if replay.expected and not log.truncated:
        raise Disagreement(replay.ply, f"referee event {short_json(replay.expected[0])} missing at the end")
    return replay.state, replay.ply, replay.illegal_seat, replay.resigned_seat


def _movers(state: State) -> str:
    """`seat 1 was` or `seats 0 and 1 were`: who was to move, for a disagreement's message."""
    movers = state.movers()
    if len(movers) == 1:
        return f"seat {movers[0]} was"
    return f"seats {', '.join(map(str, movers[:-1]))} and {movers[-1]} were" if movers else "nobody was"


def _turn_move(state: State, record: dict[str, Any], ply: int, turn: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of a simultaneous turn so far, with this mover's (checked alone against the rules)."""
    if record["ply"] != ply:
        raise Disagreement(ply, f"move numbered ply {record['ply']}")
    movers = state.movers()
    if record["seat"] not in movers or any(r["seat"] == record["seat"] for r in turn):
        raise Disagreement(ply, f"seat {record['seat']} moved, but seats {movers} were to move, once each")
    if turn and record["seat"] < turn[-1]["seat"]:
        raise Disagreement(ply, "a simultaneous turn's moves are logged in seat order")
    try:
        state.check_move(record["seat"], record["move"])
    except GameError as exc:
        raise Disagreement(ply, f"move {short_json(record['move'])} of seat {record['seat']} "
                                f"is not legal: {exc}") from None
    return [*turn, record]


def _check_move(state: State, record: dict[str, Any], ply: int) -> None:
    if record["ply"] != ply:
        raise Disagreement(ply, f"move numbered ply {record['ply']}")
    if state.is_over():
        raise Disagreement(ply, "a move after the game was over")
    if record["seat"] != state.to_move():
        raise Disagreement(ply, f"seat {record['seat']} moved, but seat {state.to_move()} was to move")


def _check_result(log: MatchLog, state: State, plies: int, illegal_seat: int | None,
                  resigned_seat: int | None = None) -> str:
    """Compare the result record with the re-simulation; return the verdict message."""
    result = log.result
    assert result is not None  # narrowing: verify() handles the truncated case first
    reason = result["reason"]
    if result["plies"] != plies:
        raise Disagreement(plies, f"result: plies {result['plies']}, but the log holds {plies} moves")
    if "game" in result and result["game"] != log.header["game"]:
        raise Disagreement(plies, f"result: game {result['game']!r}, header {log.header['game']!r}")
    if "players" in result and list(result["players"]) != log.names:
        raise Disagreement(plies, f"result: players {result['players']!r}, header seats {log.names!r}")
    offender = result["offender"]
    if (reason == Reason.ILLEGAL) != (illegal_seat is not None):
        raise Disagreement(plies, f"result: reason {reason!r}, but the log "
                                  f"{'records' if illegal_seat is not None else 'holds no'} illegal move")
    if (resigned_seat is not None) and reason != Reason.RESIGNED:
        raise Disagreement(plies, f"result: reason {reason!r}, but the log records a resignation")
    if reason in FAILURES or resigned_seat is not None:
        if state.is_over():
            raise Disagreement(plies, f"result: {reason} of seat {offender} after the game was already over")
        if not isinstance(offender, int) or not 0 <= offender < log.header["players"]:
            raise Disagreement(plies, f"result: {reason} without a valid offender")
        if illegal_seat is not None and offender != illegal_seat:
            raise Disagreement(plies, f"result: offender {offender}, but seat {illegal_seat} made the illegal move")
        if resigned_seat is not None and offender != resigned_seat:
            raise Disagreement(plies, f"result: offender {offender}, but seat {resigned_seat} resigned")
        scores = [float(s) for s in state.forfeit_scores(offender)]
        ranks = ranks_with_last(scores, [offender])
    else:
        if not state.is_over():
            raise Disagreement(plies, f"result: {reason!r} but the game is not over after ply {plies}")
        ended = str(state.end_reason())
        if reason != ended:
            raise Disagreement(plies, f"result: reason {reason!r}, re-simulation gives {ended!r}")
        want_offender = state.resigned() if reason == Reason.RESIGNED else None
        if offender != want_offender:
            raise Disagreement(plies, f"result: offender {offender!r}, re-simulation gives {want_offender!r}")
        scores = [float(s) for s in state.scores()]
        ranks = state.ranks()
    if [float(s) for s in result["scores"]] != scores:
        raise Disagreement(plies, f"result: scores {result['scores']!r}, re-simulation gives {scores!r}")
    if list(result["ranks"]) != ranks:
        raise Disagreement(plies, f"result: ranks {result['ranks']!r}, re-simulation gives {ranks!r}")
    if not any(r["kind"] == "undo" for r in log.records):
        # `arena play` stitches a game taken back from its segments: the time of the moves taken
        # back, and of re-initialising, stays in time_used_ms, and a segment's init can fail.
        _check_times(log, state, plies, reason, offender)
    return f"verified: {plies} plies, reason {reason}, scores {scores}"


def _check_times(log: MatchLog, state: State, plies: int, reason: str, offender: Any) -> None:
    """The result's times against the records: what each seat used, and a timeout's deadline.

    The referee adds to a seat's time_used_ms exactly the time it charges, and logs every
    charge (ready, move, resign) except the offender's last (illegal move, the reply before a
    protocol violation, the turn it ran out of time in, a remote seat's wait for its lost
    connection); a timeout waits for the seat asked.
    """
    result = log.result
    assert result is not None  # narrowing: only called with a result
    players = log.header["players"]
    ready = {r["seat"] for r in log.records if r["kind"] == "ready"}
    failed = offender if isinstance(offender, int) and reason in UNLOGGED_TIME_REASONS else None
    if reason == Reason.TIMEOUT and failed in ready:
        # The seat had answered init: it can only have run out of time on its move.
        if len(ready) < players:
            raise Disagreement(plies, f"result: timeout of seat {failed}, which had answered init, while "
                                      f"seat(s) {sorted(set(range(players)) - ready)} had not")
        if failed not in state.movers():
            raise Disagreement(plies, f"result: timeout of seat {failed}, but {_movers(state)} to move")
    if "time_used_ms" not in result:
        if log.format >= 3:
            raise Disagreement(plies, "result: no time_used_ms (every format-3 writer records it)")
        return
    used = result["time_used_ms"]
    if not (isinstance(used, list) and len(used) == players
            and all(isinstance(u, (int, float)) and not isinstance(u, bool) for u in used)):
        raise Disagreement(plies, f"result: time_used_ms {used!r:.80} is not one number per seat")
    charged = [0.0] * players
    counts = [0] * players
    for record in log.records:
        if record["kind"] in ("ready", "move", "resign") and 0 <= record["seat"] < players:
            charged[record["seat"]] += float(record["time_ms"])
            counts[record["seat"]] += 1
    # The reply the seat to move sent may be charged and then dropped by another seat's protocol failure.
    loose = {failed, *state.movers()} if reason == Reason.PROTOCOL else {failed}
    for seat in range(players):
        slack = ROUNDING_MS * (counts[seat] + 2)
        extra = used[seat] - charged[seat]
        if extra < -slack or (extra > slack and seat not in loose):
            raise Disagreement(plies, f"result: seat {seat} used {used[seat]} ms in all, but its records "
                                      f"charge {charged[seat]:.3f} ms")
    if reason == Reason.TIMEOUT and failed is not None:
        _check_timeout(log, plies, failed, used[failed] - charged[failed], ROUNDING_MS * (counts[failed] + 2))


def _check_timeout(log: MatchLog, plies: int, seat: int, spent: float, slack: float) -> None:
    """A timeout in wall-clock mode: the seat's last request lasted at least its allowance and its margin left."""
    settings = header_clocks(log.header)[seat]
    if settings.mode != ClockMode.WALL:
        return  # cpu mode charges CPU time, and the wall cap can strike first
    left = float(settings.budget_ms)
    margin = float(settings.margin_ms)  # before format 4, every request had all of it
    for record in log.records:
        if record["kind"] in ("ready", "move") and record["seat"] == seat:
            left = float(record["clock"] if record["kind"] == "ready" else record["clocks"][seat])
            if log.format >= MARGIN_FORMAT:
                margin = margin_left(record, settings)
    allowance = int(left if settings.move_cap_ms is None else min(left, settings.move_cap_ms))
    # The clock is logged rounded to 0.001 ms: the allowance the referee sent can be 1 ms lower.
    if spent < allowance - 1 + margin - slack:
        raise Disagreement(plies, f"result: timeout of seat {seat} after {spent:.3f} ms, but it had "
                                  f"{allowance} ms + {margin:g} ms margin")


def verify(log: MatchLog) -> Verdict:
    """Re-simulate the log from its setup and seed; report the first disagreement."""
    try:
        state, plies, illegal_seat, resigned_seat = _simulate(log)
        if log.result is None:
            return Verdict(False, f"log is truncated after ply {plies}: {log.truncation}; "
                                  f"the {plies} plies it holds agree with the re-simulation", plies, True, plies)
        message = _check_result(log, state, plies, illegal_seat, resigned_seat)
    except Disagreement as exc:
        return Verdict(False, str(exc), exc.ply, log.truncated, max(0, exc.ply - 1))
    if log.truncated:
        return Verdict(False, f"{message}, but the log is truncated: {log.truncation}", None, True, plies)
    return Verdict(True, message, None, False, plies)


def describe_event(game: Game, event: Any) -> str:
    """A one-line description of a referee event, in the game's words."""
    payload = event[1] if isinstance(event, list) and len(event) == 2 else event
    return game.describe_event(payload)


Board = Callable[[State, tuple[int, Any] | None], str]  # a position's picture, and the (seat, move) just played


def _clock_text(names: list[str], clocks: list[Any]) -> str:
    return ", ".join(f"{names[i] if i < len(names) else i} {c:.0f} ms" for i, c in enumerate(clocks))


def _move_line(game: Game, names: list[str], record: dict[str, Any]) -> str:
    """One move record in words: who played what, the time it took and the clocks after it."""
    seat = record["seat"]
    name = names[seat] if 0 <= seat < len(names) else "?"
    margin = f"; margin left {record['margin']:.0f} ms" if "margin" in record else ""
    return (f"ply {record['ply']}: seat {seat} ({name}) plays {game.render_move(record['move'])}  "
            f"[{record['time_ms']:.1f} ms; clocks {_clock_text(names, record['clocks'])}{margin}]")


def render_replay(log: MatchLog, at: int | None = None, draw: Board | None = None) -> Iterator[str]:
    """The match as text: header, each move with the board and clocks after it, the result.

    With `at`, only the position after ply `at` (0: the initial position) is shown; draw
    pictures a position and the (seat, move) that led to it (default: its render()).
    """
    header = log.header
    game = get_game(header["game"])
    names = log.names
    yield (f"{header['game']} v{header.get('game_version')}  match {header.get('match')}  "
           f"seed {header.get('seed')}  log format {header.get('format')}")
    yield "seats: " + ", ".join(f"{i} {name}" for i, name in enumerate(names))
    clock = header.get("clock", {})
    yield (f"clock: budget {clock.get('budget_ms')} ms, increment {clock.get('increment_ms')} ms, "
           f"cap {clock.get('move_cap_ms') or 'none'}, margin {clock.get('margin_ms')} ms, mode {clock.get('mode')}")
    plies = log.plies
    if at is not None and at > plies:
        yield f"no ply {at}: the log holds {plies} plies"
        return
    events_after: dict[int, list[str]] = {}
    for entry in log.records:
        if entry["kind"] == "event":
            events_after.setdefault(entry["ply"], []).append(describe_event(game, entry["event"]))
        elif entry["kind"] == "ready" and at is None:
            yield f"ready: seat {entry['seat']} in {entry['time_ms']:.1f} ms, clock {entry['clock']:.0f} ms"
        elif entry["kind"] == "illegal":
            events_after.setdefault(entry["ply"] - 1, []).append(
                f"seat {entry['seat']} plays the illegal move {short_json(entry['move'])}: {entry.get('detail', '')}")
    try:
        for record, state in positions(log):
            ply = 0 if record is None else record["ply"]
            if at is not None and ply != at:
                continue
            if record is None:
                yield "initial position:"
            for move in ([] if record is None else record.get("turn", [record])):
                yield _move_line(game, names, move)
            yield from events_after.get(ply, [])
            yield draw(state, None if record is None else (record["seat"], record["move"])) if draw else state.render()
            yield ""
    except GameError as exc:
        yield f"replay stopped: {exc}"
    if log.result is None:
        yield f"log is truncated: {log.truncation}; {plies} plies shown"
    elif at is None:
        r = log.result
        yield (f"result: reason {r['reason']}, scores {r['scores']}, ranks {r['ranks']}, "
               f"offender {r['offender']}" + (f" ({r['detail']})" if r.get("detail") else ""))
        if r.get("time_used_ms"):
            yield f"time used: {_clock_text(names, r['time_used_ms'])}"
        if log.truncated:
            yield f"log is truncated: {log.truncation}"
        for seat, text in sorted(log.output.items()):
            lines = text.rstrip("\n").splitlines()
            yield f"output of seat {seat} ({len(lines)} lines):"
            yield from (f"  | {line}" for line in lines[-20:])
