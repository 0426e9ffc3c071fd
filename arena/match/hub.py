"""The referee's ZeroMQ ROUTER socket: admits peers by token, routes their frames to seats."""

from __future__ import annotations

import hmac
import logging
import os
import secrets
import shutil
import tempfile
from typing import Any

import zmq
import zmq.backend
from zmq.utils.monitor import recv_monitor_message

from arena.launch.launcher import HUB_PREFIX  # the launcher removes what a killed worker left
from arena.match.trace import TraceTap, quote_bytes
from arena.match.transport import Inbox, InboxTransport, SeatState
from protocol.codec import ProtocolError, decode_from_bot, encode
from protocol.messages import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, welcome_message

log = logging.getLogger(__name__)

HIGH_WATER_MARK = 256  # frames queued per peer; a peer that floods beyond it loses frames
# The hot path calls the Cython socket's methods with plain ints: pyzmq's Python layer
# (flag enums, multipart helpers) costs several microseconds per message.
_NOBLOCK = int(zmq.NOBLOCK)
_SEND_MORE = int(zmq.SNDMORE) | _NOBLOCK
_EVENTS = int(zmq.EVENTS)
_RCVMORE = int(zmq.RCVMORE)
_POLLIN = int(zmq.POLLIN)
_send = zmq.backend.Socket.send  # the Cython socket's methods, under the sugar layer
_recv = zmq.backend.Socket.recv
_get = zmq.backend.Socket.get


class Peer(InboxTransport):
    """One seat's own ROUTER socket and the bot connection that presented its token.

    Each seat gets its own socket (and ipc endpoint), so a dropped connection, which is
    how libzmq answers a frame over the size limit, is known to be that seat's.
    """

    pump_before_wait = True  # ZMQ_FD signals new commands only: a frame may wait unseen after a send

    def __init__(self, context: zmq.Context, endpoint: str, token: str) -> None:
        self.token = token
        self._routing_id: bytes | None = None  # the admitted connection, once its hello presented the token
        self.name = ""
        self._inbox = Inbox()
        self._disconnected = False
        self.received = 0  # frames received from the admitted connection
        self.ignored = 0  # frames from connections that hold no seat
        self.tap: TraceTap | None = None  # the --trace of the match this peer now plays
        sock = context.socket(zmq.ROUTER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.ROUTER_MANDATORY, 1)  # sending to a gone peer fails instead of vanishing
        sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES)  # larger frames drop the connection
        sock.setsockopt(zmq.RCVHWM, HIGH_WATER_MARK)
        sock.setsockopt(zmq.SNDHWM, HIGH_WATER_MARK)
        sock.bind(endpoint)
        self.endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT) if endpoint.endswith(":*") else endpoint
        self.sock = sock
        self.monitor = sock.get_monitor_socket(zmq.EVENT_DISCONNECTED)

    @property
    def state(self) -> SeatState:
        """WAITING until the token's hello, then CONNECTED until a violation or a disconnect."""
        if self._disconnected:
            return SeatState.DISCONNECTED
        if self._inbox.violation:
            return SeatState.VIOLATED
        return SeatState.WAITING if self._routing_id is None else SeatState.CONNECTED

    def watch(self) -> list[tuple[Any, str]]:
        """What the referee's poller watches for this peer: frames and disconnect notices."""
        return [(self.sock, "frames"), (self.monitor, "monitor")]

    def send(self, message: dict[str, Any]) -> bool:
        """Send without blocking; False when the peer is gone or not reading."""
        if self._routing_id is None:
            return False
        if self.tap is not None:
            self.tap.sent(message)
        try:
            _send(self.sock, self._routing_id, _SEND_MORE)
            _send(self.sock, encode(message), _NOBLOCK)
        except zmq.ZMQError as exc:
            log.debug("send to %s failed: %s", self.name, exc)
            return False
        return True

    def pump(self) -> None:
        """Receive every frame waiting on the socket, and every disconnect notice."""
        self.pump_monitor()
        self.pump_frames()

    def pump_monitor(self) -> None:
        """Take the socket's disconnect notices."""
        while _get(self.monitor, _EVENTS) & _POLLIN:
            recv_monitor_message(self.monitor)
            if self._routing_id is not None:
                self._disconnected = True

    def pump_frames(self) -> None:
        """Receive every frame waiting on the socket and route it."""
        sock = self.sock
        while _get(sock, _EVENTS) & _POLLIN:
            frames = [_recv(sock, _NOBLOCK)]
            while _get(sock, _RCVMORE):
                frames.append(_recv(sock, _NOBLOCK))
            if self._routing_id is None:
                self._admit(frames)
                continue
            if frames[0] != self._routing_id:
                self.ignored += 1  # a second connection: it never speaks for the seat
                continue
            self.received += 1
            inbox = self._inbox
            if inbox.violation:
                continue
            if len(frames) != 2:
                inbox.violation = f"message of {len(frames) - 1} frames (one frame per message)"
                if self.tap is not None:
                    self.tap.garbage(b"".join(frames[1:]), inbox.violation)
                continue
            try:
                _, message = decode_from_bot(frames[1])
            except ProtocolError as exc:
                inbox.violation = f"{exc}; the frame was {quote_bytes(frames[1])}"
                if self.tap is not None:
                    self.tap.garbage(frames[1], str(exc))
                continue
            if self.tap is not None:
                self.tap.received(message)
            inbox.messages.append(message)

    def _admit(self, frames: list[bytes]) -> None:
        """Bind the connection whose hello presents the token; ignore anything else."""
        try:
            if len(frames) != 2:
                raise ProtocolError("not one frame")
            kind, message = decode_from_bot(frames[1])
        except ProtocolError:
            self.ignored += 1
            return
        if (kind != "hello" or message.get("protocol") != PROTOCOL_VERSION
                or not hmac.compare_digest(self.token.encode(), message["token"].encode())):
            self.ignored += 1
            return
        self._routing_id = frames[0]
        self.name = str(message.get("name", ""))[:100]
        if self.tap is not None:
            self.tap.received(message)
        self.send(welcome_message())

    def close(self) -> None:
        """Close the socket and its monitor."""
        self.monitor.close(linger=0)
        self.sock.close(linger=0)


