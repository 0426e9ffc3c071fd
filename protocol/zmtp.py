"""ZMTP 3.0, the ZeroMQ wire protocol (rfc.zeromq.org/spec/23), spoken on a socket without libzmq.

libzmq moves every message through an I/O thread on each side: four thread wake-ups per
round trip on top of the socket's own. Speaking ZMTP directly on the Unix socket of an
`ipc://` endpoint keeps the wire byte for byte what libzmq speaks (any libzmq DEALER,
REQ or ROUTER talks to it, and it to them) and leaves one hop each way, as a pipe has.

This module has the framing (greeting, the NULL mechanism's READY, frames, PING/PONG), an
incremental Decoder with hard limits for untrusted bytes, and Dealer: the blocking DEALER
end the Python SDK serves a bot through.
"""

from __future__ import annotations

import socket
import struct
import time
from typing import Any

SIGNATURE = b"\xff" + b"\x00" * 8 + b"\x7f"
GREETING_BYTES = 64
VERSION = (3, 0)
MECHANISM = b"NULL"
MORE, LONG, COMMAND = 0x01, 0x02, 0x04
MAX_COMMAND_BYTES = 65536  # a READY with metadata, a PING: small by nature
MAX_FRAMES = 16  # frames of one message: a protocol message has one
# Which socket types may connect to which (the pairs libzmq accepts).
PEERS = {b"ROUTER": frozenset({b"DEALER", b"REQ", b"ROUTER"}),
         b"DEALER": frozenset({b"ROUTER", b"DEALER", b"REP"})}

_LONG_SIZE = struct.Struct(">Q")
_PROP_SIZE = struct.Struct(">I")


class ZmtpError(ValueError):
    """The peer's bytes break ZMTP 3 (or ask for a mechanism or socket type this end does not speak).

    Raised by Decoder.feed, `events` holds what the bytes before the breach completed in that call.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.events: list[tuple[str, Any]] = []  # filled in by Decoder.feed


def greeting(as_server: bool = False) -> bytes:
    """This end's 64-byte greeting: ZMTP 3.0, the NULL mechanism."""
    return (SIGNATURE + bytes(VERSION) + MECHANISM.ljust(20, b"\x00") + bytes([int(as_server)])
            + b"\x00" * 31)


def frame(data: bytes, more: bool = False) -> bytes:
    """One message frame."""
    size = len(data)
    flags = MORE if more else 0
    if size < 256:
        return bytes((flags, size)) + data
    return bytes((flags | LONG,)) + _LONG_SIZE.pack(size) + data


def command(name: bytes, body: bytes = b"") -> bytes:
    """One command frame."""
    data = bytes((len(name),)) + name + body
    size = len(data)
    if size < 256:
        return bytes((COMMAND, size)) + data
    return bytes((COMMAND | LONG,)) + _LONG_SIZE.pack(size) + data


def ready(socket_type: bytes, identity: bytes = b"") -> bytes:
    """The NULL mechanism's READY command, with the socket type (and the routing id a DEALER offers)."""
    props = {b"Socket-Type": socket_type}
    if socket_type in (b"DEALER", b"ROUTER", b"REQ"):
        props[b"Identity"] = identity
    return command(b"READY", b"".join(bytes((len(k),)) + k + _PROP_SIZE.pack(len(v)) + v for k, v in props.items()))


def parse_properties(body: bytes) -> dict[bytes, bytes]:
    """The metadata of a READY command's body (after its name)."""
    props: dict[bytes, bytes] = {}
    at = 0
    while at < len(body):
        size = body[at]
        name = body[at + 1:at + 1 + size]
        at += 1 + size
        if len(name) != size or at + 4 > len(body):
            raise ZmtpError("READY metadata cut short")
        (length,) = _PROP_SIZE.unpack_from(body, at)
        at += 4
        value = body[at:at + length]
        if len(value) != length:
            raise ZmtpError("READY metadata cut short")
        at += length
        props[name] = value
    return props


