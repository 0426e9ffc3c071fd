"""A seat's link: what the referee needs from a seat's transport, in the referee's words (a written contract).

The referee knows seats, not sockets. It sends a seat's link requests, takes its replies, waits
on its descriptors until a deadline, and asks where the link stands and what wire it runs over
(`via`). Behind the contract: ZmqLink (ZeroMQ, arena/match/hub.py), PipeLink (a stdio bot's
pipes, arena/match/stdio.py), RemoteLink (a bot on another machine, arena/match/remote.py),
and any other wire that keeps it. A Player holds its seat's link as `player.link`.

A link is in one of five states. It starts WAITING (until its bot presents the seat's token;
a Python bot's pipes until its hello line; plain pipes are CONNECTED from the start, being
private). The first message that breaks the protocol makes it VIOLATED (the link is still
up: the bot still gets `end` and `bye`), and `violation` says what the bytes were. GONE: the
link ended for good (a closed connection or output). AWAY: the link was lost but may come
back (a seat on another machine reconnecting); the referee keeps waiting for its reply
until the deadline, and a seat still away then has lost its connection (`disconnect`).

Replies arrive in order through `take()` once `pump()` has taken them in; nothing else of a
link is read from outside it. `fds()` are descriptors the referee polls (the same for the
link's whole life), readable while anything waits to be taken in: a link over an
edge-triggered source (libzmq's ZMQ_FD) must pump whenever that source may have swallowed a
notice (after each send). `grace_ms` is time the wire itself may take per request that is
not charged to the bot (0 for a bot on this machine; for a remote seat, its connection's
measured round trip with a jitter allowance, capped).
"""
from __future__ import annotations

import math
import os
import select
import time
from collections import deque
from enum import StrEnum
from typing import Any, Protocol

from arena.match.trace import TraceTap

SEND_GRACE_S = 2.0  # how long a bot may take to read a message longer than its pipe or socket holds


class Via(StrEnum):
    """The wire a seat's link runs over, as the referee and traces name it."""

    ZMQ = "zmq"  # ZeroMQ on this machine (ZmqLink)
    STDIO = "stdio"  # JSON lines on the bot's own pipes (PipeLink; SPEC.md section 10)
    REMOTE = "remote"  # ZeroMQ with CURVE over TCP from another machine (RemoteLink; SPEC.md section 13)


class LinkState(StrEnum):
    """Where a seat's link stands."""

    WAITING = "waiting"  # no bot has presented the seat's token (or a greeting bot its hello) yet
    CONNECTED = "connected"
    VIOLATED = "violated"  # the bot sent something that is not a protocol message
    AWAY = "away"  # the link was lost and may come back (a remote seat reconnecting)
    GONE = "gone"  # the link ended for good: the connection or the bot's output closed


class Link(Protocol):
    """One seat's link to its bot."""

    name: str  # what the bot calls itself (its hello's name; a stdio bot's spec name)
    via: Via  # the wire it runs over
    endpoint: str  # where the bot connects ("stdio" for pipes)
    token: str  # what its hello must present ("" for pipes)
    tap: TraceTap | None  # the --trace of the match the seat now plays
    received: int  # messages taken from the admitted bot
    ignored: int  # connections or messages that hold no seat

    @property
    def grace_ms(self) -> float:
        """Per request, what the wire may take uncharged: 0 on this machine (read when a request is sent)."""

    @property
    def state(self) -> LinkState:
        """The seat's state."""

    @property
    def connected(self) -> bool:
        """True while the link is up (CONNECTED or VIOLATED)."""

    @property
    def violation(self) -> str:
        """What broke the protocol, quoting the bytes ("" while nothing did)."""

    def fds(self) -> list[int]:
        """The descriptors to poll: readable (level-triggered) while something waits to be taken in."""

    def send(self, message: dict[str, Any]) -> bool:
        """Send a request without waiting for the bot; False when it is gone or not reading."""

    def pump(self) -> None:
        """Take in everything that has arrived (replies, a violation, the link's end)."""

    def take(self) -> dict[str, Any] | None:
        """The oldest reply not taken yet, or None."""

    def close(self) -> None:
        """Release what the link holds."""


class InboxLink:
    """What links do alike with their inbox: connected, violation and take."""

    _inbox: Inbox

    @property
    def state(self) -> LinkState:  # pragma: no cover - each link says its own
        """The seat's state."""
        raise NotImplementedError

    @property
    def connected(self) -> bool:
        """True while the link is up (CONNECTED or VIOLATED: a violating bot still gets `end` and `bye`)."""
        return self.state in (LinkState.CONNECTED, LinkState.VIOLATED)

    @property
    def violation(self) -> str:
        """The first protocol violation seen ("" while none)."""
        return self._inbox.violation

    def take(self) -> dict[str, Any] | None:
        """The oldest message not taken yet, or None."""
        return self._inbox.take()


class Inbox:
    """The messages a link received and nobody has taken yet, and the first violation."""

    def __init__(self) -> None:
        self.messages: deque[dict[str, Any]] = deque()
        self.violation = ""

    def take(self) -> dict[str, Any] | None:
        """The oldest message, or None."""
        return self.messages.popleft() if self.messages else None


def _writable(fd: int, timeout_s: float) -> bool:
    """Wait up to timeout_s for room in a pipe or socket; True when there is some (or the reader is gone)."""
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return bool(poller.poll(max(1, math.ceil(timeout_s * 1000))))


def write_within(fd: int, data: bytes, grace_s: float | None = None) -> bool:
    """Write all of data to a non-blocking fd; False when the reader leaves some unread for grace_s.

    OSError (EPIPE, ECONNRESET) when the reader is gone. What does not fit waits, briefly and
    bounded, for the bot to read the rest; a bot that does not read loses the message, and
    its wait for a reply times out.
    """
    view = memoryview(data)
    deadline = 0.0
    while True:
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            pass
        if not view:
            return True
        now = time.monotonic()
        deadline = deadline or now + (SEND_GRACE_S if grace_s is None else grace_s)
        if now >= deadline or not _writable(fd, deadline - now):
            return False
