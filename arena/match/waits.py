"""The referee's waits: what a request waits for, and how a failed wait is told in one line."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.clock import ClockSettings, SeatClock
from arena.match.link import Link, Via

MAX_POLL_MS = 60_000  # the longest single poll; a longer wait polls again


def ms(value: float) -> str:
    """Milliseconds as a detail shows them: 170, 26.4."""
    return f"{value:.1f}".removesuffix(".0")


def network_record(network_ms: float) -> dict[str, float]:
    """The `network_ms` a log record of a remote seat's reply carries: what of its wait was not charged."""
    return {"network_ms": round(network_ms, 3)} if network_ms else {}


@dataclass
class Waiting:
    """One request a seat owes an answer to, and the deadlines it must meet."""

    kind: str  # the reply type expected: "ready" or "move"
    seq: int
    sent: float
    deadline: float  # absolute wall deadline (in cpu mode: the wall cap)
    allowance_ms: int  # the time_left_ms the request carried
    cpu_start: float | None = None  # cpu mode: the bot's CPU time when the request was sent
    margin_ms: float = 0.0  # the seat's margin left when the request was sent
    grace_ms: float = 0.0  # what the seat's wire may take uncharged (0 on this machine)
    delay_start: float | None = None  # cpu mode: how long the bot had waited for a CPU when the request was sent
    cap: float = 0.0  # cpu mode: the wall cap as set when the request was sent

    def used_ms(self, now: float, process: Any) -> float:
        """What the request has cost the seat by now: wall time (less the wire's grace), or CPU time in cpu mode."""
        if self.cpu_start is not None and process is not None:
            return process.cpu_ms() - self.cpu_start
        if self.grace_ms:
            return max(0.0, (now - self.sent) * 1000 - self.grace_ms)
        return (now - self.sent) * 1000

    def past_deadline(self, now: float, run_delay_ms: Callable[[], float]) -> bool:
        """Whether the deadline has passed; in cpu mode the time the bot waited for a CPU moves the wall cap on.

        A bot ready to run but given no CPU lost that time to the machine, not to thinking or sleeping:
        the wall cap counts only the time it ran or chose to wait.
        """
        if now < self.deadline:
            return False
        if self.delay_start is None:
            return True
        self.deadline = self.cap + max(0.0, run_delay_ms() - self.delay_start) / 1000.0
        return now >= self.deadline


@dataclass
class Requests:
    """The requests out at once (a seat's, or every seat's init), the replies in so far, and the time of the look."""

    waiting: dict[int, Waiting]
    replies: dict[int, tuple[dict[str, Any], float]] = field(default_factory=dict)
    now: float = 0.0  # time.monotonic() of the current look: what a reply found now is charged up to

    def look(self) -> None:
        """Start a new look at the seats: now is the present."""
        self.now = time.monotonic()

    def overdue(self, processes: Sequence[Any]) -> tuple[int, Waiting, bool] | None:
        """The first waiting seat past its deadline or, in cpu mode, past its CPU time (False) or wall cap (True)."""
        for seat, w in self.waiting.items():
            process = processes[seat]
            if w.past_deadline(self.now, process.run_delay_ms if process is not None else lambda: 0.0):
                return seat, w, True
            if w.cpu_start is not None and w.used_ms(self.now, process) > w.allowance_ms + w.margin_ms:
                return seat, w, False
        return None

    def wake_ms(self, processes: Sequence[Any]) -> int:
        """How long the next poll may sleep: until the nearest deadline or CPU check."""
        wake = min(w.deadline for w in self.waiting.values()) - self.now
        for seat, w in self.waiting.items():
            if w.cpu_start is not None:
                # CPU time cannot run faster than all cores together: check again before then.
                left = w.allowance_ms + w.margin_ms - w.used_ms(self.now, processes[seat])
                wake = min(wake, max(0.001, left / 1000.0 / (os.cpu_count() or 1)))
        # Capped: poll takes a C int of milliseconds (a person's clock may run for days).
        return min(MAX_POLL_MS, max(0, math.ceil(wake * 1000)))


def start_wait(clock: SeatClock, kind: str, seq: int, process: Any, cpu: bool, grace_ms: float) -> Waiting:
    """The wait of a request about to be sent: its deadline, and in cpu mode where the bot's CPU clocks stand."""
    allowance, now = clock.allowance_ms(), time.monotonic()
    if cpu and process is not None:
        cap = clock.wall_cap_after(now)
        return Waiting(kind, seq, now, cap, allowance, process.cpu_ms(), clock.margin_ms, 0.0, process.run_delay_ms(),
                       cap)
    # The wire's own time (a remote seat's network) is not charged.
    return Waiting(kind, seq, now, clock.deadline_after(now) + grace_ms / 1000.0, allowance, None, clock.margin_ms,
                   grace_ms)


def time_detail(settings: ClockSettings, w: Waiting, wall: bool) -> str:
    """A timeout in words: the allowance and the margin that was left, in wall or CPU time."""
    full = settings.margin_ms
    margin = f"{ms(w.margin_ms)} ms margin" + (f" left of {full} ms" if w.margin_ms < full else "")
    if w.cpu_start is None:
        return f"no {w.kind} within {w.allowance_ms} ms + {margin}"
    if wall:
        factor = settings.wall_factor
        return (f"no {w.kind} within the wall cap of {ms(w.allowance_ms * factor + w.margin_ms)} ms "
                f"of wall time ({w.allowance_ms} ms x {factor:g} + {margin})")
    return f"no {w.kind} within {w.allowance_ms} ms + {margin} of CPU time"


def hello_hint(link: Link, own_program: bool) -> str:
    """What a program of the user's own on ZeroMQ (exec:) that never said hello may have got wrong."""
    # Only such a program: the SDK says itself why it could not start.
    if link.via is not Via.ZMQ or not own_program:
        return ""
    return ("; a ZeroMQ bot (exec:) connects to $ARENA_ENDPOINT and says hello first (SPEC.md section 2): a "
            "program that reads JSON lines on its standard input is a stdio: bot")


def silence_hint(link: Link) -> str:
    """A stdio bot from which not a single line ever arrived: most likely its output sits in a buffer."""
    if link.via is Via.STDIO and link.received == 0:
        return "; nothing arrived on its standard output before the deadline (is it flushed?)"
    return ""
