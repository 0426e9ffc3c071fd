"""`arena play arrows` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

from pathlib import Path

from arena.games import State, get_game
from arena.kit.terminal import Terminal
from arena.logs.matchlog import read_log
from arena.setups import load_setup_file
from tests.play.drivers import BLOCKING_END, ENV, finish, kinds, play, replay_verify  # noqa: F401 - the shared drivers

from ..rules import ArrowsState
from ..view import ArrowsView

CONTEST = Path(__file__).resolve().parents[1] / "setups" / "arrows-contest.dat"


def safe_direction(state: ArrowsState, nth: int = 0) -> int:
    """A direction whose next target is free (the UI's own `safe` list), else north."""
    safe = ArrowsView(get_game("arrows"), Terminal(False), ["Human", "Computer"], [1]).safe_directions(state)
    return safe[nth % len(safe)] if safe else 0


def test_arrows_contest_board_person_second_two_take_backs_verified_log(tmp_path: Path) -> None:
    setup = load_setup_file(CONTEST, get_game("arrows"))
    state = get_game("arrows").start(setup, 2, 5)[0]
    assert isinstance(state, ArrowsState)
    history: list[State] = [state.copy()]  # positions the person can return to (after each ply)
    child = play("arrows", "--setup", str(CONTEST), "--first", "bot", "--vs", "greedy", "--seed", "5",
                 "--budget-ms", "10000", "--log", str(tmp_path / "arrows.msgpack"))
    child.expect(r"Human \(you, seat 1\)")
    undos, typed, refused = 0, 0, False  # typed: moves the person typed, taken back or not
    announce = r"greedy put an arrow on \[(\d+), (\d+)\] pointing \S+ ([A-Z]+) \((\d)\)\."
    while True:
        index = child.expect([announce, r"Direction \(0-7", r"is blocked: its head .*\r?\n(\w+) won\."])
        if index == 0:
            x, y, _name, d = child.match.groups()
            assert state.cell(state.target(0)) == [int(x), int(y)]
            state.apply(int(d))
            history.append(state.copy())
        elif index == 1 and not refused:
            child.sendline("9")
            child.expect("A direction is 0-7")
            refused = True
        elif index == 1 and (typed, undos) in ((2, 0), (4, 1)):
            child.sendline("u")
            child.expect("Taken back: ")
            # Back to before the person's last move: the computer's reply goes too.
            del history[-2:]
            state = history[-1].copy()
            assert isinstance(state, ArrowsState)
            undos += 1
        elif index == 1:
            d = safe_direction(state, typed)
            # Type it once by name, otherwise by number.
            child.sendline(["N", "NE", "E", "SE", "S", "SW", "W", "NW"][d] if typed == 1 else str(d))
            state.apply(d)
            history.append(state.copy())
            typed += 1
        else:
            break
    assert undos == 2
    path = finish(child)
    log = read_log(path)
    assert [m["move"] for m in log.moves] == state.moves
    assert log.header["setup"] == setup
    # The computer moves first: back to ply 3 (before the person's 2nd move), then to ply 5 (its 3rd).
    assert [r["ply"] for r in log.records if r["kind"] == "undo"] == [3, 5]
    assert log.result is not None and log.result["reason"] == "blocked"
    out = replay_verify(path)
    assert out.returncode == 0 and out.stdout.startswith("OK"), out.stdout


def test_arrows_end_of_input_resigns_with_255(tmp_path: Path) -> None:
    child = play("arrows", "--setup", str(CONTEST), "--vs", "random", "--seed", "2", "--budget-ms", "10000",
                 "--log", str(tmp_path / "eof.msgpack"))
    child.expect(r"Direction \(0-7")
    child.sendeof()
    child.expect(r"Human resigned\.\r?\nrandom won\.")
    path = finish(child)
    log = read_log(path)
    assert [m["move"] for m in log.moves] == [255]
    assert log.result is not None and (log.result["reason"], log.result["offender"]) == ("resigned", 0)
    assert replay_verify(path).returncode == 0

