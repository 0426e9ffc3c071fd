"""Remote seats: bots on other machines, over TCP with ZeroMQ CURVE (protocol/SPEC.md section 13).

A remote seat's link (a RemoteLink, arena/match/link.py's contract) belongs to one allowed key on a
Listener (arena/match/listener.py, the one part of the match layer that needs libzmq: CURVE
over TCP, loaded only for a match with a remote seat). The key, not a token, is a remote
bot's credential. The seat is AWAY while its key has no connection: the request it waits
for is sent again on the connection its key makes next, and the referee charges the whole
wait to the bot (beyond what the network takes, below), then ends it as `disconnect`.

What the network takes of a request's wait is not charged: the connection's round trip as
the kernel measures it (TCP_INFO's shortest round trip of its recent traffic, which the
heartbeats keep going: a PING each HEARTBEAT_MS, its PONG the acknowledgement), with an
allowance for jitter, and never more than the organiser's network_grace_ms. A connection
the kernel cannot tell about (not TCP, or gone before any measurement) gets that cap.
"""

from __future__ import annotations

import os
import socket
import struct
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.match.link import Inbox, InboxLink, LinkState, Via
from arena.match.trace import TraceTap, quote_bytes
from protocol.codec import encode
from protocol.keys import KeyFileError, key_name, new_key_pair, read_key_file
from protocol.messages import welcome_message

HEARTBEAT_MS = 1000  # a silent connection is pinged this often (and dropped after 3 intervals unanswered)
DEFAULT_GRACE_MS = 1000  # per request, the most of the network's time a remote seat is not charged
# The network's part of a request, beyond its measured round trip: a quarter of it (queues on
# a long path vary with it) and 2 ms for the libzmq threads and CURVE at both ends.
JITTER_SHARE = 0.25
JITTER_MS = 2.0
# struct tcp_info (linux/tcp.h): tcpi_min_rtt, in microseconds, at this offset (Linux 4.6 and later);
# ~0 until the connection has a sample.
_TCP_INFO_BYTES = 152
_MIN_RTT = struct.Struct("=I")
_MIN_RTT_AT = 148
_NO_SAMPLE = 0xFFFFFFFF
SERVER_KEY_NAME = "arena"  # the user's listener key: $XDG_CONFIG_HOME/arena/arena.key_secret


class RemoteError(ValueError):
    """Remote seats that cannot be set up as asked; the message is one line."""


@dataclass(frozen=True)
class RemoteSettings:
    """Where remote bots connect and who may: the `[remote]` table, `--listen` and `--allow`."""

    listen: str  # tcp://ADDR:PORT to bind
    allow: tuple[str, ...]  # public key files (NAME.key): NAME's bot may hold seat remote:NAME
    server_key: str = ""  # the listener's secret key file; "" for the user's (made on first use)
    network_grace_ms: int = DEFAULT_GRACE_MS  # the cap on what of a request the network may take uncharged
    heartbeat_ms: int = HEARTBEAT_MS
    # False: plain TCP, a key's name taken from the client's routing id, unauthenticated and
    # unencrypted: only to measure what CURVE costs (bench/overhead.py); no config or option sets it.
    curve: bool = True
    # A contest server's keys: every NAME.key in this folder is allowed too, read again when an
    # unknown key knocks or an unknown seat is asked for (keys are added while the listener runs).
    key_dir: str = ""
    # A file the listener rewrites (JSON: the names of the connected keys) whenever one connects
    # or goes: how a process that does not hold the listener knows who is there.
    presence: str = ""


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


def peer_name(fd: int) -> Any:
    """The address of the peer of the socket on fd (a descriptor libzmq owns: read via a duplicate); None if none."""
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            return sock.getpeername()
    except OSError:
        return None


def tcp_round_trip_ms(fd: int, peer: Any) -> float | None:
    """The kernel's shortest round trip (ms) of the TCP connection on fd to peer; None when it cannot tell.

    None too when the descriptor no longer holds that connection (libzmq closed it, and it
    may already serve another).
    """
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            if peer is None or sock.getpeername() != peer:
                return None
            info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_BYTES)
    except OSError:
        return None
    if len(info) < _MIN_RTT_AT + _MIN_RTT.size:
        return None
    (micros,) = _MIN_RTT.unpack_from(info, _MIN_RTT_AT)
    return None if micros == _NO_SAMPLE else micros / 1000.0


