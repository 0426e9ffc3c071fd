"""OpenSpiel's games through the real referee, with real bot processes: they play, verify, show each seat its view."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import run

from . import require_openspiel

require_openspiel()

CLOCK = ClockSettings(budget_ms=20_000)


@pytest.mark.parametrize("game,bots", [
    ("openspiel:goofspiel(num_cards=4)", ["random", "mcts:simulations=20"]),  # simultaneous: turn-based IS-MCTS
    ("openspiel:liars_dice", ["mcts:simulations=20", "random"]),  # information states: IS-MCTS
    ("openspiel:backgammon", ["random", "random"]),  # public, the dice as referee events
])
def test_a_match_plays_and_verifies(game: str, bots: list[str], tmp_path: Path) -> None:
    log = tmp_path / "m.msgpack"
    result, _ = run(game, bots, seed=3, clock=CLOCK, log=log)
    assert result.offender is None and result.reason == "normal", result.detail
    verdict = verify(read_log(log))
    assert verdict.ok, verdict.message


def test_a_kuhn_log_shows_each_seat_its_own_card_until_the_end(tmp_path: Path) -> None:
    log_path = tmp_path / "kuhn.msgpack"
    for seed in (1, 2):
        result, _ = run("openspiel:kuhn_poker", ["mcts:simulations=30", "random"], seed=seed, clock=CLOCK,
                        log=log_path)
        assert result.offender is None, result.detail
        log = read_log(log_path)
        assert verify(log).ok
        deal = next(r["event"][1]["chance"] for r in log.records if r["kind"] == "event")  # the truth: both cards
        sent = [r for r in log.records if r["kind"] == "sent" and "events" in r]
        assert {r["seat"] for r in sent} == {0, 1}
        for record in sent:
            seat = record["seat"]
            for actor, view in record["events"]:
                assert actor == -1 and set(view) <= {"observation", "legal", "labels"}  # no action of the other
                assert view["observation"][0] == str(deal[seat])  # its own card, and no other card anywhere
                assert str(deal[1 - seat]) not in view["observation"][:1]
        # A log edited so that seat 1 is shown seat 0's card is caught.
        forged = copy.deepcopy(log)
        first = next(r for r in forged.records if r["kind"] == "sent" and r["seat"] == 1 and r.get("events"))
        first["events"][0][1]["observation"] = str(deal[0]) + first["events"][0][1]["observation"][1:]
        verdict = verify(forged)
        assert not verdict.ok and "shown more than its observation" in verdict.message


def test_mcts_beats_random_at_connect_four_within_a_short_clock(tmp_path: Path) -> None:
    # No fixed effort: each move's search is sized to the clock left (1.5 s for the whole game).
    log = tmp_path / "c4.msgpack"
    wins = 0
    for seed, seats in ((1, ["mcts", "random"]), (2, ["random", "mcts"])):
        result, _ = run("openspiel:connect_four", seats, seed=seed, clock=ClockSettings(budget_ms=1500), log=log)
        assert result.offender is None, f"{result.reason}: {result.detail}"
        assert verify(read_log(log)).ok
        wins += result.ranks[seats.index("mcts")] == 1
    assert wins == 2


def test_check_game_passes_for_kuhn_poker() -> None:
    from arena.gamecheck.folder import check_folder

    report = check_folder("openspiel:kuhn_poker", games=4, browser=False)
    assert report.ok, "\n".join(report.lines())
    assert {part.key: part.status for part in report.parts} == {
        "rules": "ok", "bots": "ok", "view": "ok", "drawing": "none", "docs": "ok", "demo": "none", "solver": "none"}
