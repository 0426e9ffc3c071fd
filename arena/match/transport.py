"""What the referee needs from a seat's transport (the ZeroMQ peer, the stdio peer): a written contract.

A seat is in one of four states. It starts WAITING (a ZeroMQ seat until its bot presents
the token, a Python bot's stdio seat until its hello line; a plain stdio seat is CONNECTED
from the start, its pipes being private). The first
message that breaks the protocol makes it VIOLATED (the link is still up: the bot still gets
`end` and `bye`), and `violation` says what the bytes were; a dropped connection or a closed
stdout makes it DISCONNECTED, whatever came before. Messages arrive in order through
`take()`; nothing else of a transport is read from outside it.
"""

from __future__ import annotations

from collections import deque
from enum import StrEnum
from typing import Any, Protocol

from arena.match.trace import TraceTap


class SeatState(StrEnum):
    """Where a seat's connection stands."""

    WAITING = "waiting"  # no bot has presented the seat's token (or a greeting bot its hello) yet
    CONNECTED = "connected"
    DISCONNECTED = "disconnected"  # the connection dropped or the bot closed its output
    VIOLATED = "violated"  # the bot sent something that is not a protocol message


class Transport(Protocol):
    """One seat's link to its bot."""

    name: str  # what the bot calls itself (its hello's name; a stdio bot's spec name)
    endpoint: str  # where the bot connects ("stdio" for pipes)
    token: str  # what its hello must present ("" for pipes)
    tap: TraceTap | None  # the --trace of the match the seat now plays
    received: int  # messages taken from the admitted bot
    ignored: int  # frames from connections that hold no seat
    pump_before_wait: bool  # whether a wait must pump before its first poll (edge-triggered fds)

    @property
    def state(self) -> SeatState:
        """The seat's state."""

    @property
    def connected(self) -> bool:
        """True while the link is up (CONNECTED or VIOLATED)."""

    @property
    def violation(self) -> str:
        """What broke the protocol, quoting the bytes ("" while nothing did)."""

    def watch(self) -> list[tuple[Any, str]]:
        """(pollable, "frames" | "monitor") pairs the referee's poller watches."""

    def send(self, message: dict[str, Any]) -> bool:
        """Send without blocking; False when the bot is gone or not reading."""

    def pump(self) -> None:
        """Take in everything that has arrived."""

    def pump_frames(self) -> None:
        """Take in the messages that have arrived."""

    def pump_monitor(self) -> None:
        """Take in connection notices."""

    def take(self) -> dict[str, Any] | None:
        """The oldest message not taken yet, or None."""

    def close(self) -> None:
        """Release what the transport holds."""


class InboxTransport:
    """What both transports do alike with their inbox: connected, violation and take."""

    _inbox: Inbox

    @property
    def state(self) -> SeatState:  # pragma: no cover - each transport says its own
        """The seat's state."""
        raise NotImplementedError

    @property
    def connected(self) -> bool:
        """True while the link is up (CONNECTED or VIOLATED: a violating bot still gets `end` and `bye`)."""
        return self.state in (SeatState.CONNECTED, SeatState.VIOLATED)

    @property
    def violation(self) -> str:
        """The first protocol violation seen ("" while none)."""
        return self._inbox.violation

    def take(self) -> dict[str, Any] | None:
        """The oldest message not taken yet, or None."""
        return self._inbox.take()


class Inbox:
    """The messages a transport received and nobody has taken yet, and the first violation."""

    def __init__(self) -> None:
        self.messages: deque[dict[str, Any]] = deque()
        self.violation = ""

    def take(self) -> dict[str, Any] | None:
        """The oldest message, or None."""
        return self.messages.popleft() if self.messages else None
