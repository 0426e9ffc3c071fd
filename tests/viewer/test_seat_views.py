"""A game of hidden information in the viewer: the whole truth, each seat's own view at a key, the public part.

Goofspiel (simultaneous bids, a hidden prize deck) played by its real bots through the real
referee: every seat's view a page holds is the one the seat was sent (its log's `sent`
records fed to the game's own view), never the deck; the page in Chromium switches views with
the keys and buttons and says so; a game of public information keeps today's page.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.games import get_game
from arena.games.seats import SeatView
from arena.logs.matchlog import MatchLog, read_log
from arena.viewer.frames import HIDDEN_TEXT, live_data, match_data, public_frame
from arena.viewer.page import match_page, write_match_page
from arena.viewer.report import write_report
from tests.helpers import run
from tests.viewer.browser import Watched
from tests.viewer.matches import turns_of
from tests.viewer.test_browser import at_ply, attrs, clean

CARDS = 6


@pytest.fixture(scope="module")
def goofspiel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("goof") / "goofspiel.msgpack"
    result, _ = run("goofspiel", ["montecarlo:samples=30", "random"], {"cards": CARDS}, seed=9, log=path)
    assert result.offender is None and result.plies == CARDS, result
    return path


def deck_of(log: MatchLog) -> list[int]:
    """The prize deck's order: every prize in the order the referee showed it."""
    return [r["event"][1]["prize"] for r in log.records if r["kind"] == "event"]


def sent_views(log: MatchLog, seat: int) -> list[str]:
    """The seat's view (its render) just before each of its turns, rebuilt from what the log says it was sent."""
    game = get_game("goofspiel")
    sent = [r for r in log.records if r["kind"] == "sent" and r["seat"] == seat]
    view = SeatView(seat, game.start_view(sent[0]["setup"], 2, seat))
    own = {r["ply"]: r["move"] for r in log.moves if r["seat"] == seat}
    shown = []
    for record in sent[1:]:
        for event in record["events"]:
            view.see(event)
        shown.append(view.state.render())
        if not record.get("end"):
            view.play(seat, own[record["ply"]])
    return shown


def test_each_seat_view_is_what_the_seat_was_sent_and_never_the_deck(goofspiel: Path) -> None:
    log = read_log(goofspiel)
    data = match_data(log)
    assert data["hidden"] and data["views_error"] == "" and data["verdict"]["ok"]
    frames = data["frames"]
    assert len(frames) == CARDS + 1 and all(len(f["views"]) == 2 for f in frames)
    deck = deck_of(log)
    for ply, frame in enumerate(frames):
        assert frame["board"]["deck"] == deck[ply + 1:]  # the whole truth: the prizes still to come, in order
        for view in frame["views"]:
            assert view["board"]["deck"] is None and view["board"]["prize"] == frame["board"]["prize"]
    for seat in (0, 1):
        # Before its turn p the seat had been sent everything up to turn p - 1 (and the end: all of it).
        assert sent_views(log, seat) == [frame["views"][seat]["text"] for frame in frames]
    turn = frames[1]
    assert [t["raw"] for t in turn["turn"]] == [r["move"] for r in turns_of(log)[0]]
    assert turn["movers"] == [0, 1] and turn["views"][0]["moves"] == [
        {"seat": 0, "move": f"bids {turn['turn'][0]['raw']}"}, {"seat": 1, "move": f"bids {turn['turn'][1]['raw']}"}]


def test_the_public_part_of_a_game_being_played_holds_no_deck_and_no_seed(goofspiel: Path) -> None:
    log = read_log(goofspiel)
    cut = MatchLog(log.header, [r for r in log.records if r["kind"] != "result" and r.get("ply", 0) <= 3],
                   None, {}, True, "cut for the test")
    data = live_data(cut)
    text = json.dumps(data)
    deck = deck_of(log)
    future = deck[4:]  # the prizes not shown by ply 3: no page of the game may tell their order
    assert data["live"] and data["seed"] is None and data["result"] is None and not data["hidden"]
    assert json.dumps(future) not in text and json.dumps(deck) not in text
    assert all("views" not in f and "public" not in f for f in data["frames"])
    assert all(f["board"] is not None and f["board"]["deck"] is None for f in data["frames"])
    assert [f["board"]["prize"] for f in data["frames"]] == deck[:4]
    assert data["frames"][2]["turn"][0]["move"].startswith("bids ")  # both bids were shown to both seats


def test_a_game_of_public_information_has_no_views(tmp_path: Path) -> None:
    path = tmp_path / "b.msgpack"
    run("blocking", ["random", "random"], {"rows": 3, "cols": 4}, log=path)
    data = match_data(read_log(path))
    assert not data["hidden"] and all("views" not in f and "turn" not in f and "movers" not in f
                                      for f in data["frames"])
    live = live_data(read_log(path))
    assert live["seed"] is None and [f["board"] for f in live["frames"]] == [f["board"] for f in data["frames"]]


def deck_cards(page: Any) -> list[str]:
    return [value for _, value in attrs(page, "deck", "deck")]


