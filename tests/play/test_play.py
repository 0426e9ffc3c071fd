"""`arena play` driven as a person would: a pseudo-terminal (pexpect) running the real command."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

from arena.logs.matchlog import read_log
from tests.helpers import ROOT
from tests.play.drivers import BLOCKING_END, finish, play, replay_verify

# --- blocking: the seed's example session ------------------------------------------------


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
    child.expect(r"Human 1 \(a person, seat 0\) against Human 2 \(a person, seat 1\) "
                 r"against Human 3 \(a person, seat 2\)")
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
