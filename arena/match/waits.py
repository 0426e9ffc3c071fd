"""The referee's waits: what a request waits for, and how a failed wait is told in one line."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.clock import ClockSettings


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


@dataclass
class Requests:
    """The requests out at once (a seat's, or every seat's init) and the replies in so far."""

    waiting: dict[int, Waiting]
    replies: dict[int, tuple[dict[str, Any], float]] = field(default_factory=dict)


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


def hello_hint(spec_text: str) -> str:
    """What a ZeroMQ bot that never said hello may have got wrong (a stdio bot started with exec:)."""
    # Only a program the user started as exec: (the SDK says itself why it could not start).
    if not spec_text.startswith("exec:"):
        return ""
    return ("; a ZeroMQ bot (exec:) connects to $ARENA_ENDPOINT and says hello first (SPEC.md section 2): a "
            "program that reads JSON lines on its standard input is a stdio: bot")


def silence_hint(peer: Any) -> str:
    """A stdio bot from which not a single line ever arrived: most likely its output sits in a buffer."""
    if getattr(peer, "endpoint", "") == "stdio" and getattr(peer, "received", 1) == 0:
        return "; nothing arrived on its standard output before the deadline (is it flushed?)"
    return ""
