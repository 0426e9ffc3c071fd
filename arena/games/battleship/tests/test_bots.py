"""Battleship's bots keep only their seat's view; density beats random; RULES.md's worked example is what is sent."""

from __future__ import annotations

import json
import random
import shlex
import sys
from pathlib import Path

from arena.clock import ClockSettings
from arena.games import get_game
from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, run

from ..bots import DensityBot, RandomBot, density
from ..rules import Battle, random_fleet, ship_cells

GAME = get_game("battleship")
ROOMY = ClockSettings(budget_ms=30_000)


def scripted(moves: list) -> str:
    """A bot that plays these moves in order (tests/fixtures/scripted.py)."""
    option = shlex.quote("moves=" + json.dumps(moves))
    return f"exec:{sys.executable} -m protocol.run {FIXTURES / 'scripted.py'} -o {option}"


def test_density_beats_random_from_either_seat(tmp_path: Path) -> None:
    for seed in range(1, 5):
        bots = ["density", "random"] if seed % 2 else ["random", "density"]
        log = tmp_path / f"{seed}.msgpack"
        result, _ = run("battleship", bots, {}, seed=seed, clock=ROOMY, log=log)
        assert result.offender is None, result.detail
        assert result.ranks[seed % 2 == 0] == 1, (seed, result)  # density's seat: 0 on odd seeds, 1 on even
        assert verify(read_log(log)).ok


def test_density_closes_in_on_a_hit_and_sinks_a_fleet_in_fewer_shots_than_random() -> None:
    state, _ = GAME.start(GAME.validate_setup({}), 2, 0)
    assert isinstance(state, Battle)
    state.apply_turn({0: random_fleet(10, state.fleet, random.Random(1)), 1: [[4, 4, "h"], [0, 0, "h"], [9, 0, "h"],
                                                                          [9, 5, "h"], [6, 8, "v"]]})
    state.apply([4, 5])  # a hit on the 5 at E5-E9
    state.apply([0, 9])
    weights = density(state, 0)
    best = max(weights, key=weights.__getitem__)
    assert best in ((3, 5), (5, 5), (4, 4), (4, 6)), best  # next to the hit
    shots = {}
    for name in ("density", "random"):
        total = 0
        for seed in range(8):
            total += shots_to_sink(DensityBot() if name == "density" else RandomBot(), seed)
        shots[name] = total / 8
    assert shots["density"] < 0.7 * shots["random"], shots


def shots_to_sink(bot: DensityBot | RandomBot, seed: int) -> int:
    """How many shots bot (seat 0, fed only its seat's view) fires to sink a random fleet (the other hits last)."""
    setup = GAME.validate_setup({})
    truth, _ = GAME.start(setup, 2, seed)
    assert isinstance(truth, Battle)
    bot.reseed("m", 0)
    bot.init_game("battleship", 0, 2, GAME.observe_setup(setup, 0), 10_000, "m")
    other = random_fleet(10, truth.fleet, random.Random(seed))
    events: list = []
    fleet = bot.turn(events, 10_000)
    truth.apply_turn({0: fleet, 1: other})
    events = [truth.observe([1, other], 0)]
    ships = {cell for i, ship in enumerate(fleet) for cell in ship_cells(ship, truth.fleet[i])}
    shots = 0
    while not truth.is_over():
        move = bot.turn(events, 10_000)
        shots += 1
        events = truth.apply(move)
        assert bot.state.fleets[1] is None  # never the other's fleet
        if not truth.is_over():  # the other fires at the water first: it sinks the bot's fleet at shot 100 only
            mine = min(truth.moves_of(1), key=lambda cell: (tuple(cell) in ships, cell))
            events += [[1, mine], *truth.apply(mine)]
    return shots


def test_the_worked_example_of_rules_md_is_what_the_referee_sends(tmp_path: Path) -> None:
    setup = {"size": 4, "fleet": [2, 1]}
    seat0 = [[[0, 0, "v"], [3, 3, "h"]], [1, 1], [1, 2], [3, 1], [3, 0]]
    seat1 = [[[1, 1, "h"], [3, 0, "h"]], [0, 0], [2, 2], [2, 3]]
    log_path = tmp_path / "example.msgpack"
    result, _ = run("battleship", [scripted(seat0), scripted(seat1)], setup, seed=1, clock=ROOMY, log=log_path)
    assert (result.reason, result.ranks) == ("normal", [1, 2]), result.detail
    log = read_log(log_path)
    assert verify(log).ok
    sent = [(r["seat"], r.get("setup", r.get("events"))) for r in log.records if r["kind"] == "sent"]
    assert (0, setup) in sent and (1, setup) in sent
    requests = {seat: [what for s, what in sent[2:] if s == seat] for seat in (0, 1)}
    assert requests[0][:3] == [[], [[1, None]], [[-1, {"by": 0, "shot": [1, 1], "result": "hit"}], [1, [0, 0]],
                                                 [-1, {"by": 1, "shot": [0, 0], "result": "hit"}]]]
    assert requests[1][:2] == [[], [[0, None], [0, [1, 1]], [-1, {"by": 0, "shot": [1, 1], "result": "hit"}]]]
    assert requests[1][2] == [[-1, {"by": 1, "shot": [0, 0], "result": "hit"}], [0, [1, 2]],
                              [-1, {"by": 0, "shot": [1, 2], "result": "sunk", "ship": [1, 1, "h"], "length": 2}]]
