"""`arena serve ACTION CONFIG`: the admin's commands reach the running server through a socket in its directory.

The server listens on DIRECTORY/admin.sock, a Unix socket, and answers only processes of
its own user or root, as the kernel names them (SO_PEERCRED): those who may read
admin.token and server.db anyway. So no token travels and no port is opened, and a command
finds its server whatever its --host and --port, behind any proxy. Bots in the sandbox
never see the directory. One request per connection, one JSON line each way: {"action":
...}, then {"ok", "message", "data"}. The actions are the admin page's (the same code, the
same events), with `status` and `export` to read, and `note`: another command of the
admin's tells what it did to the directory (a backup), for the terminal and the admin page.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.server.state.eventlog import tell

if TYPE_CHECKING:  # the web's side: `arena serve ACTION` runs without the server extra
    from arena.server.web.contest import Contest

SOCKET_NAME = "admin.sock"
ACTIONS = ("finals", "freeze", "unfreeze", "pause", "resume", "export", "status")
NOTE = "note"  # another command tells the running server what it did (`arena serve backup`)
NOTED = ("backup",)
EXIT_NO_SERVER = 3  # `arena serve ACTION CONFIG` when no server runs there
MAX_REQUEST = 4096
PATH_MAX = 100  # sun_path holds 108 bytes: a longer path is reached through its open folder
TIMEOUT_S = 120.0


class NoServer(RuntimeError):
    """No server answers at the directory's socket; the message says so in one line."""


@contextlib.contextmanager
def _address(directory: Path) -> Iterator[str]:
    """The socket's path, short enough for bind() and connect() (through /proc/self/fd when the folder is deep)."""
    path = str(directory / SOCKET_NAME)
    if len(path.encode()) <= PATH_MAX:
        yield path
        return
    folder = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        yield f"/proc/self/fd/{folder}/{SOCKET_NAME}"
    finally:
        os.close(folder)


def peer_uid(connection: socket.socket) -> int:
    """The user id of the process at the other end of a Unix socket, as the kernel says."""
    data = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return int(struct.unpack("3i", data)[1])


class _Handler(socketserver.StreamRequestHandler):
    """One request: checked for its sender, answered in one JSON line."""

    server: _Server

    def handle(self) -> None:
        """Read the request, answer it."""
        if peer_uid(self.request) not in (os.getuid(), 0):
            self._send({"ok": False, "message": "only the server's own user may command it"})
            return
        try:
            request = json.loads(self.rfile.readline(MAX_REQUEST))
            action = str(request["action"])
        except (ValueError, KeyError, TypeError):
            self._send({"ok": False, "message": "a request is one JSON line: {\"action\": ...}"})
            return
        if action == NOTE:
            self._send(note(request))
            return
        self._send(answer(self.server.contest, action))

    def _send(self, data: dict[str, Any]) -> None:
        self.wfile.write(json.dumps(data).encode() + b"\n")


class _Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, address: str, contest: Contest) -> None:
        self.contest = contest
        super().__init__(address, _Handler)


class ControlSocket:
    """The running server's end: listens on DIRECTORY/admin.sock until closed."""

    def __init__(self, contest: Contest) -> None:
        self.contest = contest
        self.path = contest.config.directory / SOCKET_NAME
        self.server: _Server | None = None

    def start(self) -> None:
        """Listen (a socket left by a killed server is replaced: the directory's lock is held)."""
        self.path.unlink(missing_ok=True)
        with _address(self.path.parent) as address:
            self.server = _Server(address, self.contest)
        os.chmod(self.path, 0o600)
        threading.Thread(target=self.server.serve_forever, name="arena-control", daemon=True).start()

    def close(self) -> None:
        """Stop listening and remove the socket."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None
        self.path.unlink(missing_ok=True)


def answer(contest: Contest, action: str) -> dict[str, Any]:
    """What the server says to one action."""
    from arena.server.web import actions

    if action == "status":
        data = status(contest)
        return {"ok": True, "message": status_line(data), "data": data}
    if action == "export":
        return {"ok": True, "message": "", "data": actions.export(contest)}
    if action not in ACTIONS:
        return {"ok": False, "message": f"unknown action {action!r} (one of {', '.join(ACTIONS)})"}
    done = actions.admin_action(contest, action, {})
    return {"ok": done.ok, "message": done.message}


def note(request: dict[str, Any]) -> dict[str, Any]:
    """Tell an event another command of the admin's did to this server's directory (a backup)."""
    event, message = str(request.get("event", "")), str(request.get("message", ""))[:1000]
    if event not in NOTED:
        return {"ok": False, "message": f"no such event to note: {event!r}"}
    tell(event, "%s", message)
    return {"ok": True, "message": ""}


def status(contest: Contest) -> dict[str, Any]:
    """The server's state for `arena serve status`."""
    from arena.server.engine.finals import finals_summary

    db, engine = contest.db, contest.engine
    data = {"contest": contest.config.tournament.name, "game": contest.config.game, "url": contest.url,
            "pid": os.getpid(), "uptime_s": round(time.time() - contest.started, 1),
            "directory": str(contest.config.directory), "frozen": db.setting("frozen") == "1",
            "paused": db.setting("paused") == "1", "finals": finals_summary(contest.config, db), **contest.queue()}
    if engine.error:
        data["error"] = engine.error
    return data


def status_line(data: dict[str, Any]) -> str:
    """The state in one line."""
    finals = data["finals"]
    progress = f" ({finals['played']} of {finals['total']} games)" if finals["state"] == "running" else ""
    line = (f"{data['contest']} ({data['game']}) on {data['url'] or '?'}, pid {data['pid']}: ladder "
            f"{'paused' if data['paused'] else 'playing'}, submissions {'closed' if data['frozen'] else 'open'}, "
            f"finals {finals['state']}{progress}; games {data['games_done']} done, {data['games_queued']} queued, "
            f"{data['games_running']} running; {data['versions_active']} active versions, "
            f"{data['builds_waiting']} waiting for a build")
    return line + (f"; the ladder stopped: {data['error']}" if "error" in data else "")


def ask(directory: Path, action: str, config: str = "CONFIG", **fields: str) -> dict[str, Any]:
    """Send one action to a directory's server (config: its file, as the hint names it); NoServer if none answers."""
    missing = NoServer(f"no server runs for {directory} (nothing answers at {directory / SOCKET_NAME}); "
                       f"start it with arena serve {config}")
    try:
        with _address(directory) as address, socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.settimeout(TIMEOUT_S)
            connection.connect(address)
            connection.sendall(json.dumps({"action": action, **fields}).encode() + b"\n")
            with connection.makefile("rb") as reply:
                line = reply.readline()
    except (FileNotFoundError, ConnectionRefusedError, NotADirectoryError):
        raise missing from None
    except OSError as exc:
        raise NoServer(f"cannot reach the server at {directory / SOCKET_NAME}: {exc.strerror or exc}") from None
    try:
        return dict(json.loads(line))
    except ValueError:
        raise NoServer(f"the server at {directory / SOCKET_NAME} ended without an answer") from None
