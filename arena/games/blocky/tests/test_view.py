"""`arena play blocky` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

from pathlib import Path

from arena.logs.matchlog import read_log
from tests.play.drivers import BLOCKING_END, ENV, finish, kinds, play, replay_verify  # noqa: F401 - the shared drivers


def test_blocky_refusals_then_pass_and_resign(tmp_path: Path) -> None:
    child = play("blocky", "--vs", "random", "--seed", "6", "--budget-ms", "10000",
                 "--log", str(tmp_path / "blocky.msgpack"))
    child.expect("Your move \\(e.g.")
    child.sendline("twirl 0")
    child.expect("is not a move")
    child.sendline("paint 99,0 1")
    child.expect("off the board")
    child.sendline("pass")
    child.expect("random played")
    child.expect("Your move")
    child.sendline("u")
    child.expect("Taking back is not possible in blocky against bots")
    child.sendline("q")
    child.expect(r"Resign the game\? \[y/N\]")
    child.sendline("y")
    child.expect(r"Human resigned\.")
    path = finish(child)
    assert read_log(path).moves[0]["move"] == ["pass"]
    assert replay_verify(path).returncode == 0

