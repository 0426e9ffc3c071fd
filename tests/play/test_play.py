"""`arena play` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

from arena.games import State, get_game
from arena.games.arrows.rules import ArrowsState
from arena.games.blocking.rules import BlockingState
from arena.logs.matchlog import read_log
from arena.play.ui import ArrowsView, Terminal
from arena.setups import complete_setup, load_setup_file
from tests.helpers import ROOT

CONTEST = ROOT / "configs" / "setups" / "arrows-contest.dat"
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


# --- blocking: the seed's example session ------------------------------------------------


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


def test_log_of_a_person_without_clock_verifies(tmp_path: Path) -> None:
    # By default the person's seat has a week on its clock and the bot its normal 10 s.
    child = play("blocking", "--vs", "random", "--set", "rows=1", "--set", "cols=3", "--seed", "1",
                 "--log", str(tmp_path / "clock.msgpack"))
    child.expect("Choose row:")
    child.sendline("0 1")  # the middle field blocks the whole board
    child.expect(BLOCKING_END)
    path = finish(child)
    assert read_log(path).header["seat_clocks"][0]["budget_ms"] > 10**8
    out = replay_verify(path)
    assert out.returncode == 0, out.stdout


# --- arrows: the contest's board, person second, two take-backs ----------------------------


def safe_direction(state: ArrowsState, nth: int = 0) -> int:
    """A direction whose next target is free (the UI's own `safe` list), else north."""
    safe = ArrowsView(Terminal(False), ["Human", "Computer"], [1]).safe_directions(state)
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


# --- watching two bots, and one short game of every other game -----------------------------


def test_watch_two_bots_plain_output_when_not_a_terminal(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-m", "arena.cli", "play", "blocking", "--watch", "random", "maxblock",
                          "--delay-ms", "1", "--set", "rows=4", "--set", "cols=5", "--seed", "3",
                          "--log", str(tmp_path / "watch.msgpack")],
                         capture_output=True, text=True, cwd=ROOT, timeout=60, env={**os.environ, "TERM": "xterm"},
                         check=False)
    assert out.returncode == 0, out.stderr
    assert "random chose row" in out.stdout and "maxblock chose row" in out.stdout
    assert re.search(BLOCKING_END, out.stdout)
    assert "\x1b[" not in out.stdout  # piped output is plain text
    assert replay_verify(tmp_path / "watch.msgpack").returncode == 0


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


def test_bad_command_lines_are_one_line_errors() -> None:
    for args, message in [(["nosuch"], "unknown game"), (["tenten", "--vs", "random"], "one-player game"),
                          (["blocking", "--vs", "nobody"], "unknown bot"),
                          (["blocking", "--watch", "random"], "players must be 2")]:
        out = subprocess.run([sys.executable, "-m", "arena.cli", "play", *args], capture_output=True, text=True,
                             cwd=ROOT, timeout=60, check=False)
        assert out.returncode == 2 and message in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr


# --- the hot seat: several people at one terminal ----------------------------------------


def test_two_people_piped_blocking_the_first_wins_and_the_log_verifies(tmp_path: Path) -> None:
    log = tmp_path / "hot.msgpack"
    out = subprocess.run([sys.executable, "-m", "arena.cli", "play", "blocking", "--vs", "human", "--set", "rows=1",
                          "--set", "cols=3", "--log", str(log)], input="0 1\n", capture_output=True, text=True,
                         cwd=ROOT, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert "Human 1 (you" not in out.stdout and "Human 1 (a person, seat 0) against Human 2 (a person, seat 1)" \
        in out.stdout
    assert "Human 1 to move." in out.stdout and "Human 2 cannot choose free field. Human 1 won." in out.stdout
    assert read_log(log).result["ranks"] == [1, 2]
    assert replay_verify(log).returncode == 0


def test_three_people_play_blocky_to_the_end_and_take_back(tmp_path: Path) -> None:
    child = play("blocky", "--vs", "human", "--vs", "human", "--seed", "6", "--set", "turns=2",
                 "--log", str(tmp_path / "blocky.msgpack"))
    child.expect(r"Human 1 \(a person, seat 0\) against Human 2 \(a person, seat 1\) against Human 3 \(a person, seat 2\)")
    movers, undone = [], False
    while True:
        index = child.expect([r"(Human \d) to move\.", r"log: (\S+)\r?\n"])
        if index == 1:
            break
        movers.append(child.match.group(1))
        child.expect("Your move")
        if len(movers) == 3 and not undone:
            child.sendline("u")  # Human 3 takes back Human 2's move: Human 2 moves again
            child.expect("Taken back: ")
            undone = True
            continue
        child.sendline("pass")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert movers[:4] == ["Human 1", "Human 2", "Human 3", "Human 2"]
    assert len(movers) == 3 * 2 + 2  # two rounds of three, plus the take-back's two prompts
    log = tmp_path / "blocky.msgpack"
    assert [r["kind"] for r in read_log(log).records].count("undo") == 1
    assert replay_verify(log).returncode == 0


def test_the_prompt_has_line_editing_at_a_terminal(tmp_path: Path) -> None:
    # Typed "1", then Left, then "0 ": with readline the line is "0 1", a legal move on 1 x 3.
    child = play("blocking", "--vs", "human", "--set", "rows=1", "--set", "cols=3", "--log",
                 str(tmp_path / "edit.msgpack"))
    child.expect("Choose row")
    child.send("1")
    child.send("\x1b[D")
    child.send("0 \r")
    child.expect("Human 2 cannot choose free field. Human 1 won.")
    finish(child)
