"""`arena play tiles` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

from pathlib import Path

from arena.logs.matchlog import read_log
from tests.play.drivers import BLOCKING_END, ENV, finish, kinds, play, replay_verify  # noqa: F401 - the shared drivers


def test_tiles_colours_refusal_take_back_and_resign(tmp_path: Path) -> None:
    env = {k: v for k, v in ENV.items() if k != "NO_COLOR"}
    child = play("tiles", "--vs", "greedy", "--seed", "3", "--budget-ms", "10000",
                 "--log", str(tmp_path / "tiles.msgpack"), env=env)
    child.expect("Your move")
    assert "\x1b[" in child.before  # a terminal without NO_COLOR gets colours
    child.sendline("7 q")
    child.expect(r"Moves now: (\d) ([gb])")
    first = f"{child.match.group(1)} {child.match.group(2)}"
    child.expect("Your move")
    child.sendline(first)
    child.expect(r"took \d+ \w+ tiles? from plate \d into row \d\.")  # after the coloured name
    child.expect("Your move")
    child.sendline("u")
    child.expect("Taken back")
    child.expect("Your move")
    child.sendline("q")
    child.expect(r"Resign the game\? \[y/N\]")
    child.sendline("y")
    child.expect(r"resigned\.")
    path = finish(child)
    assert kinds(path).count("undo") == 1 and read_log(path).moves == []
    assert replay_verify(path).returncode == 0

