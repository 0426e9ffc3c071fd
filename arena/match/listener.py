"""The listener of remote seats: one ROUTER on a TCP endpoint, a CURVE server admitting only the allowed keys.

It answers the ZAP requests of its own context itself: a client whose public key is not
allowed (or that does not speak CURVE) is refused at the handshake and never sends a
message. The admitted key names the seat (the ZAP User-Id is the key file's name). One I/O
thread owns the sockets; each seat's link (a RemoteLink, arena/match/remote.py) has an eventfd
the referee polls. A new connection of a key starts with a `hello`; the request its seat waits for is sent again.
"""

from __future__ import annotations

import hmac
import json
import logging
import os
import socket
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

import zmq
import zmq.utils.monitor
import zmq.utils.z85

from arena.match.remote import (
    KeyConnection,
    RemoteError,
    RemoteLink,
    RemoteSettings,
    allowed_keys,
    peer_name,
    tcp_round_trip_ms,
    user_server_key,
)
from protocol.codec import ProtocolError, decode_from_bot, encode
from protocol.keys import KeyFileError, key_name, read_key_file
from protocol.messages import MAX_MESSAGE_BYTES, PROTOCOL_VERSION, welcome_message

log = logging.getLogger(__name__)

ZAP_ENDPOINT = "inproc://zeromq.zap.01"  # where libzmq asks whether a key may connect (RFC 27)
ZAP_DOMAIN = b"arena"
HEARTBEAT_TIMEOUT_FACTOR = 3  # a connection is dropped after this many heartbeat intervals unanswered
LINGER_MS = 1000  # what a closing listener waits for its last messages (`bye`) to leave
# A key may send this many messages unasked (hellos; anything between its seats) in a burst, and
# NOISE_PER_S more each second; past that its connection is cut and its handshakes are refused
# for CUT_S. A flood would otherwise keep this process's I/O thread busy, and slow every match
# the process referees (a contest server's ladder plays all its games in one worker).
NOISE_BURST = 200.0
NOISE_PER_S = 20.0
CUT_S = 10.0
MEASURE_EVERY_S = 0.25  # a connection's round trip is read from the kernel at most this often


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
        self.cuts = 0  # connections cut for flooding
        self._keys_changed = -1  # settings.key_dir's modification time when it was last read
        self._connections = {name: KeyConnection(name) for name in self._allowed.values()}
        self._lock = threading.Lock()
        self._outbox: deque[tuple[KeyConnection, bytes, int | None]] = deque()
        self._stop = False
        self._ctx = zmq.Context(io_threads=1)
        try:
            self._zap = self._ctx.socket(zmq.REP)
            self._zap.bind(ZAP_ENDPOINT)  # before the ROUTER binds: no handshake can pass unasked
            router = self._ctx.socket(zmq.ROUTER)
            if settings.curve:
                router.curve_server = True
                router.curve_secretkey = secret
            router.zap_domain = ZAP_DOMAIN  # with NULL too: the handler is asked for every connection
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
        self._publish()
        self._thread = threading.Thread(target=self._serve, name="arena-remote", daemon=True)
        self._thread.start()

    # --- keys added while it runs, and who is connected -----------------------------------

    def _rescan(self) -> None:
        """Allow the keys of settings.key_dir not known yet (a key given again names its newest file)."""
        if not self.settings.key_dir:
            return
        try:
            # Unknown keys can knock as fast as anyone likes: read the folder again only when it changed
            # (or changed less than a second ago: a directory's time is coarser than that).
            changed = os.stat(self.settings.key_dir).st_mtime_ns
            if changed == self._keys_changed and time.time_ns() - changed > 1_000_000_000:
                return
            self._keys_changed = changed
            files = sorted(Path(self.settings.key_dir).glob("*.key"), key=lambda f: (f.stat().st_mtime, f.name))
        except OSError:
            return
        with self._lock:
            for file in files:
                name = key_name(str(file))
                if name in self._connections:
                    continue
                try:
                    public, _ = read_key_file(file)
                except KeyFileError as exc:
                    log.warning("remote: %s", exc)
                    continue
                self._allowed[public] = name
                self._connections[name] = KeyConnection(name)

    def connected(self) -> list[str]:
        """The names of the keys whose connection is up."""
        with self._lock:
            return sorted(name for name, conn in self._connections.items() if conn.up)

    def _publish(self) -> None:
        """Rewrite the presence file (settings.presence), atomically, with the connected keys' names."""
        if not self.settings.presence:
            return
        path = Path(self.settings.presence)
        spare = path.with_name(path.name + ".new")
        try:
            spare.write_text(json.dumps({"pid": os.getpid(), "connected": self.connected()}))
            os.replace(spare, path)
        except OSError as exc:  # the engine then sees nobody connected: nothing is charged to a bot
            log.warning("remote: cannot write %s: %s", path, exc.strerror)

    # --- the referee's side -------------------------------------------------------------

    def link(self, name: str) -> RemoteLink:
        """The link of the seat of NAME's key; RemoteError when no such key is allowed or it is taken."""
        conn = self._connections.get(name)
        if conn is None:
            self._rescan()
            conn = self._connections.get(name)
        if conn is None:
            raise RemoteError(f"remote:{name}: no allowed key is named {name} (--allow {name}.key)")
        with self._lock:
            if conn.link is not None:
                raise RemoteError(f"remote:{name} already holds a seat here (one seat per key at a time)")
            conn.link = RemoteLink(self, conn)
            conn.outstanding = None
            return conn.link

    def queue(self, conn: KeyConnection, data: bytes, seq: int | None) -> None:
        """Have the I/O thread send data on the key's connection (a request is kept until answered)."""
        self._outbox.append((conn, data, seq))
        os.eventfd_write(self._wake, 1)

    def round_trip_ms(self, conn: KeyConnection) -> float | None:
        """The round trip of the key's connection as the kernel measures it (the last one measured while away)."""
        now = time.monotonic()
        with self._lock:
            up, fd, peer, fresh = conn.up, conn.fd, conn.peer, now < conn.measured_at + MEASURE_EVERY_S
        if up and not fresh:  # a shortest round trip moves slowly: once in a while is enough (10 us a reading)
            measured = tcp_round_trip_ms(fd, peer)
            if measured is not None:
                conn.round_trip_ms, conn.measured_at = measured, now
        return conn.round_trip_ms

    def release(self, link: RemoteLink) -> None:
        """Take a seat's link back from its key and close its eventfd."""
        with self._lock:  # the I/O thread notifies a link only under the lock: never a closed eventfd
            if link.connection.link is link:
                link.connection.link = None
                link.connection.outstanding = None
            link._closed = True
            os.close(link._fd)

    def close(self) -> None:
        """Send what is queued, stop the thread, close the sockets (waiting up to LINGER_MS for them to leave)."""
        if self._stop:
            return
        self._stop = True
        os.eventfd_write(self._wake, 1)
        self._thread.join()
        if self.settings.presence:  # nobody is connected to a closed listener
            with self._lock:
                for conn in self._connections.values():
                    conn.up = False
            self._publish()
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
            if self.settings.curve:
                key = zmq.utils.z85.encode(request[6]) if mechanism == b"CURVE" and len(request) > 6 else b""
                name = self._allowed.get(key)
                if name is None and key and self.settings.key_dir:
                    self._rescan()
                    name = self._allowed.get(key)
            else:  # plain TCP (measurements only): a seat is named by the client's routing id
                name = ""
            conn = self._connections.get(name) if name else None
            if conn is not None and conn.cut_until > time.monotonic():
                name = None  # cut off for flooding, for a while
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
                for conn in self._connections.values():
                    if conn.up and conn.fd == event["value"]:
                        conn.up = False  # AWAY until its key connects again
                        if conn.link is not None:
                            conn.link._notify()
            self._publish()

    def _flush(self) -> None:
        """Send what the referee queued to each key's connection (kept as outstanding when it is a request)."""
        while self._outbox:
            conn, data, seq = self._outbox.popleft()
            with self._lock:
                if seq is not None:
                    conn.outstanding = (seq, data)
                up, identity = conn.up, conn.identity
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
            user = last.get("User-Id") if self.settings.curve else identity.decode(errors="replace")
            conn = self._connections.get(user)
            if conn is None:  # ZAP admits only allowed keys (plain TCP: a routing id no seat has)
                self.ignored += 1
                continue
            if len(frames) != 2:
                if not self._deliver(conn, identity, None, b"".join(f.bytes for f in frames[1:]),
                                     f"message of {len(frames) - 1} frames (one frame per message)"):
                    self._noisy(conn, last)
                continue
            data = last.bytes
            try:
                kind, message = decode_from_bot(data)
            except ProtocolError as exc:
                if not self._deliver(conn, identity, None, data, str(exc)):
                    self._noisy(conn, last)
                continue
            if kind == "hello":
                if not self._noisy(conn, last):
                    self._hello(conn, identity, int(last.get(zmq.SRCFD)), message)
            elif not self._deliver(conn, identity, message, data, ""):
                self._noisy(conn, last)

    def _noisy(self, conn: KeyConnection, frame: zmq.Frame) -> bool:
        """Count one message the key sent unasked; True (and its connection cut) when it floods."""
        now = time.monotonic()
        if conn.cut_until > now:
            return True  # what it queued before the cut: dropped unread
        conn.noise = max(0.0, conn.noise - (now - conn.noise_at) * NOISE_PER_S) + 1.0
        conn.noise_at = now
        if conn.noise <= NOISE_BURST:
            return False
        conn.cut_until, conn.noise = now + CUT_S, 0.0
        self.cuts += 1
        log.warning("remote: %s flooded the listener: its connection is cut, its handshakes refused for %.0f s",
                    conn.name, CUT_S)
        fd = int(frame.get(zmq.SRCFD))
        with self._lock:
            if conn.fd == fd:
                conn.up = False
                if conn.link is not None:
                    conn.link._notify()
        try:  # libzmq owns the descriptor: shut the connection down through a duplicate, never close it
            with socket.socket(fileno=os.dup(fd)) as connection:
                connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass  # already gone
        self._publish()
        return True

    def _hello(self, conn: KeyConnection, identity: bytes, fd: int, message: dict[str, Any]) -> None:
        """A key's connection says hello: it becomes the key's connection; a pending request is sent again."""
        if message.get("protocol") != PROTOCOL_VERSION or not hmac.compare_digest(message.get("token", ""), ""):
            self.ignored += 1
            return
        peer = peer_name(fd)
        with self._lock:
            conn.identity, conn.fd, conn.peer, conn.up = identity, fd, peer, True
            conn.measured_at = float("-inf")  # a new connection: its own round trip at the next request
            outstanding = conn.outstanding if conn.link is not None else None
            if conn.link is not None:
                conn.link.name = str(message.get("name", ""))[:100]
                conn.link._incoming.append((message, b"", ""))  # for the trace: the seat takes no hello
                conn.link._notify()
        self._publish()
        self._router_send(identity, encode(welcome_message()))
        if outstanding is not None:
            self._router_send(identity, outstanding[1])

    def _deliver(self, conn: KeyConnection, identity: bytes, message: dict[str, Any] | None, data: bytes,
                 error: str) -> bool:
        """Hand a message to the key's seat; False when it was ignored (no seat, or not its connection)."""
        with self._lock:
            link = conn.link
            if identity != conn.identity or link is None:
                self.ignored += 1  # before a hello on this connection, or between the key's seats
                return False
            if message is not None and conn.outstanding is not None and message.get("seq") == conn.outstanding[0]:
                conn.outstanding = None
            link._incoming.append((message, data, error))
            link._notify()
            return True