class Hub:
    """Creates one hardened ROUTER socket per seat, in a private directory of ipc endpoints."""

    def __init__(self, context: zmq.Context | None = None, transport: str = "ipc") -> None:
        # A context of its own by default: each hub's sockets live and die with it, and one
        # hub's trouble (a wedged I/O thread) cannot reach the next match's sockets.
        self._own_context = context is None
        self.context = context or zmq.Context()
        self.transport = transport
        # ipc sockets in a private directory: faster than TCP, and can be bound into a sandbox.
        self._dir = tempfile.mkdtemp(prefix=HUB_PREFIX)
        # Others may pass through (not list): each seat's socket is its own bot uid's alone.
        os.chmod(self._dir, 0o711)
        self._count = 0
        self.peers: list[Peer] = []

    def expect(self, token: str | None = None) -> Peer:
        """A new seat socket; its peer is admitted when it says hello with the token."""
        self._count += 1
        endpoint = f"ipc://{self._dir}/seat{self._count}.sock" if self.transport == "ipc" else "tcp://127.0.0.1:*"
        peer = Peer(self.context, endpoint, token or secrets.token_hex(16))
        self.peers.append(peer)
        return peer

    def forget(self, peer: Peer) -> None:
        """Close a peer's socket (its process is gone or replaced)."""
        if peer in self.peers:
            self.peers.remove(peer)
            peer.close()

    def close(self) -> None:
        """Close every socket and remove the ipc directory."""
        for peer in list(self.peers):
            self.forget(peer)
        if self._own_context:
            self.context.destroy(linger=0)
        shutil.rmtree(self._dir, ignore_errors=True)
