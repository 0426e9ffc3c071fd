"""`arena replay --bot` of a game of hidden information: a seat is replayed from its own view.

What the re-run sends a seat is what the referee sent it (its `--trace`), taken from the
log's `sent` records: its share of the setup (never a prize deck an organiser fixed), and the
other seat's bid of a simultaneous round only once the round is over. A bot that would bid
otherwise had it been shown more (the deck, or the other's bid of the round being played)
agrees with its logged moves, exit 0; another bot differs, exit 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from arena.logs.matchlog import read_log
from arena.viewer.rerun import seat_requests
from tests.helpers import ROOT

DECK = [3, 5, 1, 4, 2]
# Bids the middle card of its hand; had it been sent the deck, its lowest; had it been sent the
# other's bid of the round it is asked for, the lowest card that beats it.
PEEKER = '''from protocol import Bot


class Peeker(Bot):
    def init_game(self, game, seat, players, setup, time_left_ms, match):
        self.seat, self.deck = seat, setup.get("deck")
        self.hand = list(range(1, setup["cards"] + 1))
        self.rounds = self.bids = 0

    def turn(self, events, time_left_ms):
        self.rounds += 1
        peeked = None
        for actor, payload in events:
            if actor not in (-1, self.seat):
                self.bids += 1
                if self.bids == self.rounds:  # the other's bid of this very round
                    peeked = payload
        if self.deck is not None:
            card = self.hand[0]
        elif peeked is not None:
            card = min([c for c in self.hand if c > peeked] or self.hand)
        else:
            card = self.hand[len(self.hand) // 2]
        self.hand.remove(card)
        return card
'''


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)


def match(tmp_path: Path, bots: list[str], trace: Path | None = None) -> Path:
    log = tmp_path / "m.msgpack"
    done = arena("match", "goofspiel", *bots, "--set", f"deck={json.dumps(DECK)}", "--set", "cards=5",
                 "--seed", "4", "--sandbox", "none", "--log", str(log), *(["--trace", str(trace)] if trace else []))
    assert done.returncode == 0, done.stderr
    return log


def test_the_rebuilt_requests_are_what_the_referee_sent_each_seat(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    log = match(tmp_path, ["random", "montecarlo:samples=20"], trace)
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    for seat in (0, 1):
        sent = [line["message"] for line in lines if line["seat"] == seat and line["dir"] == "to"
                and line["message"]["type"] in ("init", "turn")]
        rebuilt = [request.message for request in seat_requests(read_log(log), seat)]
        assert [{k: v for k, v in m.items() if k != "seq"} for m in sent] == \
               [{k: v for k, v in m.items() if k != "seq"} for m in rebuilt]
        assert len(sent) == 6 and "deck" not in sent[0]["setup"] and read_log(log).header["setup"]["deck"] == DECK


def test_a_seat_is_replayed_from_its_own_view(tmp_path: Path) -> None:
    folder = tmp_path / "peeker"
    folder.mkdir()
    folder.chmod(0o755)  # the re-run starts the bot in the sandbox: its folder open to the bot's own uid
    peeker = folder / "peeker.py"
    peeker.write_text(PEEKER)
    peeker.chmod(0o644)
    log = match(tmp_path, ["random", str(peeker)])
    played = [r["move"] for r in read_log(log).moves if r["seat"] == 1]
    assert played == [3, 4, 2, 5, 1]  # the middle card every round: it was never shown more
    done = arena("replay", str(log), "--bot", f"1={peeker}")
    assert done.returncode == 0 and "OK all 5 moves of seat 1 agree with the log" in done.stdout, done.stdout
    other = arena("replay", str(log), "--bot", "1=random")
    assert other.returncode == 1 and "DIFFERS ply " in other.stdout, other.stdout
