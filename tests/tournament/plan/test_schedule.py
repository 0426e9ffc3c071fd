"""The schedule: deterministic ids and seeds, balanced seats, duplicate seeds for solo games."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.tournament.plan.config import config_from_data
from arena.tournament.plan.schedule import build_schedule, derive_seed, match_id, seat_counts
from arena.tournament.results.formats import plan_for


def test_schedule_is_deterministic_with_stable_ids() -> None:
    one = build_schedule(5, 2, 3, 4, seed=11)
    two = build_schedule(5, 2, 3, 4, seed=11)
    assert one == two
    assert len(one) == 10 * 3 * 4
    assert len({t.match for t in one}) == len(one)
    assert [t.ord for t in one] == list(range(len(one)))
    assert one[0].match == match_id(0, 0, (0, 1)) == "s0-r0-b0-b1"
    # Ids do not depend on the seed; seeds do.
    other = build_schedule(5, 2, 3, 4, seed=12)
    assert [t.match for t in other] == [t.match for t in one]
    assert [t.seed for t in other] != [t.seed for t in one]


def test_config_gives_the_same_schedule_and_setups_every_time() -> None:
    data = {"game": "blocking", "bots": ["random", "sequential", "maxblock"], "seed": 5,
            "setups": {"random": {"count": 3}}, "games_per_pairing": 2}
    a, b = config_from_data(data), config_from_data(data)
    assert plan_for(a).tasks({}) == plan_for(b).tasks({})
    assert [s.setup for s in a.setups] == [s.setup for s in b.setups]
    assert len({str(s.setup) for s in a.setups}) == 3  # three different random boards
    assert a.fingerprint() == b.fingerprint()
    assert config_from_data({**data, "seed": 6}).fingerprint() != a.fingerprint()


@pytest.mark.parametrize(("bots", "players", "games"), [(6, 2, 2), (4, 2, 6), (4, 3, 3), (5, 4, 8), (4, 4, 4)])
def test_every_bot_plays_every_seat_equally(bots: int, players: int, games: int) -> None:
    tasks = build_schedule(bots, players, 2, games, seed=1)
    counts = seat_counts(tasks)
    assert len(set(counts.values())) == 1, counts
    assert set(counts) == {(b, s) for b in range(bots) for s in range(players)}


@pytest.mark.parametrize(("bots", "players"), [(4, 2), (4, 3), (5, 3), (5, 4)])
def test_every_bot_meets_every_other_in_each_seat(bots: int, players: int) -> None:
    tasks = build_schedule(bots, players, 1, players, seed=1)
    met = Counter((t.bots[seat], seat, other) for t in tasks for seat in range(players)
                  for other in t.bots if other != t.bots[seat])
    wanted = {(a, s, b) for a, b in itertools.permutations(range(bots), 2) for s in range(players)}
    assert set(met) == wanted
    assert len(set(met.values())) == 1  # and equally often


def test_seat_orders_rotate_and_share_the_cycle_seed() -> None:
    tasks = build_schedule(3, 2, 1, 4, seed=3)
    pair = [t for t in tasks if set(t.bots) == {0, 1}]
    assert [t.bots for t in pair] == [(0, 1), (1, 0), (0, 1), (1, 0)]
    assert pair[0].seed == pair[1].seed != pair[2].seed == pair[3].seed
    assert pair[0].seed == derive_seed(3, "match", 0, 0)


def test_solo_games_use_duplicate_seeds() -> None:
    config = config_from_data({"game": "tenten", "bots": ["greedy", "random", {"spec": "greedy", "name": "g2"}],
                               "games_per_pairing": 3, "setups": {"random": {"count": 2}}})
    tasks = plan_for(config).tasks({})
    assert len(tasks) == 3 * 2 * 3
    by_seed: dict[int, set[int]] = {}
    for task in tasks:
        assert len(task.bots) == 1
        by_seed.setdefault(task.seed, set()).add(task.bots[0])
    assert len(by_seed) == 6 and all(bots == {0, 1, 2} for bots in by_seed.values())


def test_impossible_schedules_are_refused() -> None:
    with pytest.raises(ValueError):
        build_schedule(2, 3, 1, 3, seed=1)
    with pytest.raises(ValueError):
        build_schedule(4, 2, 1, 3, seed=1)
