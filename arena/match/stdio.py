"""The stdio bridge: a bot that reads and writes one JSON object per line on its pipes.

A StdioPeer stands where a ZeroMQ Peer stands, so the referee gives stdio bots the very
same clocks, limits and failure handling. The pipes are private to the bot, so there is no
hello and no token: the seat is connected from the start.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from arena.launch.process import BotProcess
from arena.match.trace import QUOTE_LIMIT, TraceTap, quote_bytes
from arena.match.transport import Inbox, InboxTransport, SeatState
from protocol.codec import ProtocolError, check_message, decode_json_line, encode_json_line
from protocol.messages import BOT_TYPES, MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

_READ_CHUNK = 65536


class StdioPeer(InboxTransport):
    """One stdio bot's pipes, a Transport (arena/match/transport.py) like the ZeroMQ Peer."""

    endpoint = "stdio"
    token = ""

    def __init__(self, process: BotProcess) -> None:
        self.process = process
        self.name = process.spec.name
        self._inbox = Inbox()
        self.tap: TraceTap | None = None  # the --trace of the match this peer now plays
        self._disconnected = False
        self.received = 0
        self.ignored = 0
        self._partial = bytearray()

    @property
    def state(self) -> SeatState:
        """CONNECTED from the start (the pipes are the bot's alone) until a violation or a closed stdout."""
        if self._disconnected or self.process.stdout_fd < 0:
            return SeatState.DISCONNECTED
        if self._inbox.violation:
            return SeatState.VIOLATED
        return SeatState.CONNECTED

    def watch(self) -> list[tuple[Any, str]]:
        """What the referee's poller watches for this peer."""
        return [(self.process.stdout_fd, "frames")] if self.process.stdout_fd >= 0 else []

    def send(self, message: dict[str, Any]) -> bool:
        """Write one JSON line without blocking; False when the bot is gone or not reading."""
        fd = self.process.stdin_fd
        if fd < 0:
            return False
        data = encode_json_line(message)
        if self.tap is not None:
            self.tap.sent(message)
        try:
            written = os.write(fd, data)
        except (BlockingIOError, BrokenPipeError, OSError) as exc:
            log.debug("send to stdio bot %s failed: %s", self.name, exc)
            return False
        if written < len(data):  # the bot left its stdin unread: this message is lost to it
            log.debug("stdio bot %s: partial write of %d/%d bytes", self.name, written, len(data))
            return False
        return True

    def pump_frames(self) -> None:
        """Read what the bot wrote and turn complete lines into messages."""
        fd = self.process.stdout_fd
        while fd >= 0:
            try:
                chunk = os.read(fd, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._disconnected = True
                return
            self._take(chunk)

    def pump_monitor(self) -> None:
        """Nothing to do: a closed stdout is seen by pump_frames."""

    def pump(self) -> None:
        """Read everything available."""
        self.pump_frames()

    def _take(self, chunk: bytes) -> None:
        self._partial += chunk
        inbox = self._inbox
        while not inbox.violation:
            end = self._partial.find(b"\n")
            if end < 0:
                if len(self._partial) > MAX_MESSAGE_BYTES:  # an endless line is cut at the limit
                    inbox.violation = (f"line longer than {MAX_MESSAGE_BYTES} bytes; it began "
                                       f"{quote_bytes(bytes(self._partial[:QUOTE_LIMIT + 1]))}")
                    if self.tap is not None:
                        self.tap.garbage(bytes(self._partial), inbox.violation)
                    self._partial.clear()
                return
            line = bytes(self._partial[:end])
            del self._partial[: end + 1]
            if not line.strip():
                continue
            self.received += 1
            try:
                message = decode_json_line(line)
                check_message(message, BOT_TYPES)
            except ProtocolError as exc:
                inbox.violation = f"stdio: {exc}; the line was {quote_bytes(line)}"
                if self.tap is not None:
                    self.tap.garbage(line, str(exc))
                return
            if self.tap is not None:
                self.tap.received(message)
            inbox.messages.append(message)

    def close(self) -> None:
        """Nothing to close: the process owns the pipes."""
