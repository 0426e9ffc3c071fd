"""One server per state directory: a second `arena serve` of the same contest is refused, the first serves on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.server.server import make_server


def test_a_second_server_on_the_same_directory_is_refused_and_the_first_serves_on(tmp_path: Path) -> None:
    first = make_server(tmp_path)
    first.start()
    try:
        token = first.admin
        assert first.process is not None
        second = subprocess.run([sys.executable, "-m", "arena.cli", "serve", str(first.config), "--port", "0"],
                                cwd=tmp_path, capture_output=True, text=True, timeout=60, check=False)
        assert second.returncode == 2
        assert second.stderr == f"arena serve: error: {first.state} is in use by pid {first.process.pid}\n"
        assert first.admin == token  # its token, database and keys untouched
        assert first.get("/health").json()["ok"]
    finally:
        first.stop()