def shown(raw: bytes, limit: int = 100) -> str:
    """Text a peer sent, as one line of an error: decoded, cut at limit bytes, control characters escaped."""
    text = raw[:limit].decode("utf-8", "replace")
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def check_greeting(data: bytes) -> None:
    """ZmtpError unless the peer's 64 bytes greet in ZMTP 3 with the NULL mechanism."""
    if data[0] != 0xFF or data[9] & 1 != 1:
        raise ZmtpError("not a ZMTP greeting")
    if data[10] < 3:
        raise ZmtpError(f"ZMTP {data[10]}.x; this end speaks ZMTP 3 (libzmq 4 or later)")
    mechanism = data[12:32].rstrip(b"\x00")
    if mechanism != MECHANISM:
        raise ZmtpError(f"mechanism {mechanism[:20]!r}; this endpoint speaks NULL")


class Decoder:
    """Turns a connection's bytes into its greeting, commands and messages, under hard limits.

    feed() returns the events of the bytes fed so far, in order: ("ready", properties),
    ("ping", context) or ("message", [frames]). Bytes that break ZMTP raise ZmtpError, carrying
    the events completed before them; the connection is then beyond repair, and every later
    feed raises it again. However a stream is cut into feeds, the events and the error are
    those of the whole stream fed at once.
    """

    def __init__(self, socket_type: bytes, max_message: int) -> None:
        self.socket_type = socket_type
        self.max_message = max_message
        self.buffer = bytearray()
        self.greeted = False
        self.ready = False
        self.peer_type = b""
        self._frames: list[bytes] = []
        self._size = 0
        self._error: ZmtpError | None = None
        # Whether the next feed may take the hot path: ready, no bytes or frames pending, no
        # error, and every short frame within the size limit (_short).
        self._fast = False
        self._short = max_message >= 255

    def feed(self, data: bytes) -> list[tuple[str, Any]]:
        """Take in bytes; return the events they complete (ZmtpError, with the events before it, for a breach)."""
        if self._fast and len(data) >= 2 and data[0] == 0 and data[1] + 2 == len(data):
            # The hot path: exactly one short single-frame message (flags 0: no MORE, LONG, COMMAND
            # or reserved bit), with nothing pending before it.
            return [("message", [data[2:]])]
        if self._error is not None:
            raise ZmtpError(str(self._error))
        events: list[tuple[str, Any]] = []
        buffer = self.buffer
        buffer += data
        try:
            if not self.greeted and not self._greet(buffer):
                return events
            at = 0
            end = len(buffer)
            while end - at >= 2:
                frame = self._frame_head(buffer, at, end)
                if frame is None:
                    break
                flags, head, size = frame
                if end - at < head + size:
                    break
                body = bytes(buffer[at + head:at + head + size])
                at += head + size
                if flags & COMMAND:
                    event = self._command(body, flags)
                    if event is not None:
                        events.append(event)
                    continue
                if not self.ready:
                    raise ZmtpError("a message before the READY command")
                self._frames.append(body)
                self._size += size
                if flags & MORE:
                    if len(self._frames) >= MAX_FRAMES:
                        raise ZmtpError(f"a message of more than {MAX_FRAMES} frames")
                    continue
                events.append(("message", self._frames))
                self._frames, self._size = [], 0
        except ZmtpError as exc:
            exc.events = events
            self._error, self._fast = exc, False
            raise
        del buffer[:at]
        self._fast = self._short and not buffer and not self._frames and self.ready
        return events

    def _greet(self, buffer: bytearray) -> bool:
        """Check the peer's greeting and take it from the buffer; False while it is not whole yet."""
        if len(buffer) < GREETING_BYTES:
            if buffer and (buffer[0] != 0xFF or (len(buffer) >= 10 and buffer[9] & 1 != 1)):
                raise ZmtpError("not a ZMTP greeting")  # early: a stranger's bytes are not awaited
            return False
        check_greeting(bytes(buffer[:GREETING_BYTES]))
        del buffer[:GREETING_BYTES]
        self.greeted = True
        return True

    def _frame_head(self, buffer: bytearray, at: int, end: int) -> tuple[int, int, int] | None:
        """(flags, header bytes, body bytes) of the frame at `at`, within the limits; None until its header is whole."""
        flags = buffer[at]
        if flags & ~(MORE | LONG | COMMAND):
            raise ZmtpError(f"frame flags {flags:#04x}")
        if flags & LONG:
            if end - at < 9:
                return None
            (size,) = _LONG_SIZE.unpack_from(buffer, at + 1)
            head = 9
        else:
            size = buffer[at + 1]
            head = 2
        if flags & COMMAND:
            if size > MAX_COMMAND_BYTES:
                raise ZmtpError(f"a command of {size} bytes")
        elif size > self.max_message - self._size:
            raise ZmtpError(f"a message of more than {self.max_message} bytes")
        return flags, head, size

    def _command(self, body: bytes, flags: int) -> tuple[str, Any] | None:
        if flags & MORE:
            raise ZmtpError("a command frame marked MORE")
        if not body or len(body) < 1 + body[0]:
            raise ZmtpError("a command without a name")
        name, rest = body[1:1 + body[0]], body[1 + body[0]:]
        if not self.ready:
            if name == b"ERROR":
                reason = rest[1:1 + rest[0]] if rest else b""
                raise ZmtpError(f"the peer refused the handshake: {shown(reason)}")
            if name != b"READY":
                raise ZmtpError(f"command {name[:40]!r} before READY")
            props = parse_properties(rest)
            self.peer_type = props.get(b"Socket-Type", b"")
            if self.peer_type not in PEERS[self.socket_type]:
                raise ZmtpError(f"a {shown(self.peer_type, 20) or 'nameless'} socket cannot "
                                f"talk to a {self.socket_type.decode()}")
            self.ready = True
            return ("ready", props)
        if name == b"PING":  # ZMTP 3.1 heartbeats: TTL (2 bytes), then the context to echo
            return ("ping", rest[2:18])
        return None  # PONG, and commands of later versions: nothing to do


