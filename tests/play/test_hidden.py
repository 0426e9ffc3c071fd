"""`arena play` of a game of hidden information, as people play it: Goofspiel on a pseudo-terminal.

A person against a bot is shown their own seat's view and nothing else: at every prompt the
screen holds the board of the view their seat was sent (rebuilt here from the log's `sent`
records), never the referee's position (which Goofspiel's view prints with the order of the
prizes to come, as `--watch` shows a spectator), and never the bot's bid of the round being
played, the rounds where the referee asked the bot first included. Two people at one terminal
hand the keyboard over between their turns: the screen is cleared, says who is next, waits for
Enter, and shows each only their own view. `arena replay --bot` re-runs a seat of such a log
on what that seat was sent, and exits 1 at a move that differs from the log.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

from arena.games import get_game
from arena.games.base import turn_order_rng
from arena.games.seats import SeatView
from arena.kit.terminal import CLEAR, Terminal
from arena.kit.views import view_for
from arena.logs.matchlog import MatchLog, read_log
from tests.helpers import ROOT
from tests.play.drivers import finish, play, replay_verify
from tests.viewer.test_rerun import PEEKER

WHOLE_TRUTH = "prizes to come, in order"  # a line of Goofspiel's board that only the referee's position has
PROMPT = "Your bid (a card of your hand): "
HAND_OVER = r"Hand the keyboard over to (Human \d), then press Enter\. "


def seen_boards(log: MatchLog, seat: int, names: list[str], humans: list[int]) -> list[str]:
    """The board of the seat's view at each of its turns, from what the log says the seat was sent."""
    game = get_game("goofspiel")
    with open(os.devnull, "w") as nowhere:
        view = view_for("goofspiel", Terminal(False, nowhere), names, humans)
    sent = [r for r in log.records if r["kind"] == "sent" and r["seat"] == seat]
    seat_view = SeatView(seat, game.start_view(sent[0]["setup"], len(names), seat))
    own = {r["ply"]: r["move"] for r in log.moves if r["seat"] == seat}
    boards = []
    for record in sent[1:]:
        for event in record["events"]:
            seat_view.see(event)
        if record.get("end"):
            break
        boards.append(view.board(seat_view.state))
        seat_view.play(seat, own[record["ply"]])
    return boards


def asked(seed: int, ply: int) -> list[int]:
    """The order in which the referee asks a turn's two movers (arena/match/referee.py draws it so)."""
    order = [0, 1]
    turn_order_rng(seed, ply).shuffle(order)
    return order


def recorded(child: pexpect.spawn) -> io.StringIO:
    """Keep everything the command writes to the terminal."""
    transcript = io.StringIO()
    child.logfile_read = transcript
    return transcript


def test_a_person_against_a_bot_sees_only_their_own_view(tmp_path: Path) -> None:
    cards, seed = 5, 21
    # The referee asks a simultaneous turn's movers in an order drawn from the seed: in some rounds
    # the bot (seat 1) is asked first, its bid in before the person is asked for theirs.
    first = [asked(seed, ply)[0] for ply in range(1, cards + 1)]
    assert 0 in first and 1 in first, first
    child = play("goofspiel", "--vs", "random", "--set", f"cards={cards}", "--seed", str(seed),
                 "--log", str(tmp_path / "goof.msgpack"))
    transcript = recorded(child)
    for bid in range(cards, 0, -1):
        child.expect_exact(PROMPT)
        child.sendline(str(bid))
    log = read_log(finish(child))
    assert log.result is not None and log.result["plies"] == cards and log.header["seats"][0]["name"] == "Human"
    assert replay_verify(tmp_path / "goof.msgpack").returncode == 0
    text = transcript.getvalue().replace("\r\n", "\n")
    assert WHOLE_TRUTH not in text  # never the referee's position
    screens = re.split(re.escape(PROMPT) + r"\d\n", text)  # what was shown before each prompt, and the end
    boards = seen_boards(log, 0, ["Human", "random"], [0])
    assert len(screens) == cards + 1 and len(boards) == cards
    bids = {r["ply"]: r["move"] for r in log.moves if r["seat"] == 1}
    for ply, (screen, board) in enumerate(zip(screens, boards), 1):
        shown = screen.rstrip(PROMPT).rstrip("\n")
        assert shown.endswith(board), (ply, shown, board)  # the view the seat was sent, as it was sent
        told = re.findall(r"random bid (\d+)", shown)
        assert told == ([] if ply == 1 else [str(bids[ply - 1])])  # the last round's bid, never this one's
    assert "Draw" in screens[-1] or " won." in screens[-1]


