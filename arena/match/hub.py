"""The referee's ZeroMQ seats: one ROUTER per seat on an ipc endpoint, admitting the bot that presents its token.

Each seat speaks ZMTP 3 (protocol/zmtp.py) on its Unix socket itself, so any libzmq DEALER
connects to it as to a libzmq ROUTER, while a message crosses no thread of the referee's:
a request is one write, a reply wakes the referee's poll at once (bench/overhead.py).
"""

from __future__ import annotations

import errno
import hmac
import logging
import os
import secrets
import select
import shutil
import socket
import tempfile

from arena.launch.processes.launcher import HUB_PREFIX  # the launcher removes what a killed worker left
from arena.match.link import Inbox, InboxLink, Link, LinkState, Via, write_within
from arena.match.trace import TraceTap, quote_bytes
from protocol import zmtp
from protocol.codec import ProtocolError, decode_from_bot, encode
from protocol.messages import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, welcome_message

log = logging.getLogger(__name__)

BACKLOG = 8  # connections waiting to be accepted
MAX_PENDING = 8  # connections that have not presented the token yet; more are closed at once
_READ_CHUNK = 65536
_READS_PER_PUMP = 16  # a flooding bot cannot keep the referee reading: the rest waits for the next pump
_EPOLLIN = select.EPOLLIN


class _Pending:
    """A connection that has not presented the seat's token yet."""

    __slots__ = ("decoder", "sock")

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.decoder = zmtp.Decoder(b"ROUTER", MAX_MESSAGE_BYTES)