def pong(context: bytes) -> bytes:
    """The answer to a PING."""
    return command(b"PONG", context)


def ipc_path(endpoint: str) -> str:
    """The socket path of an `ipc://` endpoint; ValueError for any other."""
    if not endpoint.startswith("ipc://") or len(endpoint) <= len("ipc://"):
        raise ValueError(f"{endpoint!r} is not an ipc:// endpoint")
    path = endpoint[len("ipc://"):]
    return "\0" + path[1:] if path.startswith("@") else path  # libzmq's @name: the abstract namespace


class Dealer:
    """A blocking DEALER connected to a ROUTER at an ipc:// endpoint, speaking ZMTP on the socket itself."""

    def __init__(self, endpoint: str, connect_timeout_s: float = 10.0) -> None:
        path = ipc_path(endpoint)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
        deadline = time.monotonic() + connect_timeout_s
        while True:  # a ROUTER binds before it starts the bot, but a libzmq peer may bind later
            try:
                self.sock.connect(path)
                break
            except (FileNotFoundError, ConnectionRefusedError):
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.01)
        self.decoder = Decoder(b"DEALER", 1 << 62)  # the referee is trusted: no size limit of ours
        self.inbox: list[list[bytes]] = []
        self.sock.sendall(greeting() + ready(b"DEALER"))
        while not self.decoder.ready:  # ZMTP: no message before the peer's READY (libzmq drops the link)
            self._receive()

    def _receive(self) -> None:
        data = self.sock.recv(65536)
        if not data:
            raise ConnectionError("the referee closed the connection")
        for kind, value in self.decoder.feed(data):
            if kind == "message":
                self.inbox.append(value)
            elif kind == "ping":
                self.sock.sendall(pong(value))

    def send(self, data: bytes) -> None:
        """Send one single-frame message."""
        self.sock.sendall(frame(data))

    def recv(self) -> bytes:
        """The next message's first frame; ConnectionError once the referee is gone."""
        inbox = self.inbox
        while not inbox:
            self._receive()
        return inbox.pop(0)[0] if len(inbox) > 1 else inbox.pop()[0]

    def close(self) -> None:
        """Close the connection (what was sent has been handed to the kernel)."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:  # the referee closed its end first: nothing left to hand over
            pass
        self.sock.close()