def test_a_take_back_is_refused_in_a_game_of_hidden_information(tmp_path: Path) -> None:
    child = play("goofspiel", "--vs", "random", "--set", "cards=2", "--seed", "3", "--log",
                 str(tmp_path / "u.msgpack"))
    child.expect_exact("Commands: ? help, q resign (Ctrl-D too); no take-backs in a game of hidden information.")
    child.expect_exact(PROMPT)
    assert "take back" not in (child.before or "")
    child.sendline("2")
    child.expect_exact(PROMPT)
    child.sendline("u")
    child.expect("Taking back is not possible in goofspiel: a move played again would be played knowing "
                 "what the one taken back revealed.")
    child.expect_exact(PROMPT)
    child.sendline("1")
    assert replay_verify(finish(child)).returncode == 0


def test_the_spectator_of_two_bots_sees_the_whole_truth(tmp_path: Path) -> None:
    # The control: the same game's view, given the referee's position, prints what a person is never shown.
    out = subprocess.run([sys.executable, "-m", "arena.cli", "play", "goofspiel", "--watch", "random", "random",
                          "--set", "cards=4", "--seed", "21", "--delay-ms", "0", "--log", str(tmp_path / "w.msgpack")],
                         capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count(WHOLE_TRUTH) == 5 and out.stdout.count("last round: ") == 4
    assert replay_verify(tmp_path / "w.msgpack").returncode == 0


def test_two_people_hand_the_keyboard_over_and_each_sees_only_their_own_view(tmp_path: Path) -> None:
    cards, seed = 3, 8
    child = play("goofspiel", "--vs", "human", "--set", f"cards={cards}", "--seed", str(seed), "--log",
                 str(tmp_path / "hot.msgpack"))
    transcript = recorded(child)
    bids = {"Human 1": [3, 1, 2], "Human 2": [2, 3, 1]}
    at_keyboard, handed = None, []
    for _ in range(2 * cards):
        index = child.expect([HAND_OVER, re.escape(PROMPT)])
        if index == 0:
            at_keyboard = child.match.group(1)
            handed.append(at_keyboard)
            child.sendline("")
            child.expect_exact(PROMPT)
        assert at_keyboard is not None
        child.sendline(str(bids[at_keyboard].pop(0)))
    log = read_log(finish(child))
    assert log.result is not None and log.result["plies"] == cards
    assert replay_verify(tmp_path / "hot.msgpack").returncode == 0
    text = transcript.getvalue().replace("\r\n", "\n")
    assert WHOLE_TRUTH not in text
    # The movers were asked in the referee's order, drawn afresh each round: a hand-over each time
    # the mover changed.
    order = [seat for ply in range(1, cards + 1) for seat in asked(seed, ply)]
    assert handed == [f"Human {seat + 1}" for i, seat in enumerate(order) if i == 0 or order[i - 1] != seat]
    screens = re.split(re.escape(PROMPT) + r"\d\n", text)
    assert len(screens) == 2 * cards + 1
    played = [[r["move"] for r in log.moves if r["ply"] == ply] for ply in range(1, cards + 1)]
    boards = {seat: seen_boards(log, seat, ["Human 1", "Human 2"], [0, 1]) for seat in (0, 1)}
    for i, (seat, screen) in enumerate(zip(order, screens)):
        if i:
            assert CLEAR in screen  # the person before has moved: their screen is gone
        now = screen.split(CLEAR)[-1].rstrip(PROMPT).rstrip("\n")  # what the person at the keyboard sees
        assert now.endswith(boards[seat][i // 2]), (i, now)  # their own view, as their seat was sent it
        told = re.findall(r"last round: Human 1 bid (\d+), Human 2 bid (\d+)", now)
        assert told == ([] if i < 2 else [tuple(map(str, played[i // 2 - 1]))]), (i, now)  # never this round's


def test_resigning_after_the_bot_has_bid_leaves_a_log_that_verifies(tmp_path: Path) -> None:
    seed = 3
    assert asked(seed, 1)[0] == 1  # the bot's bid of the first round is in when the person resigns
    child = play("goofspiel", "--vs", "random", "--set", "cards=3", "--seed", str(seed), "--log",
                 str(tmp_path / "q.msgpack"))
    child.expect_exact(PROMPT)
    child.sendline("q")
    child.expect_exact("Resign the game? [y/N] ")
    child.sendline("y")
    child.expect("Human resigned.")
    log = read_log(finish(child))
    assert [r["kind"] for r in log.records if r["kind"] in ("move", "resign")] == ["move", "resign"]
    assert log.result is not None and log.result["reason"] == "resigned" and log.result["offender"] == 0
    done = replay_verify(tmp_path / "q.msgpack")
    assert done.returncode == 0 and "warning" not in (child.before or ""), done.stdout


def replay(path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`arena replay LOG ARGS…`, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "arena.cli", "replay", str(path), *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=120, check=False)


def test_a_seat_of_a_game_played_at_the_terminal_is_replayed_from_its_own_view(tmp_path: Path) -> None:
    # PEEKER bids the middle card of its hand, unless it was shown the deck or the person's bid of the round.
    cards, seed = 4, 21
    assert {asked(seed, ply)[0] for ply in range(1, cards + 1)} == {0, 1}  # the bot is asked second in some rounds
    folder = tmp_path / "peeker"
    folder.mkdir()
    folder.chmod(0o755)  # the bot runs in the sandbox: its folder open to the bot's own uid
    peeker = folder / "peeker.py"
    peeker.write_text(PEEKER)
    peeker.chmod(0o644)
    child = play("goofspiel", "--vs", str(peeker), "--set", f"cards={cards}", "--set", "deck=[3, 1, 4, 2]",
                 "--seed", str(seed), "--log", str(tmp_path / "p.msgpack"))
    for bid in range(cards, 0, -1):
        child.expect_exact(PROMPT)
        child.sendline(str(bid))
    log = read_log(finish(child))
    assert log.header["setup"]["deck"] == [3, 1, 4, 2]
    assert [r["move"] for r in log.moves if r["seat"] == 1] == [3, 2, 4, 1]  # never shown the deck or a bid early
    path = tmp_path / "p.msgpack"
    same = replay(path, "--bot", "1")  # the logged bot, sent what its seat was sent
    assert same.returncode == 0 and f"OK all {cards} moves of seat 1 agree with the log" in same.stdout, same.stdout
    other = replay(path, "--bot", "1=random")
    assert other.returncode == 1 and "DIFFERS ply " in other.stdout, other.stdout
    person = replay(path, "--bot", "0=" + str(peeker))  # the person bid 4 first; the peeker bids 3
    assert person.returncode == 1 and "DIFFERS ply 1: the bot plays 3, the log has 4" in person.stdout, person.stdout
    nobody = replay(path, "--bot", "0")  # a person's seat names no bot to start
    assert nobody.returncode == 2 and len(nobody.stderr.splitlines()) == 1, nobody.stderr
    assert "seat 0 was played by 'human (terminal)', not a bot that can be re-run" in nobody.stderr


def test_a_person_who_leaves_at_the_hand_over_resigns_and_the_log_verifies(tmp_path: Path) -> None:
    seed = 8
    assert asked(seed, 1) == [0, 1]  # Human 1 bids first; Human 2 leaves when handed the keyboard
    child = play("goofspiel", "--vs", "human", "--set", "cards=3", "--seed", str(seed), "--log",
                 str(tmp_path / "left.msgpack"))
    child.expect(HAND_OVER)
    assert child.match.group(1) == "Human 1"
    child.sendline("")
    child.expect_exact(PROMPT)
    child.sendline("2")
    child.expect(HAND_OVER)
    assert child.match.group(1) == "Human 2"
    child.sendeof()  # end of input instead of Enter
    child.expect("Human 2 resigned.")
    child.expect(r"ranks \[1, 2\]; 0 moves\r?\n")  # the round Human 2 left was never played
    log = read_log(finish(child))
    assert log.result is not None and log.result["reason"] == "resigned" and log.result["plies"] == 0
    assert [(r["kind"], r["seat"]) for r in log.records if r["kind"] in ("move", "resign")] == \
        [("move", 0), ("resign", 1)]
    done = replay_verify(tmp_path / "left.msgpack")
    assert done.returncode == 0, done.stdout
