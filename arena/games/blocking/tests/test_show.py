"""The seed's example game through `arena match --show`: drawn as `arena play` draws it, and verified."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.helpers import FIXTURES, ROOT

from .test_rules import SEED_PICTURES


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120)


def scripted(moves: str) -> str:
    """A bot that plays the given moves."""
    return f"exec:{sys.executable} -m protocol.run {FIXTURES / 'scripted.py'} -o moves={moves}"


def test_seed_example_game_with_show(tmp_path: Path) -> None:
    log = tmp_path / "seed.msgpack"
    out = arena("match", "blocking", scripted("[[1,1],[1,4],[4,2]]"), scripted("[[4,5],[4,0]]"),
                "--set", "rows=5", "--set", "cols=6", "--show", "--log", str(log), "--seed", "1")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for picture in SEED_PICTURES:  # drawn with coordinates along the edges, as `arena play` draws it
        rows = picture.split("\n")
        assert "  012345\n" + "\n".join(f"{r} {row}" for r, row in enumerate(rows)) in text
    assert "chose row 4 and column 5" in text
    assert "wins; reason blocked" in text
    assert "(seat 0) wins" in text
    verify = arena("replay", str(log), "--verify")
    assert verify.returncode == 0 and verify.stdout.startswith("OK")