def uncharged_ms(round_trip_ms: float | None, cap_ms: float) -> float:
    """What of a request's wait is the network's: its round trip and the jitter allowance, at most cap_ms.

    An unmeasured round trip (None) gets the cap: a failure to measure is never charged to the bot.
    """
    if round_trip_ms is None:
        return float(cap_ms)
    return min(float(cap_ms), round_trip_ms * (1 + JITTER_SHARE) + JITTER_MS)


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


class KeyConnection:
    """One allowed key's connection, as the listener's I/O thread keeps it (under its lock)."""

    __slots__ = ("cut_until", "fd", "identity", "last_seq", "link", "measured_at", "name", "noise", "noise_at",
                 "outstanding", "peer", "round_trip_ms", "up")

    def __init__(self, name: str) -> None:
        self.name = name
        self.identity = b""  # the ROUTER's id of the connection that said hello last
        self.fd = -1  # its socket (the monitor names connections by descriptor)
        self.peer: Any = None  # its peer's address: the descriptor still holds it while getpeername says so
        self.round_trip_ms: float | None = None  # the last round trip measured on the key's connections
        self.measured_at = float("-inf")  # when (time.monotonic)
        self.up = False
        self.link: RemoteLink | None = None  # the seat it holds now
        self.outstanding: tuple[int, bytes] | None = None  # a request not answered yet: sent again on reconnection
        self.noise = 0.0  # messages the key sent unasked, leaking away over time (the listener's flood guard)
        self.noise_at = 0.0  # when noise was last brought up to date (time.monotonic)
        self.cut_until = 0.0  # its connection was cut for flooding: handshakes refused until then
        # The seq of the last message sent: the key's next seat goes on from it. A bot ignores a seq
        # below one it has seen (SPEC.md section 13), and it may have seen a previous listener's (a
        # server restarted, the finals after the ladder): a new connection starts at the microseconds since
        # the epoch, above any seq an earlier listener could have sent (one per microsecond at most).
        self.last_seq = time.time_ns() // 1000


class LinkHost(Protocol):
    """What a remote seat needs of its listener (arena/match/listener.py)."""

    endpoint: str
    settings: RemoteSettings

    def queue(self, conn: KeyConnection, data: bytes, seq: int | None) -> None:
        """Send data on the key's connection (a request, with its seq, is sent again on reconnection)."""

    def round_trip_ms(self, conn: KeyConnection) -> float | None:
        """The round trip of the key's connection, measured now (the last one measured while it is away)."""

    def release(self, link: RemoteLink) -> None:
        """Take the link back and close it."""


class RemoteLink(InboxLink):
    """The link of the seat one allowed key holds on a Listener: AWAY while its bot is not connected."""

    via = Via.REMOTE
    token = ""

    def __init__(self, listener: LinkHost, connection: KeyConnection) -> None:
        self.listener = listener
        self.connection = connection
        self.name = connection.name
        self.endpoint = listener.endpoint
        self.tap: TraceTap | None = None
        self.received = 0
        self.ignored = 0
        self._inbox = Inbox()
        self._incoming: deque[tuple[dict[str, Any] | None, bytes, str]] = deque()
        self._fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self._closed = False
        self.first_seq = connection.last_seq  # a bot keeps its connection across matches: seq never goes back

    @property
    def grace_ms(self) -> float:
        """Per request, what the network may take uncharged: the round trip measured now and its jitter, capped."""
        return uncharged_ms(self.listener.round_trip_ms(self.connection), self.listener.settings.network_grace_ms)

    def _notify(self) -> None:
        """Called by the I/O thread: something arrived, or the link's state changed."""
        if not self._closed:
            os.eventfd_write(self._fd, 1)

    @property
    def state(self) -> LinkState:
        """CONNECTED while the key's connection is up, AWAY while it is not, VIOLATED after garbage."""
        if self._closed:
            return LinkState.GONE
        if self._inbox.violation:
            return LinkState.VIOLATED
        return LinkState.CONNECTED if self.connection.up else LinkState.AWAY

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
            self.connection.last_seq = message["seq"]
        seq = message.get("seq") if message.get("type") in ("init", "turn") else None
        self.listener.queue(self.connection, encode(message), seq)
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
            self.listener.release(self)
