"""Remote seats: bots on other machines, over TCP with ZeroMQ CURVE (protocol/SPEC.md section 13).

A Listener binds one ROUTER as a CURVE server and answers the ZAP requests of its context
itself: a client whose public key is not allowed (or that does not speak CURVE) is refused
at the handshake and never sends a message. The admitted key names the seat (the ZAP
User-Id is the key file's name), so a bot's key, not its token, is its credential.

One I/O thread owns the sockets; each seat (a Transport, arena/match/transport.py) has an
eventfd the referee polls, readable while messages wait. A seat whose connection drops is
AWAY: the request it was waiting for is sent again on the connection its key makes next
(its first message is a new `hello`), and the referee charges the whole wait to the bot.
"""

from __future__ import annotations

import hmac
import logging
import os
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq
import zmq.utils.monitor
import zmq.utils.z85

from arena.match.trace import TraceTap, quote_bytes
from arena.match.transport import Inbox, InboxTransport, SeatState
from protocol.codec import ProtocolError, decode_from_bot, encode
from protocol.keys import KeyFileError, key_name, new_key_pair, read_key_file
from protocol.messages import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, welcome_message

log = logging.getLogger(__name__)

ZAP_ENDPOINT = "inproc://zeromq.zap.01"  # where libzmq asks whether a key may connect (RFC 27)
ZAP_DOMAIN = b"arena"
HEARTBEAT_MS = 1000  # a silent connection is pinged this often ...
HEARTBEAT_TIMEOUT_FACTOR = 3  # ... and dropped after this many intervals without an answer
LINGER_MS = 1000  # what a closing listener waits for its last messages (`bye`) to leave
DEFAULT_GRACE_MS = 1000  # per request, the network's time a remote seat is not charged
SERVER_KEY_NAME = "arena"  # the user's listener key: $XDG_CONFIG_HOME/arena/arena.key_secret


class RemoteError(ValueError):
    """Remote seats that cannot be set up as asked; the message is one line."""


@dataclass(frozen=True)
class RemoteSettings:
    """Where remote bots connect and who may: the `[remote]` table, `--listen` and `--allow`."""

    listen: str  # tcp://ADDR:PORT to bind
    allow: tuple[str, ...]  # public key files (NAME.key): NAME's bot may hold seat remote:NAME
    server_key: str = ""  # the listener's secret key file; "" for the user's (made on first use)
    network_grace_ms: int = DEFAULT_GRACE_MS
    heartbeat_ms: int = HEARTBEAT_MS