class ZmqLink(InboxLink):
    """One seat's ROUTER socket and the connection whose hello presented its token (a Link).

    Each seat gets its own socket (and ipc endpoint), so whatever arrives on it is known to
    be that seat's. Connections that do not present the token are closed (counted in
    `ignored`); once a bot holds the seat, the socket stops listening: nobody else can
    connect, and a message is one read on the bot's connection.
    """

    via = Via.ZMQ
    grace_ms = 0.0

    def __init__(self, path: str, token: str) -> None:
        self.endpoint = f"ipc://{path}"
        self.token = token
        self.name = ""
        self._path = path
        self._inbox = Inbox()
        self._gone = False
        self.received = 0  # messages received from the admitted connection
        self.ignored = 0  # connections refused, and connections closed for not presenting the token
        self.tap: TraceTap | None = None  # the --trace of the match this link now serves
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)
        listener.bind(path)
        listener.listen(BACKLOG)
        self._listener = listener
        # One descriptor for the referee to watch, whatever connections come and go: an epoll
        # set, readable (level-triggered) while any of them has something to take in.
        self._epoll = select.epoll(flags=select.EPOLL_CLOEXEC)
        self._epoll.register(listener.fileno(), _EPOLLIN)
        self._pending: dict[int, _Pending] = {}
        self._conn: socket.socket | None = None
        self._fd = -1
        self._broken = False  # the admitted connection's bytes broke ZMTP: nothing more is read
        self._decoder = zmtp.Decoder(b"ROUTER", MAX_MESSAGE_BYTES)

    @property
    def state(self) -> LinkState:
        """WAITING until the token's hello, then CONNECTED until a violation, GONE once the connection closed."""
        if self._gone:
            return LinkState.GONE
        if self._inbox.violation:
            return LinkState.VIOLATED
        return LinkState.WAITING if self._conn is None else LinkState.CONNECTED

    def fds(self) -> list[int]:
        """The seat's one descriptor: readable while a connection or a message waits."""
        return [self._epoll.fileno()]

    def send(self, message: dict[str, object]) -> bool:
        """Send one message; False when no bot holds the seat, it is gone, or it does not read."""
        if self._conn is None or self._gone:
            return False
        if self.tap is not None:
            self.tap.sent(message)
        try:
            return write_within(self._fd, zmtp.frame(encode(message)))
        except OSError as exc:  # EPIPE, ECONNRESET: the bot closed its end
            log.debug("send to %s failed: %s", self.name, exc)
            self._gone = True
            return False

    def pump(self) -> None:
        """Take in everything that has arrived: new connections, hellos, messages, a closed connection."""
        if self._conn is not None:  # the seat is held: its connection is all there is to read
            if not self._gone and not self._broken:
                self._read()
            return
        for fd, _ in self._epoll.poll(0):
            if fd == self._fd:
                self._read()
            elif fd in self._pending:
                self._read_pending(fd)
            else:
                self._accept()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # EMFILE and the like: the machine's trouble, retried at the next pump
                log.warning("seat %s cannot accept a connection: %s", self.endpoint, exc)
                return
            if self._conn is not None or len(self._pending) >= MAX_PENDING:
                self.ignored += 1  # the seat is taken (or besieged): nobody else speaks for it
                conn.close()
                continue
            conn.setblocking(False)
            try:
                conn.send(zmtp.greeting() + zmtp.ready(b"ROUTER"))
            except OSError:
                conn.close()
                continue
            self._pending[conn.fileno()] = _Pending(conn)
            self._epoll.register(conn.fileno(), _EPOLLIN)

    def _drop(self, fd: int) -> None:
        pending = self._pending.pop(fd)
        self._epoll.unregister(fd)
        pending.sock.close()

    def _read_pending(self, fd: int) -> None:
        """A connection that may yet present the token: its greeting, READY and first message."""
        pending = self._pending[fd]
        try:
            data = pending.sock.recv(_READ_CHUNK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:
            self._drop(fd)
            return
        error: zmtp.ZmtpError | None = None
        try:
            events = pending.decoder.feed(data)
        except zmtp.ZmtpError as exc:  # what came before the breach counts, as it would have in an earlier read
            events, error = exc.events, exc
        for at, (kind, value) in enumerate(events):
            if kind == "ping":
                try:
                    pending.sock.send(zmtp.pong(value))
                except OSError:  # a full buffer: the PONG is dropped, never waited for
                    pass
            elif kind == "message":
                if not self._admit(fd, value):
                    self.ignored += 1
                    self._drop(fd)
                    return
                self._decoder = pending.decoder
                self._take(events[at + 1:])
                if error is not None:
                    self._break(data, error)
                return
        if error is not None:  # broken before any hello: a stranger
            self.ignored += 1
            self._drop(fd)

    def _admit(self, fd: int, frames: list[bytes]) -> bool:
        """Give the seat to the connection whose hello presents the token; False for anything else."""
        try:
            if len(frames) != 1:
                raise ProtocolError("not one frame")
            kind, message = decode_from_bot(frames[0])
        except ProtocolError:
            return False
        if (kind != "hello" or message.get("protocol") != PROTOCOL_VERSION
                or not hmac.compare_digest(self.token.encode(), message["token"].encode())):
            return False
        self._conn = self._pending.pop(fd).sock
        self._fd = fd
        for other in list(self._pending):  # the seat is taken: the others can never hold it
            self._drop(other)
        self._epoll.unregister(self._listener.fileno())
        self._listener.close()  # and nobody else may connect to it
        self.name = str(message.get("name", ""))[:100]
        if self.tap is not None:
            self.tap.received(message)
        self.send(welcome_message())
        return True

    def _read(self) -> None:
        """The admitted connection: its messages, or its end."""
        assert self._conn is not None  # narrowing: _fd is set with _conn
        for _ in range(_READS_PER_PUMP):
            try:
                data = self._conn.recv(_READ_CHUNK)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data = b""
            if not data:
                self._gone = True
                self._epoll.unregister(self._fd)
                return
            try:
                events = self._decoder.feed(data)
            except zmtp.ZmtpError as exc:
                self._take(exc.events)  # what came before the breach counts, as it would have in an earlier read
                self._break(data, exc)
                return
            self._take(events)
            if len(data) < _READ_CHUNK:
                return  # the socket is empty for now (and its readiness is level-triggered)

    def _break(self, data: bytes, exc: zmtp.ZmtpError) -> None:
        """The admitted connection's bytes broke ZMTP: a violation, and nothing more is read."""
        if not self._inbox.violation:
            self._inbox.violation = f"ZMTP: {exc}"
            if self.tap is not None:
                self.tap.garbage(data, str(exc))
        self._epoll.unregister(self._fd)  # a broken stream cannot be read on; end and bye still go out
        self._broken = True

    def _take(self, events: list[tuple[str, object]]) -> None:
        inbox = self._inbox
        tap = self.tap
        for kind, value in events:
            if kind == "ping":
                self._pong(value)  # type: ignore[arg-type]
                continue
            frames: list[bytes] = value  # type: ignore[assignment]
            self.received += 1
            if inbox.violation:
                continue
            if len(frames) != 1:
                inbox.violation = f"message of {len(frames)} frames (one frame per message)"
                if tap is not None:
                    tap.garbage(b"".join(frames), inbox.violation)
                continue
            try:
                _, message = decode_from_bot(frames[0])
            except ProtocolError as exc:
                inbox.violation = f"{exc}; the frame was {quote_bytes(frames[0])}"
                if tap is not None:
                    tap.garbage(frames[0], str(exc))
                continue
            if tap is not None:
                tap.received(message)
            inbox.messages.append(message)

    def _pong(self, context: bytes) -> None:
        """Answer a heartbeat, never waiting: a bot that floods PINGs and reads nothing loses its PONGs."""
        try:
            os.write(self._fd, zmtp.pong(context))
        except BlockingIOError:
            pass
        except OSError:
            self._gone = True

    def close(self) -> None:
        """Close every connection, the socket and its endpoint."""
        for fd in list(self._pending):
            self._drop(fd)
        if self._conn is not None:
            self._conn.close()
        self._listener.close()
        self._epoll.close()
        try:
            os.unlink(self._path)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                log.debug("cannot remove %s: %s", self._path, exc)


SUN_PATH_MAX = 107  # an AF_UNIX address holds 108 bytes with its NUL


def _short_parent() -> str | None:
    """Where the endpoints' folder goes: the temporary folder, or /tmp when its path is too long for an address."""
    parent = tempfile.gettempdir()
    longest = len(parent) + len(f"/{HUB_PREFIX}XXXXXXXX/seat9999.sock")
    return None if longest <= SUN_PATH_MAX else "/tmp"


class Hub:
    """Makes ZeroMQ seats, each its own ROUTER in one private directory of ipc endpoints.

    Nothing is created until the first seat is asked for: a match whose seats all use pipes
    has no socket and no directory.
    """

    def __init__(self) -> None:
        self._dir: str | None = None
        self._count = 0
        self.links: list[ZmqLink] = []

    @property
    def directory(self) -> str | None:
        """The directory of the endpoints, once a seat made it."""
        return self._dir

    def expect(self, token: str | None = None) -> ZmqLink:
        """A new seat socket; its bot is admitted when it says hello with the token."""
        if self._dir is None:
            # ipc sockets in a private directory: bound into each bot's sandbox one by one.
            self._dir = tempfile.mkdtemp(prefix=HUB_PREFIX, dir=_short_parent())
            # Others may pass through (not list): each seat's socket is its own bot uid's alone.
            os.chmod(self._dir, 0o711)
        self._count += 1
        link = ZmqLink(f"{self._dir}/seat{self._count}.sock", token or secrets.token_hex(16))
        self.links.append(link)
        return link

    def forget(self, link: Link) -> None:
        """Close a seat's socket (its process is gone or replaced); a link of another wire is not the hub's."""
        if isinstance(link, ZmqLink) and link in self.links:
            self.links.remove(link)
            link.close()

    def close(self) -> None:
        """Close every socket and remove the ipc directory."""
        for link in list(self.links):
            self.forget(link)
        if self._dir is not None:
            shutil.rmtree(self._dir, ignore_errors=True)
