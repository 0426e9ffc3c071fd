"""Re-running one bot against a match log: the seat's messages, rebuilt and sent again.

The referee's messages are not logged as such; they are rebuilt from the records the same
way the referee builds them (arena/match/referee.py): `init` with the setup and the seat's clock,
then one `turn` per move of the seat, holding every other seat's move as [seat, move] and
every referee event as [-1, payload] since the seat's previous request.
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.clock import ClockError, SeatClock
from arena.launch.specs.botspec import BotSpec
from arena.launch.processes.process import Limits
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
    """The init and turn messages seat received in the match, with the logged answers."""
    header = log.header
    players = header["players"]
    if not 0 <= seat < players:
        raise RerunError(f"seat {seat} does not exist (the match has seats 0..{players - 1})")
    try:
        seat_settings = header_clocks(header)
    except (ClockError, TypeError, ValueError) as exc:
        raise RerunError(f"clock settings of the log do not validate: {exc}") from None
    left = [float(s.budget_ms) for s in seat_settings]
    events: list[list[Any]] = []
    # The id the bots were sent (format 4; before, the arena's own): a bot seeded from it plays the same.
    match = str(header.get("bot_match", header["match"]))
    names = log.names if header.get("reveal_names") else None
    # SeatClock.allowance_ms() turns a logged clock into the time_left_ms the referee sent; seq comes in ask().
    init = init_message(0, match, header["game"], seat, players, header["setup"],
                        SeatClock(seat_settings[seat]).allowance_ms(), names)
    requests = [Request(init, 0)]

    def turn(ply: int, answer: Any, illegal: bool = False) -> None:
        nonlocal events
        allowance = SeatClock(seat_settings[seat], left[seat]).allowance_ms()
        requests.append(Request(turn_message(0, match, events, allowance), ply, answer, illegal))
        events = []

    for record in log.records:
        kind = record["kind"]
        if kind == "event":
            events.append(record["event"])
        elif kind == "ready":
            left[record["seat"]] = float(record["clock"])
        elif kind == "move":
            if record["seat"] == seat:
                turn(record["ply"], record["move"])
            else:
                events.append([record["seat"], record["move"]])
            left = [float(c) for c in record["clocks"]]
        elif kind == "illegal" and record["seat"] == seat:
            turn(record["ply"], record["move"], illegal=True)
    return requests


class _Session:
    """One bot process connected to a private hub seat."""

    def __init__(self, spec: BotSpec, startup_ms: int) -> None:
        # Launched as arena/match/onematch.py launches a seat, so stdio and exec bots work too.
        self.hub = Hub()
        self.player = launch_player(self.hub, spec, Limits())
        self.peer = self.player.peer
        if self.player.process is None:
            self.close()
            raise RerunError(self.player.launch_error or f"cannot start {spec.text}")
        self.process = self.player.process
        deadline = time.monotonic() + startup_ms / 1000
        while not self.peer.connected:
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
        for fd in self.peer.fds():
            poller.register(fd, select.POLLIN)
        if self.process.pidfd >= 0:
            poller.register(self.process.pidfd, select.POLLIN)
        poller.poll(max(0, min(100, int((deadline - time.monotonic()) * 1000))))
        self.process.drain_output()
        self.peer.pump()

    def ask(self, message: dict[str, Any], reply: str, wait_ms: float) -> tuple[dict[str, Any] | None, str]:
        """Send a request; return (the reply, "") or (None, why there is none)."""
        seq = self.player.next_seq()
        self.peer.send({**message, "seq": seq})
        deadline = time.monotonic() + wait_ms / 1000
        while True:
            while (answer := self.peer.take()) is not None:
                if answer.get("seq") == seq:  # anything else is a stale answer: dropped
                    if answer.get("type") != reply:
                        return None, f"answered with {answer.get('type')!r}, expected {reply!r}"
                    return answer, ""
            if self.peer.violation:
                return None, f"protocol violation: {self.peer.violation}"
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
