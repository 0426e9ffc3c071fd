"""What a person at the terminal is told at the end of a game of hidden information (arena/play/seen.py).

The moves only the end message carries (the other's last bid, a bot's shot that sank the last
ship) are said before the last view, as every earlier move was said before the next prompt. The
views are fed what the log's `sent` records say the referee sent each seat.
"""

from __future__ import annotations

import io
import subprocess
import sys

import pytest

from arena.games import Move, State, get_game
from arena.games.goofspiel.view import GoofspielView
from arena.kit.terminal import Terminal
from arena.logs.matchlog import MatchLog, read_log
from arena.play.seen import PersonViews
from tests.helpers import ROOT


class Handed(Terminal):
    """A terminal whose people press Enter at every hand-over (its prompts are kept in what it says)."""

    def ask(self, prompt: str) -> str:
        self.say(prompt)
        return ""


class Announcing(GoofspielView):
    """Goofspiel's view, saying each bid it is shown (Goofspiel's own shows them on the board only)."""

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        return f"{self.name(seat)} bids {move}."


@pytest.fixture(scope="module")
def goofspiel_log(tmp_path_factory: pytest.TempPathFactory) -> MatchLog:
    """A match of two random bots, read back."""
    path = tmp_path_factory.mktemp("seen") / "m.msgpack"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "goofspiel", "random", "random", "--set",
                           "cards=4", "--seed", "5", "--sandbox", "none", "--log", str(path)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return read_log(path)


def played_from_the_log(log: MatchLog, humans: list[int]) -> str:
    """What the terminal says when the seats of humans are played as the log says, fed what each was sent."""
    out = io.StringIO()
    view = Announcing(get_game("goofspiel"), Handed(False, out), ["Ann", "Bob"], humans)
    seen = PersonViews(get_game("goofspiel"), view, 2, humans)
    own = {(r["ply"], r["seat"]): r["move"] for r in log.moves}
    for record in log.records:
        if record["kind"] != "sent" or record["seat"] not in humans:
            continue
        seat = record["seat"]
        if "setup" in record:
            seen.start(seat, record["setup"])
        elif record.get("end"):
            seen.end(seat, record["events"])
        else:
            assert seen.turn(seat, record["events"])
            seen.played(seat, own[record["ply"], seat])
    seen.finish()
    return out.getvalue()


def test_the_last_move_is_said_before_the_last_view(goofspiel_log: MatchLog) -> None:
    log = goofspiel_log
    last = [r["move"] for r in log.moves if r["ply"] == 4]
    text = played_from_the_log(log, [0])
    ends = [r for r in log.records if r["kind"] == "sent" and r.get("end") and r["seat"] == 0]
    assert len(ends) == 1 and [1, last[1]] in ends[0]["events"]  # Bob's last bid came with the end only
    tail = text.rsplit("Bob bids", 1)[1]
    assert tail.startswith(f" {last[1]}.\n") and "round 4 of 4" in tail  # said, then the last board
    assert text.count("Bob bids") == 4 and "Ann bids" not in text  # every bid of Bob's, once


def test_in_the_hot_seat_each_person_is_told_the_others_last_move_once(goofspiel_log: MatchLog) -> None:
    log = goofspiel_log
    last = [r["move"] for r in log.moves if r["ply"] == 4]
    text = played_from_the_log(log, [0, 1])
    final = text.rsplit("(screen cleared)", 1)[1]  # the game is over: the screen is cleared once more
    # Goofspiel's two views of the end are the same board: one board, each person's last news said once.
    assert final.count("round 4 of 4") == 1 and "'s view:" not in final
    assert final.count(f"Ann bids {last[0]}.\n") == 1 and final.count(f"Bob bids {last[1]}.\n") == 1


class Unseen:
    """A seat's view taking any event (Goofspiel never keeps a move whole from a seat; Battleship keeps placement)."""

    def __init__(self, state: State) -> None:
        self.state = state

    def see(self, event: list[object]) -> None:
        """Nothing to follow."""


class Placing(GoofspielView):
    """A view that says a kept move in the game's words."""

    def announce_hidden(self, seat: int, before: State, after: State) -> str | None:
        return f"{self.name(seat)} placed a fleet."


def test_a_move_kept_from_the_person_is_said_so_in_the_views_words() -> None:
    game = get_game("goofspiel")
    said = []
    for view_class in (GoofspielView, Placing):
        view = view_class(game, Handed(False, io.StringIO()), ["Ann", "Bob"], [0])
        seen = PersonViews(game, view, 2, [0])
        seen.views[0] = Unseen(seen.opening({"cards": 4}))  # type: ignore[assignment]
        seen.end(0, [[1, None], [1, 2]])
        said.append(seen.last_words[0])
    assert said == [["Bob moved; the move is not shown to you."], ["Bob placed a fleet."]]
