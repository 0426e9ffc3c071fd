"""The stdio bridge: a bot that reads and writes one JSON object per line on its pipes.

A PipeLink stands where a ZmqLink (ZeroMQ) stands, so the referee gives stdio bots the very
same clocks, limits and failure handling. The pipes are private to the bot, so there is no
token: a plain stdio bot's seat is connected from the start. A bot served by the Python SDK
(`protocol.run --stdio`) greets: its first line is a `hello`, sent once its code is loaded,
so its start-up is bounded by the uncharged start-up deadline, as a ZeroMQ bot's is.
"""

from __future__ import annotations

import logging
import os
from typing import Any

from arena.launch.processes.process import BotProcess
from arena.match.link import Inbox, InboxLink, LinkState, Via, write_within
from arena.match.trace import QUOTE_LIMIT, TraceTap, quote_bytes
from protocol.codec import ProtocolError, check_message, decode_json_line, encode_json_line
from protocol.messages import BOT_TYPES, MAX_MESSAGE_BYTES, PROTOCOL_VERSION

log = logging.getLogger(__name__)

_READ_CHUNK = 65536
_READS_PER_PUMP = 16  # a flooding bot cannot keep the referee reading: the rest waits for the next pump


class PipeLink(InboxLink):
    """One stdio bot's pipes, a Link (arena/match/link.py) as ZmqLink is for ZeroMQ."""

    endpoint = "stdio"
    token = ""
    via = Via.STDIO
    grace_ms = 0.0

    def __init__(self, process: BotProcess, greets: bool = False) -> None:
        self.process = process
        self._waiting = greets  # a greeting bot's seat waits for its hello line
        self.name = process.spec.name
        self._inbox = Inbox()
        self.tap: TraceTap | None = None  # the --trace of the match this link now serves
        self._disconnected = False
        self.received = 0
        self.ignored = 0
        self._partial = bytearray()

    @property
    def state(self) -> LinkState:
        """CONNECTED from the start, or from a greeting bot's hello, until a violation; GONE once stdout closed."""
        if self._disconnected or self.process.stdout_fd < 0:
            return LinkState.GONE
        if self._inbox.violation:
            return LinkState.VIOLATED
        return LinkState.WAITING if self._waiting else LinkState.CONNECTED

    def fds(self) -> list[int]:
        """The bot's stdout (a pipe: level-triggered)."""
        return [self.process.stdout_fd] if self.process.stdout_fd >= 0 else []

    def send(self, message: dict[str, Any]) -> bool:
        """Write one JSON line; False when the bot is gone or does not read it within link.SEND_GRACE_S.

        A line longer than the pipe holds waits, briefly and bounded, for the bot to read the rest.
        """
        fd = self.process.stdin_fd
        if fd < 0:
            return False
        if self.tap is not None:
            self.tap.sent(message)
        try:
            if write_within(fd, encode_json_line(message)):
                return True
        except OSError as exc:  # BrokenPipeError among them: the bot is gone
            log.debug("send to stdio bot %s failed: %s", self.name, exc)
            return False
        # The bot left its stdin unread: this message is lost to it (its wait will time out).
        log.debug("stdio bot %s left a line unread", self.name)
        return False

    def pump(self) -> None:
        """Read what the bot wrote and turn complete lines into messages; a closed stdout ends the link."""
        fd = self.process.stdout_fd
        for _ in range(_READS_PER_PUMP if fd >= 0 else 0):
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
            if len(chunk) < _READ_CHUNK:
                return  # a short read emptied the pipe: more is for the next wake (poll is level-triggered)

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
            if self._waiting:
                self._greeted(message)
                continue
            inbox.messages.append(message)

    def _greeted(self, message: dict[str, Any]) -> None:
        """Take a greeting bot's first message: a hello of this protocol, or a violation."""
        if message["type"] != "hello":
            self._inbox.violation = f"stdio: the first line must be a hello, not a {message['type']!r}"
        elif message["protocol"] != PROTOCOL_VERSION:
            self._inbox.violation = (f"stdio: hello for protocol {message['protocol']}; "
                                     f"this referee speaks {PROTOCOL_VERSION}")
        else:
            self._waiting = False

    def close(self) -> None:
        """Nothing to close: the process owns the pipes."""