def test_the_page_switches_between_the_whole_truth_and_each_seat(
        goofspiel: Path, open_page: Callable[..., Watched], tmp_path: Path) -> None:
    log = read_log(goofspiel)
    deck = deck_of(log)
    names = log.names
    watched = open_page(write_match_page(log, tmp_path / "g.html"), "#ply=2")
    page = watched.page
    at_ply(page, 2)
    assert page.get_attribute("body", "data-view") == "all"
    assert [int(v.split(":")[1]) for v in deck_cards(page)] == deck[3:]
    assert "the whole truth" in page.inner_text("#view-name")
    assert "0\u20131 what a seat sees, a the whole truth" in page.inner_text(".keys")
    turn = turns_of(log)[1]
    assert page.inner_text("#current").startswith(
        f"2. {names[0]}: bids {turn[0]['move']}, {names[1]}: bids {turn[1]['move']}")
    page.keyboard.press("1")
    assert page.get_attribute("body", "data-view") == "1" and page.get_attribute("#board", "data-view") == "1"
    assert deck_cards(page) == [] and page.locator("#board [data-deck-hidden]").count() == 1
    assert f"what {names[1]} (seat 1) sees" in page.inner_text("#view-name")
    page.keyboard.press("ArrowRight")  # stepping keeps the seat's view
    at_ply(page, 3)
    assert page.get_attribute("#board", "data-view") == "1" and deck_cards(page) == []
    page.keyboard.press("a")
    assert [int(v.split(":")[1]) for v in deck_cards(page)] == deck[4:]
    page.click("#views button[data-view='0']")
    assert page.get_attribute("body", "data-view") == "0" and deck_cards(page) == []
    assert "on" in page.get_attribute("#views button[data-view='0']", "class")
    page.keyboard.press("7")  # no such seat: nothing changes
    assert page.get_attribute("body", "data-view") == "0"
    clean(watched)
    opened = open_page(tmp_path / "g.html", "#ply=1&seat=1")
    at_ply(opened.page, 1)
    assert opened.page.get_attribute("body", "data-view") == "1" and deck_cards(opened.page) == []
    clean(opened)


def test_a_page_of_public_information_keeps_its_keys(tmp_path: Path, open_page: Callable[..., Watched]) -> None:
    path = tmp_path / "b.msgpack"
    run("blocking", ["random", "random"], {"rows": 3, "cols": 4}, log=path)
    watched = open_page(write_match_page(read_log(path), tmp_path / "b.html"))
    page = watched.page
    at_ply(page, 0)
    assert page.inner_text(".keys") == "keys: \u2190 \u2192 step, Home / End, space play/pause"
    assert page.locator("#views").count() == 0
    page.keyboard.press("1")
    assert page.get_attribute("body", "data-view") is None
    clean(watched)


def test_the_tournament_report_pages_carry_the_seat_views(goofspiel: Path, tmp_path: Path) -> None:
    results = tmp_path / "results"
    (results / "logs").mkdir(parents=True)
    (results / "logs" / "m1.msgpack").write_bytes(goofspiel.read_bytes())
    out, written = write_report(results, tmp_path / "site" / "report.html")
    assert written == 1
    page = next((tmp_path / "site" / "report_matches").glob("*.html")).read_text()
    data = json.loads(page.split('id="arena-data">', 1)[1].split("</script>", 1)[0])
    assert data["hidden"] and all(len(f["views"]) == 2 for f in data["frames"])
    assert "0&ndash;1 what a seat sees, a the whole truth" in page and "data-view='1'" in page


def test_the_page_of_a_game_being_played_opens_at_its_latest_turn(
        goofspiel: Path, open_page: Callable[..., Watched], tmp_path: Path) -> None:
    log = read_log(goofspiel)
    cut = MatchLog(log.header, [r for r in log.records if r["kind"] != "result" and r.get("ply", 0) <= 3],
                   None, {}, True, "cut for the test")
    html = tmp_path / "live.html"
    html.write_text(match_page(live_data(cut)))
    watched = open_page(html)
    page = watched.page
    at_ply(page, 3)
    assert deck_cards(page) == [] and page.locator("#board [data-deck-hidden]").count() == 1
    assert page.locator("#views").count() == 0 and "being played" in page.inner_text("#verdict")
    assert "seed shown once the game has ended" in page.inner_text("header .meta")
    assert "In progress: 3 turns played so far." in page.inner_text("#result")
    assert page.inner_text("#moves li[data-ply='1']").startswith(f"1. {log.names[0]}: bids ")
    clean(watched)


def test_views_that_look_alike_are_not_public_once_something_was_kept_from_a_seat() -> None:
    board = {"hand": [7]}  # each seat's own card, drawn alike: two sevens
    views = [{"board": board, "text": "your card: 7", "scores": [0.0, 0.0], "moves": [], "events": []}] * 2
    frame = {"ply": 1, "clocks": [1.0, 1.0], "to_move": 0, "seat": 1, "move": "deal", "time_ms": 1.0,
             "board": {"hands": [[7], [7]]}, "text": "whole", "views": views}
    dealt = public_frame({**frame, "public": {"moves": [], "events": [], "common": False}})
    assert dealt["board"] is None and dealt["scores"] is None and dealt["text"] == HIDDEN_TEXT
    assert dealt["move"] is None  # the move was not seen whole by every other seat
    shared = public_frame({**frame, "public": {"moves": [{"seat": 1, "move": "deal"}], "events": [],
                                               "common": True}})
    assert shared["board"] == board and shared["move"] == "deal" and "views" not in shared
