"""`arena play tenten` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

from pathlib import Path

from arena.games import get_game
from arena.logs.matchlog import read_log
from arena.setups import complete_setup
from tests.play.drivers import BLOCKING_END, ENV, finish, kinds, play, replay_verify  # noqa: F401 - the shared drivers


def test_tenten_solo_drops_take_back_and_stop(tmp_path: Path) -> None:
    game = get_game("tenten")
    state = game.start(complete_setup(game, {}, 1, 4), 1, 4)[0]
    child = play("tenten", "--seed", "4", "--log", str(tmp_path / "tenten.msgpack"))
    child.expect("Drop \\(block column row\\):")
    child.sendline("0 99 99")
    child.expect("off the board")
    for _ in range(2):
        move = state.legal_moves()[0]
        child.expect("Drop \\(block column row\\):")
        child.sendline(" ".join(map(str, move)))
        state.apply(move)
        child.expect(r"You dropped block \d at column \d+, row \d+: \+\d+ points\.")
    child.expect("Drop")
    child.sendline("u")  # a solo game replays the standing drop: the same offer comes back
    child.expect("Taken back")
    child.expect("Drop")
    child.sendline("q")
    child.expect(r"Resign the game\? \[y/N\]")
    child.sendline("y")
    child.expect(r"Human resigned\.\r?\nGame over: score \d+\.")
    path = finish(child)
    assert len(read_log(path).moves) == 1 and kinds(path).count("undo") == 1
    assert replay_verify(path).returncode == 0