def user_server_key() -> Path:
    """The user's listener key (secret file), made on first use in arena's own 0700 directory."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    folder = (Path(base) if os.path.isabs(base) else Path.home() / ".config") / "arena"
    secret = folder / f"{SERVER_KEY_NAME}.key_secret"
    if not secret.exists():
        folder.mkdir(parents=True, exist_ok=True)
        os.chmod(folder, 0o700)
        new_key_pair(SERVER_KEY_NAME, folder)
    return secret


def allowed_keys(files: tuple[str, ...]) -> dict[bytes, str]:
    """Each allowed public key and the seat name it holds (its file's name); RemoteError for bad files."""
    keys: dict[bytes, str] = {}
    names: set[str] = set()
    for file in files:
        try:
            public, _ = read_key_file(file)
        except KeyFileError as exc:
            raise RemoteError(str(exc)) from None
        name = key_name(file)
        if name in names or public in keys:
            raise RemoteError(f"--allow {file}: the key or the name {name!r} is allowed twice")
        keys[public] = name
        names.add(name)
    return keys


class _Link:
    """One allowed key's connection as the I/O thread knows it."""

    __slots__ = ("fd", "identity", "last_seq", "name", "outstanding", "seat", "up")

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = b""  # the ROUTER's id of the connection that said hello last
        self.fd = -1  # its socket (the monitor names connections by descriptor)
        self.up = False
        self.seat: RemoteSeat | None = None
        self.outstanding: tuple[int, bytes] | None = None  # a request not answered yet: sent again on reconnection
        self.last_seq = 0  # the seq of the last message sent: the key's next seat goes on from it


class Listener:
    """One ROUTER on a TCP endpoint, a CURVE server admitting only the allowed keys, and its seats."""

    def __init__(self, settings: RemoteSettings) -> None:
        self.settings = settings
        self._allowed = allowed_keys(settings.allow)
        try:
            _, secret = read_key_file(settings.server_key or user_server_key(), secret=True)
        except KeyFileError as exc:
            raise RemoteError(str(exc)) from None
        assert secret is not None  # narrowing: secret=True requires it
        self.public_key = zmq.curve_public(secret)
        self.refused = 0  # handshakes refused: keys not allowed
        self.ignored = 0  # messages of admitted keys that hold no seat, or a first message that is not a hello
        self._links = {name: _Link(name) for name in self._allowed.values()}
        self._lock = threading.Lock()
        self._outbox: deque[tuple[_Link, bytes, int | None]] = deque()
        self._stop = False
        self._ctx = zmq.Context(io_threads=1)
        try:
            self._zap = self._ctx.socket(zmq.REP)
            self._zap.bind(ZAP_ENDPOINT)  # before the ROUTER binds: no handshake can pass unasked
            router = self._ctx.socket(zmq.ROUTER)
            router.curve_server = True
            router.curve_secretkey = secret
            router.zap_domain = ZAP_DOMAIN
            try:
                router.setsockopt(zmq.ZAP_ENFORCE_DOMAIN, 1)  # a draft option in some libzmq builds
            except zmq.ZMQError:
                pass  # the handler is bound before the ROUTER: it is asked anyway
            router.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES * 2)
            router.setsockopt(zmq.HEARTBEAT_IVL, settings.heartbeat_ms)
            router.setsockopt(zmq.HEARTBEAT_TIMEOUT, settings.heartbeat_ms * HEARTBEAT_TIMEOUT_FACTOR)
            router.setsockopt(zmq.HANDSHAKE_IVL, 5000)
            router.linger = LINGER_MS
            self._monitor = router.get_monitor_socket(zmq.EVENT_DISCONNECTED)
            router.bind(settings.listen)
        except zmq.ZMQError as exc:
            self._ctx.destroy(linger=0)
            raise RemoteError(f"cannot listen on {settings.listen}: {exc}") from None
        self._router = router
        self.endpoint = router.getsockopt_string(zmq.LAST_ENDPOINT)
        self._wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._thread = threading.Thread(target=self._serve, name="arena-remote", daemon=True)
        self._thread.start()

    # --- the referee's side -------------------------------------------------------------

    def seat(self, name: str) -> RemoteSeat:
        """The seat of the bot whose key is NAME's; RemoteError when no such key is allowed or it is taken."""
        link = self._links.get(name)
        if link is None:
            raise RemoteError(f"remote:{name}: no allowed key is named {name} (--allow {name}.key)")
        with self._lock:
            if link.seat is not None:
                raise RemoteError(f"remote:{name} already holds a seat here (one seat per key at a time)")
            link.seat = RemoteSeat(self, link)
            link.outstanding = None
            return link.seat

    def _send(self, link: _Link, data: bytes, seq: int | None) -> None:
        self._outbox.append((link, data, seq))
        os.eventfd_write(self._wake, 1)

    def _release(self, seat: RemoteSeat) -> None:
        with self._lock:  # the I/O thread notifies a seat only under the lock: never a closed eventfd
            if seat.link.seat is seat:
                seat.link.seat = None
                seat.link.outstanding = None
            seat._closed = True
            os.close(seat._fd)

    def close(self) -> None:
        """Send what is queued, stop the thread, close the sockets (waiting up to LINGER_MS for them to leave)."""
        if self._stop:
            return
        self._stop = True
        os.eventfd_write(self._wake, 1)
        self._thread.join()
        self._router.close(linger=LINGER_MS)
        self._monitor.close(linger=0)
        self._zap.close(linger=0)
        self._ctx.term()
        os.close(self._wake)

    # --- the I/O thread -----------------------------------------------------------------

    def _serve(self) -> None:
        poller = zmq.Poller()
        for item in (self._monitor, self._zap, self._router, self._wake):
            poller.register(item, zmq.POLLIN)
        while True:
            ready = dict(poller.poll())
            # Disconnections first: a descriptor they name may already serve a new connection.
            if self._monitor in ready:
                self._disconnections()
            if self._zap in ready:
                self._authenticate()
            if self._wake in ready:
                try:
                    os.eventfd_read(self._wake)
                except BlockingIOError:
                    pass
            self._flush()
            if self._stop:
                return
            if self._router in ready:
                self._receive()

    def _authenticate(self) -> None:
        """Answer every waiting ZAP request: 200 and the key's name for an allowed key, 400 for any other."""
        while True:
            try:
                request = self._zap.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            version, request_id = request[0], request[1]
            mechanism = request[5] if len(request) > 5 else b""
            key = zmq.utils.z85.encode(request[6]) if mechanism == b"CURVE" and len(request) > 6 else b""
            name = self._allowed.get(key)
            if name is None:
                self.refused += 1
                log.info("remote: refused a %s handshake from %s", mechanism.decode(errors="replace"),
                         request[3].decode(errors="replace") if len(request) > 3 else "?")
                self._zap.send_multipart([version, request_id, b"400", b"key not allowed", b"", b""])
            else:
                self._zap.send_multipart([version, request_id, b"200", b"OK", name.encode(), b""])

    def _disconnections(self) -> None:
        while True:
            try:
                event = zmq.utils.monitor.recv_monitor_message(self._monitor, zmq.NOBLOCK)
            except zmq.Again:
                return
            with self._lock:
                for link in self._links.values():
                    if link.up and link.fd == event["value"]:
                        link.up = False  # AWAY until its key connects again
                        if link.seat is not None:
                            link.seat._notify()

    def _flush(self) -> None:
        """Send what the referee queued to each link's connection (kept as outstanding when it is a request)."""
        while self._outbox:
            link, data, seq = self._outbox.popleft()
            with self._lock:
                if seq is not None:
                    link.outstanding = (seq, data)
                up, identity = link.up, link.identity
            if up:
                self._router_send(identity, data)

    def _router_send(self, identity: bytes, data: bytes) -> None:
        try:
            self._router.send_multipart([identity, data], zmq.NOBLOCK)
        except zmq.ZMQError as exc:  # a full queue or a connection just gone: the reconnection sends it again
            log.debug("remote: send failed: %s", exc)

    def _receive(self) -> None:
        for _ in range(64):  # a flood of one connection cannot hold the thread
            try:
                frames = self._router.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                return
            identity, last = frames[0].bytes, frames[-1]
            link = self._links.get(last.get("User-Id"))
            if link is None:  # pragma: no cover - ZAP admits only allowed keys
                continue
            if len(frames) != 2:
                self._deliver(link, identity, None, b"".join(f.bytes for f in frames[1:]),
                              f"message of {len(frames) - 1} frames (one frame per message)")
                continue
            data = last.bytes
            try:
                kind, message = decode_from_bot(data)
            except ProtocolError as exc:
                self._deliver(link, identity, None, data, str(exc))
                continue
            if kind == "hello":
                self._hello(link, identity, int(last.get(zmq.SRCFD)), message)
            else:
                self._deliver(link, identity, message, data, "")

    def _hello(self, link: _Link, identity: bytes, fd: int, message: dict[str, Any]) -> None:
        """A key's connection says hello: it becomes the key's connection; a pending request is sent again."""
        if message.get("protocol") != PROTOCOL_VERSION or not hmac.compare_digest(message.get("token", ""), ""):
            self.ignored += 1
            return
        with self._lock:
            link.identity, link.fd, link.up = identity, fd, True
            outstanding = link.outstanding if link.seat is not None else None
            if link.seat is not None:
                link.seat.name = str(message.get("name", ""))[:100]
                link.seat._incoming.append((message, b"", ""))  # for the trace: the seat takes no hello
                link.seat._notify()
        self._router_send(identity, encode(welcome_message()))
        if outstanding is not None:
            self._router_send(identity, outstanding[1])

    def _deliver(self, link: _Link, identity: bytes, message: dict[str, Any] | None, data: bytes,
                 error: str) -> None:
        with self._lock:
            seat = link.seat
            if identity != link.identity or seat is None:
                self.ignored += 1  # before a hello on this connection, or between the key's seats
                return
            if message is not None and link.outstanding is not None and message.get("seq") == link.outstanding[0]:
                link.outstanding = None
            seat._incoming.append((message, data, error))
            seat._notify()


