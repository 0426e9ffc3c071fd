"""A bot process's end: waited for on its pidfd, its output read meanwhile."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from arena.launch.processes.process import BotProcess
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import parse_bot_spec


def started(tmp_path: Path, source: str) -> BotProcess:
    script = tmp_path / "bot.py"
    script.write_text(source)
    process = BotProcess(parse_bot_spec(f"stdio:{sys.executable} {script}", "blocking"), "", "", stdio=True,
                         sandbox=Sandbox.NONE)
    process.start()
    return process


def test_a_bot_that_writes_much_on_its_way_out_is_read_while_waited_for(tmp_path: Path) -> None:
    # 1 MiB on stderr fills the pipe many times over: unread, the bot would never get to exit.
    process = started(tmp_path, "import sys\nsys.stderr.write('x' * (1 << 20) + 'last words')\nsys.exit(3)\n")
    try:
        assert process.wait_exit(30)
        assert process.poll() == 3 and process.output.text().endswith("last words")
    finally:
        process.kill()


def test_waiting_ends_when_the_bot_does_or_at_the_deadline(tmp_path: Path) -> None:
    process = started(tmp_path, "import sys\nsys.stdin.readline()\n")  # ends when its input closes
    try:
        began = time.monotonic()
        assert not process.wait_exit(0.3)
        assert 0.3 <= time.monotonic() - began < 2.0
        assert process.proc is not None and process.proc.stdin is not None
        process.proc.stdin.close()
        began = time.monotonic()
        assert process.wait_exit(30) and process.poll() == 0
        assert time.monotonic() - began < 5.0
    finally:
        process.kill()
