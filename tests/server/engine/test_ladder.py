"""The ladder's pairing and rating rules, as pure functions."""

from __future__ import annotations

import random
from collections import Counter

from arena.server.engine.ladder import SIGMA, Entry, nearest_k, pick_pair, provisional, rate


def entry(number: int, mu: float = 25.0, games: int = 50, **kw: object) -> Entry:
    return Entry(number, mu, kw.pop("sigma", 2.0), games, kw.pop("last", float(number)), **kw)  # type: ignore[arg-type]


def test_a_new_version_plays_its_placement_games_first_across_the_rating_range() -> None:
    rng = random.Random(1)
    field = [entry(i, mu=10.0 + 5 * i) for i in range(1, 9)]
    new = entry(99, games=0, placement_left=4, sigma=SIGMA)
    opponents = []
    for played in range(4):
        first, second, placement = pick_pair([*field, Entry(99, 25.0, SIGMA, played, 0.0, 4 - played)], rng,
                                             {99: played})
        assert first.id == new.id and placement
        opponents.append(second.mu)
    assert min(opponents) < 25 < max(opponents)  # both ends of the range, not only neighbours


def test_house_bots_and_busy_versions_are_never_scheduled_for() -> None:
    rng = random.Random(2)
    house = [entry(i, house=True) for i in range(1, 4)]
    assert pick_pair(house, rng) is None  # references alone never play each other
    busy = entry(10, busy=True)
    for _ in range(200):
        pair = pick_pair([*house, busy, entry(11)], rng)
        assert pair is not None and pair[0].id == 11 and pair[1].id != 10


def test_versions_with_fewer_games_are_chosen_more_often_and_the_ladder_comes_to_rest() -> None:
    rng = random.Random(3)
    field = [entry(1, games=0), entry(2, games=100), entry(3, games=100)]
    firsts = Counter(pick_pair(field, rng)[0].id for _ in range(2000))  # type: ignore[index]
    assert firsts[1] > firsts[2] + firsts[3]
    assert pick_pair([entry(1, games=30), entry(2, games=40)], rng, max_games=30) is None


def test_opponents_come_from_fewer_neighbours_as_the_rating_settles() -> None:
    assert nearest_k(SIGMA, 20) == 20 and nearest_k(0.5, 20) == 3
    field = [entry(i, mu=float(i)) for i in range(1, 21)]  # 50 games each: opponents only
    settled = Entry(100, 10.0, 0.5, 5, 0.0)
    pairs = [pick_pair([settled, *field], random.Random(seed), max_games=40) for seed in range(300)]
    assert all(pair is not None and pair[0].id == 100 for pair in pairs)
    assert max(abs(pair[1].mu - 10.0) for pair in pairs) <= 2.0  # type: ignore[index]


def test_ratings_move_towards_the_winner_and_a_draw_keeps_the_means() -> None:
    (wa, _), (wb, _) = rate((25.0, SIGMA), (25.0, SIGMA), [0, 1])
    assert wa > 25 > wb
    (da, sa), (db, sb) = rate((25.0, SIGMA), (25.0, SIGMA), [0, 0])
    assert da == db == 25.0 and sa < SIGMA


def test_a_rating_from_few_games_beside_many_is_provisional() -> None:
    assert provisional(5, typical=5, minimum=12)  # the config's count
    assert not provisional(14, typical=20, minimum=12)
    # 14 games where versions typically have 315 (the house bot that ranked first, unmarked): provisional
    assert provisional(14, typical=315, minimum=12)
    assert not provisional(40, typical=315, minimum=12)


def test_a_version_that_played_max_games_stops_there_and_the_ladder_rests() -> None:
    """An entrant plays its 40 games; two newcomers later play theirs, never again against it but in placement."""
    rng = random.Random(4)
    strength = {1: 1.0, 2: 0.9, 3: 0.5, 8: 0.7, 9: 0.1}  # two entrants of one strength, references around them
    field = {i: Entry(i, 25.0, SIGMA, 0, 0.0, house=True) for i in (8, 9)}

    def play_until_rest() -> None:
        clock = max(e.last_game for e in field.values())
        while (pair := pick_pair(list(field.values()), rng, {i: 4 - e.placement_left for i, e in field.items()},
                                 max_games=40)) is not None:
            a, b, placement = pair
            won = rng.random() < strength[a.id] / (strength[a.id] + strength[b.id])
            (ma, sa), (mb, sb) = rate((a.mu, a.sigma), (b.mu, b.sigma), [0, 1] if won else [1, 0])
            clock += 1
            for side, mu, sigma in ((a, ma, sa), (b, mb, sb)):
                field[side.id] = Entry(side.id, mu, sigma, side.games + 1, clock,
                                       max(0, side.placement_left - placement), house=side.house)

    field[1] = Entry(1, 25.0, SIGMA, 0, 0.0, placement_left=4)
    play_until_rest()
    assert field[1].games == 40
    field |= {i: Entry(i, 25.0, SIGMA, 0, 0.0, placement_left=4) for i in (2, 3)}
    play_until_rest()
    assert field[2].games == field[3].games == 40
    assert field[1].games <= 40 + 2 * 4  # at most the newcomers' placement games
