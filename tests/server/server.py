"""A real contest server for the tests: `arena serve` as a subprocess on a free port of 127.0.0.1."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.helpers import ROOT, free_port

CONFIG = """name = "class"
game = "blocking"
seed = 11
references = ["random", "maxblock", "perfect"]
[setups]
fixed = {{ rows = 5, cols = 6 }}
[clock]
budget_ms = 3000
[server]
workers = 1
trusted_proxies = ["127.0.0.1"]
[ladder]
placement_games = 4
validation_games = 2
max_games = {max_games}
build_timeout_s = {build_timeout}
[uploads]
max_bytes = 200000
max_files = 20
max_unpacked_bytes = 400000
per_hour = {per_hour}
[finals]
games_per_pairing = 2
"""


def wait_for(check: Callable[[], Any], timeout: float, what: str, every: float = 0.2) -> Any:
    """Poll check() until it returns something true, up to timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(every)


@dataclass
class Server:
    """A running server, its directory and the tokens of its entrants."""

    directory: Path
    config: Path
    process: subprocess.Popen[str] | None = None
    url: str = ""
    tokens: dict[str, str] = field(default_factory=dict)
    output: list[str] = field(default_factory=list)

    @property
    def state(self) -> Path:
        """The server's own directory (database, submissions, ladder, finals)."""
        return self.directory / "class-server"

    @property
    def admin(self) -> str:
        """The admin token."""
        return (self.state / "admin.token").read_text().strip()

    def add(self, *names: str) -> None:
        """Register entrants with `arena entrants add`."""
        done = subprocess.run([sys.executable, "-m", "arena.cli", "entrants", "add", str(self.config), *names],
                              capture_output=True, text=True, cwd=self.directory, check=True, timeout=60)
        for line in done.stdout.splitlines():
            name, token = line.split("\t")
            self.tokens[name] = token

    def start(self, options: list[str] | None = None) -> None:
        """Start `arena serve` (with extra options) and wait until it listens."""
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "serve", str(self.config), "--port", "0", *(options or [])],
            cwd=self.directory, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
            start_new_session=True)
        assert self.process.stdout is not None
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                raise AssertionError("arena serve ended before listening:\n" + "".join(self.output))
            self.output.append(line)
            found = re.search(r"running on (http://127\.0\.0\.1:\d+)", line)
            if found:
                self.url = found.group(1)
                break
        else:
            raise AssertionError("arena serve did not listen within 60 s")
        import threading

        threading.Thread(target=self._drain, daemon=True).start()
        # The line comes before the application's start-up, which starts the engine (its ladder key,
        # its folders): the first answer comes after it, so a test sees the directory as it serves.
        try:
            self.get("/health")
        except httpx.HTTPError as exc:
            raise AssertionError(f"arena serve did not answer: {exc}\n" + "".join(self.output)) from None

    def _drain(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        """Stop the server (SIGTERM: gracefully; SIGKILL: as a crash would) and its whole group."""
        assert self.process is not None
        if sig == signal.SIGKILL:
            os.killpg(self.process.pid, signal.SIGKILL)
        else:
            self.process.send_signal(sig)
        try:
            code = self.process.wait(timeout=60)
        finally:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)  # whatever is left of the group
            except ProcessLookupError:
                pass
        return code

    def restart_playing_more(self, max_games: int = 60) -> None:
        """Stop, let every version play up to max_games, start: every bot process starts afresh and plays again.

        Games are fast: a version may have reached the ladder's max_games before the test changed
        its folder, and would then never play (nor fail) again.
        """
        self.stop()
        self.process = None
        self.config.write_text(re.sub(r"max_games = \d+", f"max_games = {max_games}", self.config.read_text()))
        self.start()

    def client(self, token: str | None = None) -> httpx.Client:
        """An HTTP client, with the bearer token when given."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(base_url=self.url, headers=headers, timeout=60)

    def submit(self, entrant: str, filename: str, data: bytes) -> httpx.Response:
        """POST /api/submissions as entrant."""
        with self.client(self.tokens[entrant]) as client:
            return client.post("/api/submissions", files={"file": (filename, data)})

    def submission(self, entrant: str, number: int) -> dict[str, Any]:
        """GET /api/submissions/ID as entrant."""
        with self.client(self.tokens[entrant]) as client:
            answer = client.get(f"/api/submissions/{number}")
            answer.raise_for_status()
            return answer.json()

    def settled(self, entrant: str, number: int, timeout: float = 180) -> dict[str, Any]:
        """The submission once its build and validation are over."""
        return wait_for(lambda: (lambda s: s if s["status"] not in ("queued", "building", "validating") else None)(
            self.submission(entrant, number)), timeout, f"submission {number} to be built and validated")

    def get(self, path: str, token: str | None = None) -> httpx.Response:
        """A GET as anyone (or with a token)."""
        with self.client(token) as client:
            return client.get(path)


def make_server(directory: Path, max_games: int = 30, build_timeout: int = 30, per_hour: int = 20,
                remote: bool = False) -> Server:
    """A server config in directory (not started); remote: entrants may register keys (a listener on a free port)."""
    config = directory / "contest.toml"
    text = CONFIG.format(max_games=max_games, build_timeout=build_timeout, per_hour=per_hour)
    if remote:
        text += f'[remote]\nallowed = true\nlisten = "tcp://127.0.0.1:{free_port()}"\n'
    config.write_text(text)
    return Server(directory, config)


__all__ = ["ROOT", "Server", "make_server", "wait_for"]
