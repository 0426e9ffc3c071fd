"""The contest's board as a binary and as a text file of pairs: the same match, record for record."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from arena.logs.matchlog import read_log
from tests.helpers import ROOT

SETUPS = Path(__file__).resolve().parents[1] / "setups"


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=180)


def test_arrows_binary_and_text_pairs_give_identical_logs(tmp_path: Path) -> None:
    logs = []
    for name in ("arrows-contest.dat", "arrows-contest.txt"):
        path = tmp_path / f"{name}.msgpack"
        out = arena("match", "arrows", "greedy", "random", "--setup", str(SETUPS / name), "--seed", "9",
                    "--log", str(path))
        assert out.returncode == 0, out.stderr
        logs.append(read_log(path))
    strip = ("time_ms", "clocks", "clock", "started", "time_used_ms", "duration_s")

    def timeless(records: list[dict]) -> list[dict]:
        return [{k: v for k, v in r.items() if k not in strip} for r in records]

    assert timeless([logs[0].header]) == timeless([logs[1].header])
    assert timeless(logs[0].records) == timeless(logs[1].records)
    assert timeless([logs[0].result]) == timeless([logs[1].result])

