"""Re-running one bot against a match log: the seat's messages, rebuilt and sent again.

The referee's messages are not logged as such; they are rebuilt from the records the same
way the referee builds them (arena/match/referee.py): `init` with the setup and the seat's clock,
then one `turn` per move of the seat, holding every other seat's move as [seat, move] and
every referee event as [-1, payload] since the seat's previous request (a simultaneous turn's
other moves once the turn is over). In a game of hidden information the log says what each
request showed the seat (`sent` records: its share of the setup, its view of the events), and
the seat is sent exactly that: it is replayed from its own view.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.clock import ClockError, ClockSettings, SeatClock
from arena.launch.processes.process import Limits
from arena.launch.specs.botspec import BotSpec
from arena.logs.matchlog import MatchLog
from arena.logs.replay import header_clocks
from arena.match.hub import Hub
from arena.match.onematch import launch_player, shutdown
from protocol.messages import init_message, turn_message

SLACK_MS = 1000  # extra wait past time left + margin: a re-run need not be as fast as the match


class RerunError(Exception):
    """The bot could not be re-run (bad seat, launch failure, no hello)."""


@dataclass
class Request:
    """One message the seat received, and the answer the log holds for it."""

    message: dict[str, Any]  # init or turn, without seq
    ply: int  # the ply the answer made (0 for init)
    answer: Any = None  # the logged move (None for init)
    illegal: bool = False  # the logged answer was rejected as illegal


@dataclass
class RerunReport:
    """The outcome of a re-run: agreement, or the first ply that differs and how."""

    ok: bool
    message: str
    ply: int | None = None
    compared: int = 0
    output: str = ""
    notes: list[str] = field(default_factory=list)


def seat_requests(log: MatchLog, seat: int) -> list[Request]:
    """The init and turn messages seat received in the match, with the logged answers.

    A log of a game of hidden information says what each request showed each seat (its `sent`
    records): the seat is sent exactly that, its own view. Otherwise the messages are rebuilt as
    the referee builds them: every other seat's move and every referee event since the seat's
    previous request, a simultaneous turn's other moves only once the turn is over.
    """
    header = log.header
    players = header["players"]
    if not 0 <= seat < players:
        raise RerunError(f"seat {seat} does not exist (the match has seats 0..{players - 1})")
    try:
        seat_settings = header_clocks(header)
    except (ClockError, TypeError, ValueError) as exc:
        raise RerunError(f"clock settings of the log do not validate: {exc}") from None
    # The id the bots were sent (format 4; before, the arena's own): a bot seeded from it plays the same.
    match = str(header.get("bot_match", header["match"]))
    names = log.names if header.get("reveal_names") else None
    # SeatClock.allowance_ms() turns a logged clock into the time_left_ms the referee sent; seq comes in ask().
    init = init_message(0, match, header["game"], seat, players, header["setup"],
                        SeatClock(seat_settings[seat]).allowance_ms(), names)
    if any(record["kind"] == "sent" for record in log.records):
        return _sent_requests(log, seat, init, seat_settings)
    left = [float(s.budget_ms) for s in seat_settings]
    events: list[list[Any]] = []
    later: list[list[Any]] = []  # the other moves of the turn being played: sent once it is over
    turn_ply = None
    requests = [Request(init, 0)]
    for record in log.records:
        kind = record["kind"]
        if kind == "event" or (kind == "move" and record["ply"] != turn_ply):
            events += later
            later = []
        if kind == "event":
            events.append(record["event"])
        elif kind == "ready":
            left[record["seat"]] = float(record["clock"])
        elif kind == "move":
            turn_ply = record["ply"]
            if record["seat"] == seat:
                requests.append(_turn(match, events, seat_settings[seat], left[seat], record))
                events = []
            else:
                later.append([record["seat"], record["move"]])
            left = [float(c) for c in record["clocks"]]
        elif kind == "illegal" and record["seat"] == seat:
            requests.append(_turn(match, events, seat_settings[seat], left[seat], record, illegal=True))
            events = []
    return requests


def _turn(match: str, events: list[list[Any]], settings: ClockSettings, left: float, answer: dict[str, Any],
          illegal: bool = False) -> Request:
    """A turn request holding events, with the time the seat had left, and the answer the log holds."""
    allowance = SeatClock(settings, left).allowance_ms()
    return Request(turn_message(0, match, events, allowance), answer["ply"], answer["move"], illegal)


def _sent_requests(log: MatchLog, seat: int, init: dict[str, Any], settings: list[ClockSettings]) -> list[Request]:
    """The seat's requests from the log's `sent` records: what the referee showed the seat, and no more."""
    left = [float(s.budget_ms) for s in settings]
    requests: list[Request] = []
    asked: dict[str, Any] | None = None  # the last turn's sent record, waiting for the seat's answer
    for record in log.records:
        kind = record["kind"]
        if kind == "ready":
            left[record["seat"]] = float(record["clock"])
        elif kind == "sent" and record["seat"] == seat:
            if "setup" in record:
                requests.append(Request({**init, "setup": record["setup"]}, 0))
            elif not record.get("end"):
                asked = {"events": record.get("events", []), "left": left[seat]}
        elif kind in ("move", "illegal") and record["seat"] == seat and asked is not None:
            requests.append(_turn(str(init["match"]), asked["events"], settings[seat], asked["left"], record,
                                  illegal=kind == "illegal"))
            asked = None
        if kind == "move":
            left = [float(c) for c in record["clocks"]]
    if not requests or requests[0].message["type"] != "init":
        raise RerunError(f"the log holds no record of the setup seat {seat} was sent: its view cannot be replayed")
    return requests


class _Session:
    """One bot process connected to a private hub seat."""

    def __init__(self, spec: BotSpec, startup_ms: int) -> None:
        # Launched as arena/match/onematch.py launches a seat, so stdio and exec bots work too.
        self.hub = Hub()
        self.player = launch_player(self.hub, spec, Limits())
        self.link = self.player.link
        if self.player.process is None:
            self.close()
            raise RerunError(self.player.launch_error or f"cannot start {spec.text}")
        self.process = self.player.process
        deadline = time.monotonic() + startup_ms / 1000
        while not self.link.connected:
            if time.monotonic() >= deadline:
                self.close()
                raise RerunError(f"no hello from {spec.text} within {startup_ms} ms")
            if not self.process.alive:
                self.process.drain_output()
                detail = self.process.describe_exit()
                self.close()
                raise RerunError(f"{spec.text} {detail} before hello")
            self._wait(deadline)

    def _wait(self, deadline: float) -> None:
        poller = select.poll()
        for fd in self.link.fds():
            poller.register(fd, select.POLLIN)
        if self.process.pidfd >= 0:
            poller.register(self.process.pidfd, select.POLLIN)
        poller.poll(max(0, min(100, int((deadline - time.monotonic()) * 1000))))
        self.process.drain_output()
        self.link.pump()

    def ask(self, message: dict[str, Any], reply: str, wait_ms: float) -> tuple[dict[str, Any] | None, str]:
        """Send a request; return (the reply, "") or (None, why there is none)."""
        seq = self.player.next_seq()
        self.link.send({**message, "seq": seq})
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            while (answer := self.link.take()) is not None:
                if answer.get("seq") == seq:  # anything else is a stale answer: dropped
                    if answer.get("type") != reply:
                        return None, f"answered with {answer.get('type')!r}, expected {reply!r}"
                    return answer, ""
            if self.link.violation:
                return None, f"protocol violation: {self.link.violation}"
            if not self.process.alive:
                self.process.drain_output()
                return None, f"bot process {self.process.describe_exit()}"
            if time.monotonic() >= deadline:
                return None, f"no {reply} within {wait_ms:.0f} ms"
            self._wait(deadline)

    def close(self) -> None:
        shutdown(self.hub, [self.player])
        self.hub.close()


def rerun(log: MatchLog, seat: int, spec: BotSpec, progress: Callable[[str], None] | None = None) -> RerunReport:
    """Feed the bot the seat's logged messages; report the first answer that differs."""
    requests = seat_requests(log, seat)
    clock = log.header["clock"]
    margin = float(clock.get("margin_ms", 200)) + SLACK_MS
    session = _Session(spec, int(clock.get("startup_ms", 10_000)))
    compared = 0
    try:
        for request in requests:
            message = request.message
            wait_ms = message["time_left_ms"] + margin
            if message["type"] == "init":
                answer, why = session.ask(message, "ready", wait_ms)
                if answer is None:
                    return _report(session, False, f"init: {why}", 0, compared)
                continue
            answer, why = session.ask(message, "move", wait_ms)
            if answer is None:
                return _report(session, False, f"ply {request.ply}: {why}; the log has "
                                               f"{request.answer!r}", request.ply, compared)
            compared += 1
            if answer.get("move") != request.answer:
                logged = f"{request.answer!r}" + (" (rejected as illegal)" if request.illegal else "")
                return _report(session, False, f"ply {request.ply}: the bot plays {answer.get('move')!r}, "
                                               f"the log has {logged}", request.ply, compared)
            if progress is not None:
                progress(f"ply {request.ply}: {answer.get('move')!r} agrees")
        summary = f"all {compared} moves of seat {seat} agree with the log"
        report = _report(session, True, summary, None, compared)
        if log.result is not None and log.result.get("offender") == seat and not requests[-1].illegal:
            report.notes.append(f"the match ended with {log.result['reason']} of this seat: its last request "
                                f"has no logged answer and was not re-sent")
        return report
    finally:
        session.close()


def _report(session: _Session, ok: bool, message: str, ply: int | None, compared: int) -> RerunReport:
    session.process.drain_output()
    return RerunReport(ok, message, ply, compared, session.process.output_text())
