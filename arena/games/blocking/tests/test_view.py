"""`arena play blocking` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

from pathlib import Path

from arena.games import get_game
from arena.logs.matchlog import read_log
from tests.play.drivers import BLOCKING_END, ENV, finish, kinds, play, replay_verify  # noqa: F401 - the shared drivers

from ..rules import BlockingState


def test_blocking_seed_session_refuses_bad_cells_and_plays_to_the_end(tmp_path: Path) -> None:
    # The seed: 5 x 6, Human first against the random strategy; invalid cells are refused.
    child = play("blocking", "--vs", "random", "--set", "rows=5", "--set", "cols=6", "--seed", "11",
                 "--log", str(tmp_path / "seed.msgpack"))
    state = get_game("blocking").start({"rows": 5, "cols": 6}, 2, 11)[0]
    assert isinstance(state, BlockingState)
    child.expect("Choose row:")
    child.sendline("7")  # off the board
    child.expect("Row 7 is off the board")
    child.expect("Choose row:")
    child.sendline("?")
    child.expect("Blocking on a 5 x 6 board")
    child.expect("Choose row:")
    child.sendline("1")
    child.expect("Choose column:")
    child.sendline("9")  # off the board
    child.expect("Column 9 is off the board")
    child.expect("Choose column:")
    child.sendline("1")
    state.apply([1, 1])
    child.expect(r"XXX---\r?\n")  # the seed's first picture: the field and its neighbours blocked
    tried_blocked, computer_moves = False, 0
    while True:
        index = child.expect([r"random chose row (\d+) and column (\d+)\.", "Choose row:", BLOCKING_END])
        if index == 0:
            state.apply([int(child.match.group(1)), int(child.match.group(2))])
            computer_moves += 1
        elif index == 1 and not tried_blocked:
            child.sendline("1")  # row 1, column 1 is blocked since the first move
            child.expect("Choose column:")
            child.sendline("1")
            child.expect("already blocked")
            tried_blocked = True
        elif index == 1:
            row, col = state.legal_moves()[0]
            child.sendline(str(row))
            child.expect("Choose column:")
            child.sendline(str(col))
            state.apply([row, col])
        else:
            loser, winner = child.match.group(1), child.match.group(2)
            break
    assert tried_blocked and computer_moves >= 1
    assert state.is_over() and {loser, winner} == {"Human", "random"}
    path = finish(child)
    log = read_log(path)
    assert log.result is not None and log.result["reason"] == "blocked"
    assert len(log.moves) == state.ply
    assert log.result["ranks"] == ([1, 2] if winner == "Human" else [2, 1])


def test_blocking_take_back_and_resign(tmp_path: Path) -> None:
    # Equal clocks (the bot's 10 s): the log verifies with or without per-seat clock support.
    child = play("blocking", "--vs", "sequential", "--set", "rows=4", "--set", "cols=7", "--seed", "1",
                 "--budget-ms", "10000", "--log", str(tmp_path / "undo.msgpack"))
    child.expect("Choose row:")
    child.sendline("u")
    child.expect("Nothing to take back yet")
    child.expect("Choose row:")
    child.sendline("0 6")  # row and column at once
    child.expect(r"sequential chose row 0 and column 0\.")  # sequential: the first free field
    child.expect("Choose row:")
    child.sendline("u")
    child.expect(r"Taken back: Human row 0 and column 6, sequential row 0 and column 0\.")
    child.expect(r"\r\n0 -------\r\n")  # the empty board again
    child.expect("Choose row:")
    child.sendline("3 3")
    child.expect(r"sequential chose row 0 and column 0\.")
    child.expect("Choose row:")
    child.sendline("q")
    child.expect(r"Resign the game\? \[y/N\]")
    child.sendline("y")
    child.expect(r"Human resigned\.\r?\nsequential won\.")
    path = finish(child)
    log = read_log(path)
    assert [m["move"] for m in log.moves] == [[3, 3], [0, 0]]
    assert kinds(path).count("undo") == 1
    assert log.result is not None and log.result["offender"] == 0 and log.result["ranks"] == [2, 1]
    out = replay_verify(path)
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stdout

