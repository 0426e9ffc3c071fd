"""Drivers of `arena play` as a person uses it: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pexpect

from arena.logs.matchlog import read_log
from tests.helpers import ROOT

ENV = {**os.environ, "NO_COLOR": "1", "PYTHONUTF8": "1", "TERM": "xterm"}
BLOCKING_END = r"(Human|random|sequential|maxblock) cannot choose free field\. (Human|random|sequential|maxblock) won\."


def play(*args: str, env: dict[str, str] | None = None) -> pexpect.spawn:
    """`arena play ARGS…` on a pseudo-terminal."""
    return pexpect.spawn(sys.executable, ["-m", "arena.cli", "play", *args], cwd=str(ROOT), env=env or ENV,
                         encoding="utf-8", timeout=30, dimensions=(60, 200))


def finish(child: pexpect.spawn) -> Path:
    """Wait for the end of the game; return the saved log's path (the command must exit 0)."""
    child.expect(r"log: (\S+)\r?\n")
    path = Path(child.match.group(1))
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return path if path.is_absolute() else ROOT / path


def replay_verify(path: Path) -> subprocess.CompletedProcess[str]:
    """`arena replay LOG --verify`, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", "replay", str(path), "--verify"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)


def kinds(path: Path) -> list[str]:
    """The kinds of a log's records (result excluded)."""
    return [r["kind"] for r in read_log(path).records]

