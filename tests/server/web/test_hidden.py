"""A contest of a game of hidden information on a real server: nothing of a game in progress tells its secrets.

One `arena serve` of Goofspiel (the prize deck's order is hidden): a student's slow bot plays
the ladder, and while one of its games is being played every page and every JSON answer
anyone can fetch — the leaderboard, the games, the entrants' pages, the game's own live page,
as a stranger, as the game's owner and as the admin — is read for the deck's order and the
game's seed (which would tell the deck); neither is there. The live page shows what both
seats were shown (the prizes turned up, the bids of the rounds over). Once the game has
ended, its page shows the whole truth: the same checks find the deck there, the control
that they can find it at all.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from typing import Any

import pytest

from arena.games import get_game
from tests.helpers import require
from tests.server.server import Server, make_server, wait_for

CARDS = 8
# Bids its cards from the highest down, waiting 1 s a round: a game lasts eight seconds or so.
SLOW_BIDDER = b'''import time

from protocol import Bot


class SlowBidder(Bot):
    def init_game(self, game, seat, players, setup, time_left_ms, match):
        self.hand = list(range(1, setup["cards"] + 1))

    def turn(self, events, time_left_ms):
        time.sleep(1.0)
        return self.hand.pop()
'''
EMBEDDED = re.compile(r'<script type="application/json" id="arena-data">(.*?)</script>', re.S)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("hidden"), max_games=6)
    text = server.config.read_text().replace('game = "blocking"', 'game = "goofspiel"')
    text = text.replace('references = ["random", "maxblock", "perfect"]',
                        'references = ["random", { spec = "random", name = "random-b", options = { seed = 5 } }]')
    text = text.replace("fixed = { rows = 5, cols = 6 }", f"fixed = {{ cards = {CARDS} }}")
    server.config.write_text(text.replace("budget_ms = 3000", 'budget_ms = 8000\nmode = "cpu"'))
    server.add("alice", "bob")
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def deck_and_seed(server: Server, game: int) -> tuple[list[int], int]:
    """A game's prize deck, in order, from its seed (the rules' own draw), and the seed."""
    with sqlite3.connect(server.state / "server.db") as db:
        seed = int(db.execute("SELECT seed FROM games WHERE id = ?", (game,)).fetchone()[0])
    data = get_game("goofspiel").start({"cards": CARDS}, 2, seed)[0].to_data()
    return [data["prize"], *data["deck"]], seed


def tells(text: str, deck: list[int], seed: int, shown: int) -> list[str]:
    """What of the deck's order still to come, or of the seed, text tells."""
    found = []
    future = deck[shown:]
    for form in (json.dumps(future), json.dumps(future, separators=(",", ":")), json.dumps(deck),
                 json.dumps(deck, separators=(",", ":"))):
        if len(future) > 1 and form in text:
            found.append(f"the deck {form}")
    if re.search(r'"deck": ?\[', text):  # a frame's board holding the deck (a view's is null)
        found.append("a deck")
    if str(seed) in text:
        found.append(f"the seed {seed}")
    return found


def status(server: Server, game: int) -> str:
    with sqlite3.connect(server.state / "server.db") as db:
        return str(db.execute("SELECT status FROM games WHERE id = ?", (game,)).fetchone()[0])


def page_data(html: str) -> dict[str, Any]:
    found = EMBEDDED.search(html)
    assert found is not None, html[:500]
    return json.loads(found.group(1))


def playing(server: Server, version: int) -> dict[str, Any] | None:
    """A game of version being played whose live page shows two rounds or more, else None."""
    for game in server.get("/api/games").json():
        if game["status"] != "running" or version not in game["submissions"] or not game["live"]:
            continue
        answer = server.get(game["live"])
        if answer.status_code == 200 and len(page_data(answer.text)["frames"]) >= 3:
            return game
    return None


def test_nothing_of_a_game_being_played_tells_its_hidden_deck(server: Server) -> None:
    version = server.submit("alice", "bidder.py", SLOW_BIDDER).json()
    assert server.settled("alice", version["id"], timeout=240)["status"] == "active"
    game = wait_for(lambda: playing(server, version["id"]), 120, "a ladder game in flight", every=0.1)
    deck, seed = deck_and_seed(server, game["id"])
    who = {"anyone": None, "owner": server.tokens["alice"], "other": server.tokens["bob"], "admin": server.admin}
    paths = ["/", "/api/games", f"/api/games?submission={version['id']}", f"/games/{game['id']}",
             "/entrants/alice", "/entrants/house", "/api/leaderboard", "/health", "/api/submissions"]
    live = server.get(f"/games/{game['id']}")
    shown = len(page_data(live.text)["frames"])  # turns played so far, and the prizes turned up
    checked = 0
    started = time.monotonic()
    clients = {name: server.client(token) for name, token in who.items()}  # one each: a client is slow to make
    try:
        for name, path in [(name, path) for name in who for path in paths]:
            answer = clients[name].get(path)
            if status(server, game["id"]) != "running":  # over by now: its whole truth may be shown
                break
            assert answer.status_code in (200, 401), (name, path, answer.status_code)
            assert tells(answer.text, deck, seed, shown + 1) == [], (name, path)
            checked += 1
    finally:
        for client in clients.values():
            client.close()
    assert checked == len(who) * len(paths), (f"the game ended before every page was read ({checked} in "
                                              f"{time.monotonic() - started:.1f} s): make the bot slower")
    data = page_data(live.text)
    assert data["live"] and data["seed"] is None and data["result"] is None
    assert [f["board"]["prize"] for f in data["frames"]] == deck[:shown]  # the prizes both seats were shown
    assert all(f["board"]["deck"] is None for f in data["frames"])
    assert all(len(f["board"]["bids"]) == f["ply"] for f in data["frames"])  # every round over: both bids
    assert '<meta http-equiv="refresh"' in live.text
    assert "watch" in server.get("/entrants/alice").text
    # Once over, the game's page shows the whole truth: the same checks find the deck there.
    wait_for(lambda: next((g for g in server.get("/api/games").json() if g["id"] == game["id"]
                           and g["status"] == "done"), None), 60, "the game to end")
    done = server.get(f"/games/{game['id']}")
    assert done.status_code == 200 and not page_data(done.text)["live"]
    # (the first frame's board holds the prizes after the first, which is turned up at once)
    assert tells(done.text, deck, seed, 1) == [f"the deck {json.dumps(deck[1:], separators=(',', ':'))}",
                                              "a deck", f"the seed {seed}"]
    assert page_data(done.text)["hidden"] and "what a seat sees" in done.text