class RemoteSeat(InboxTransport):
    """The seat of one allowed key on a Listener (a Transport): AWAY while its bot is not connected."""

    via = "remote"
    token = ""

    def __init__(self, listener: Listener, link: _Link) -> None:
        self.listener = listener
        self.link = link
        self.name = link.name
        self.endpoint = listener.endpoint
        self.grace_ms = float(listener.settings.network_grace_ms)
        self.tap: TraceTap | None = None
        self.received = 0
        self.ignored = 0
        self._inbox = Inbox()
        self._incoming: deque[tuple[dict[str, Any] | None, bytes, str]] = deque()
        self._fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._closed = False
        self.first_seq = link.last_seq  # a bot keeps its connection across matches: seq never goes back

    def _notify(self) -> None:
        """Called by the I/O thread: something arrived, or the link's state changed."""
        if not self._closed:
            os.eventfd_write(self._fd, 1)

    @property
    def state(self) -> SeatState:
        """CONNECTED while the key's connection is up, AWAY while it is not, VIOLATED after garbage."""
        if self._closed:
            return SeatState.GONE
        if self._inbox.violation:
            return SeatState.VIOLATED
        return SeatState.CONNECTED if self.link.up else SeatState.AWAY

    def fds(self) -> list[int]:
        """The seat's eventfd: readable while messages or news of the link wait."""
        return [self._fd]

    def send(self, message: dict[str, Any]) -> bool:
        """Queue one message; a request is kept and sent again if the connection comes back. False once closed."""
        if self._closed:
            return False
        if self.tap is not None:
            self.tap.sent(message)
        if isinstance(message.get("seq"), int):
            self.link.last_seq = message["seq"]
        seq = message.get("seq") if message.get("type") in ("init", "turn") else None
        self.listener._send(self.link, encode(message), seq)
        return True

    def pump(self) -> None:
        """Take in what the I/O thread received for this seat."""
        if self._closed:
            return
        try:
            os.eventfd_read(self._fd)
        except BlockingIOError:
            pass
        inbox, tap = self._inbox, self.tap
        while self._incoming:
            message, data, error = self._incoming.popleft()
            self.received += 1
            if inbox.violation:
                continue
            if message is None:
                inbox.violation = f"{error}; the frame was {quote_bytes(data)}"
                if tap is not None:
                    tap.garbage(data, error)
                continue
            if tap is not None:
                tap.received(message)
            if message["type"] == "hello":  # the I/O thread answered it: a (re)connection
                if tap is not None:
                    tap.sent(welcome_message())
                continue
            inbox.messages.append(message)

    def close(self) -> None:
        """Give the key's seat back to the listener (its connection stays for the key's next seat)."""
        if not self._closed:
            self.listener._release(self)
