"""Blocking `perfect` against values computed here by independent brute force."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from protocol.bot import Bot
from tests.helpers import duel, run

from ..bots import BOTS
from ..bots.grundy import DAWSON, GrundySolver, normalise
from ..bots.perfect import BoardFrame, PerfectBot
from ..bots.simple import MaxBlockBot, RandomBot, SequentialBot
from ..rules import BlockingState, neighbourhoods

GAME = get_game("blocking")
BUDGET_MS = ClockSettings().budget_ms  # the default budget of a match
# Every board up to 5 x 6, in both orientations.
SMALL_BOARDS = sorted({(r, c) for r in range(1, 6) for c in range(1, 7)}
                      | {(c, r) for r in range(1, 6) for c in range(1, 7)})


def brute_force(rows: int, cols: int) -> tuple[Callable[[int], bool], tuple[int, ...]]:
    """win(free): a plain memoised win/loss search over whole-board bit masks."""
    nbr = neighbourhoods(rows, cols)
    memo: dict[int, bool] = {}

    def win(free: int) -> bool:
        result = memo.get(free)
        if result is None:
            result = False
            rest = free
            while rest:
                low = rest & -rest
                rest ^= low
                if not win(free & ~nbr[low.bit_length() - 1]):
                    result = True
                    break
            memo[free] = result
        return result

    return win, nbr


def octal_0137(limit: int) -> list[int]:
    """Grundy values of heaps in the octal game 0.137, from its code digits alone."""
    # Digit k of .137 says when k tokens may be taken from a heap: 1 -> only the whole
    # heap; 3 -> leaving zero or one heap; 7 -> leaving zero, one or two heaps.
    g = [0] * limit
    for n in range(1, limit):
        options = set()
        for take, digit in ((1, 1), (2, 3), (3, 7)):
            left = n - take
            if left < 0:
                continue
            if digit & 1 and left == 0:
                options.add(0)
            if digit & 2 and left > 0:
                options.add(g[left])
            if digit & 4 and left >= 2:
                options.update(g[a] ^ g[left - a] for a in range(1, left))
        g[n] = next(v for v in range(len(options) + 1) if v not in options)
    return g


HEAPS = octal_0137(60)


def strip_is_win(state: BlockingState) -> bool:
    """Outcome of a 1 x n or 2 x n position (columns free or blocked as a whole) by 0.137."""
    value, run_length = 0, 0
    for c in range(state.cols + 1):
        free = c < state.cols and state.is_free(0, c)
        if c < state.cols and state.rows == 2:
            assert state.is_free(1, c) == free, "a 2 x n column is free or blocked as a whole"
        if free:
            run_length += 1
        else:
            value ^= HEAPS[run_length]
            run_length = 0
    return value != 0


def play(setup: dict, bots: list[Bot], judge: Callable[[BlockingState], bool] | None = None,
         perfect_seat: int | None = None, budget_ms: int = BUDGET_MS) -> tuple[BlockingState, list[int]]:
    """Play in process as the referee does (clocks charged); judge checks perfect's moves."""

    def check(state: BlockingState, seat: int, move: list[int]) -> None:
        if judge is not None and seat == perfect_seat:
            assert not judge(state), f"move {move} leaves a winning position"

    return duel("blocking", setup, bots, budget_ms, check)


def opponents() -> list[Bot]:
    """The seed's strategies, random with several seeds."""
    return [SequentialBot(), MaxBlockBot(), RandomBot(seed=1), RandomBot(seed=2), RandomBot(seed=3)]


def test_perfect_is_registered() -> None:
    assert "perfect" in [bot.name for bot in BOTS]


def test_the_octal_game_matches_the_rules_and_a_brute_force_on_strips() -> None:
    assert [n for n in range(36) if HEAPS[n] == 0] == [0, 4, 8, 14, 20, 24, 28, 34]
    for n in range(1, 13):
        for rows in (1, 2):
            win, _ = brute_force(rows, n)
            assert win((1 << rows * n) - 1) == (HEAPS[n] != 0), (rows, n)
    # The solver's own strip table agrees with the independent one.
    assert list(DAWSON[:60]) == HEAPS


def test_grundy_values_agree_with_the_brute_force_on_small_boards() -> None:
    solver = GrundySolver({})
    for rows, cols in SMALL_BOARDS + [(6, 6)]:
        win, _ = brute_force(rows, cols)
        stride = cols + 1
        full = sum(1 << (r * stride + c) for r in range(rows) for c in range(cols))
        assert (solver.value(normalise(full, stride)) != 0) == win((1 << rows * cols) - 1)


@pytest.mark.parametrize("rows,cols", SMALL_BOARDS)
def test_from_every_reachable_winning_position_perfect_moves_to_a_lost_one(rows: int, cols: int) -> None:
    # Exhaustive: this covers every game against every opponent, from either seat.
    win, nbr = brute_force(rows, cols)
    bot = PerfectBot()
    bot.init_game("blocking", 0, 2, {"rows": rows, "cols": cols, "blocked": []}, BUDGET_MS, "m")
    seen, stack = set(), [(1 << rows * cols) - 1]
    while stack:
        free = stack.pop()
        if free in seen:
            continue
        seen.add(free)
        rest = free
        while rest:
            low = rest & -rest
            rest ^= low
            stack.append(free & ~nbr[low.bit_length() - 1])
    for free in seen:
        if free and win(free):
            r, c = bot.choose(BlockingState(rows, cols, free, 0), BUDGET_MS)
            index = r * cols + c
            assert free >> index & 1 and not win(free & ~nbr[index]), (free, [r, c])
    assert bot.fallbacks == 0


@pytest.mark.parametrize("rows,cols", SMALL_BOARDS)
def test_perfect_wins_whole_games_from_the_winning_seat(rows: int, cols: int) -> None:
    win, _ = brute_force(rows, cols)
    seat = 0 if win((1 << rows * cols) - 1) else 1
    for opponent in opponents():
        bots: list[Bot] = [opponent, opponent]
        bots[seat] = PerfectBot()
        state, left = play({"rows": rows, "cols": cols, "blocked": []}, bots)
        assert state.scores()[seat] == 1.0, (opponent.name, seat)
        assert left[seat] > 0


@pytest.mark.parametrize("rows", [1, 2])
def test_perfect_wins_every_strip_up_to_50_from_the_winning_seat(rows: int) -> None:
    for n in range(1, 51):
        seat = 0 if HEAPS[n] else 1
        for opponent in opponents():
            bots: list[Bot] = [opponent, opponent]
            bots[seat] = PerfectBot()
            state, left = play({"rows": rows, "cols": n, "blocked": []}, bots,
                               judge=strip_is_win, perfect_seat=seat)
            assert state.scores()[seat] == 1.0, (rows, n, opponent.name)
            # "Instant": far inside the budget, at most a few milliseconds per move.
            assert BUDGET_MS - left[seat] < 200


def test_memo_is_shared_across_bots_in_a_process() -> None:
    setup = {"rows": 6, "cols": 7, "blocked": []}
    first = PerfectBot()
    first.init_game("blocking", 0, 2, setup, BUDGET_MS, "a")
    first.turn([], BUDGET_MS)
    second = PerfectBot()
    second.init_game("blocking", 0, 2, setup, BUDGET_MS, "b")
    second.turn([], BUDGET_MS)
    assert second.solver.expanded == 0


def test_without_time_it_mirrors_on_odd_boards_and_still_wins() -> None:
    # 15 x 15 is far too big to solve in a few milliseconds: the centre, then mirroring,
    # is a proven win for the first player whatever the opponent does.
    for seed in (1, 2):
        bot = PerfectBot()
        setup = {"rows": 15, "cols": 15, "blocked": []}
        bot.init_game("blocking", 0, 2, setup, 0, "m")
        assert bot.turn([], 0) == [7, 7]
        state, left = play(setup, [PerfectBot(), RandomBot(seed=seed)], budget_ms=500)
        assert state.scores() == [1.0, 0.0] and left[0] > 0


def test_big_boards_keep_inside_the_budget() -> None:
    for rows, cols in ((50, 50), (9, 12)):
        bots: list[Bot] = [PerfectBot(), MaxBlockBot()]
        state, left = play({"rows": rows, "cols": cols, "blocked": []}, bots)
        assert state.is_over() and left[0] > 0


def test_real_processes_perfect_wins_from_both_seats() -> None:
    result, _ = run("blocking", ["perfect", "maxblock"], {"rows": 5, "cols": 5, "blocked": []})
    assert result.reason == "blocked" and result.scores == [1.0, 0.0]
    result, _ = run("blocking", ["random", "perfect"], {"rows": 4, "cols": 6, "blocked": []})
    assert result.reason == "blocked" and result.scores == [0.0, 1.0]


def test_mirror_check_matches_a_cell_by_cell_one() -> None:
    rng = random.Random(5)
    for rows, cols in ((5, 7), (6, 6), (7, 7), (4, 9)):
        frame = BoardFrame(rows, cols)
        cells = [(r, c) for r in range(rows) for c in range(cols)]
        for k, (_, sigma) in enumerate(frame.mirrors):
            for trial in range(60):
                # Half the masks are made symmetric on purpose, or the check is never true.
                chosen = {cell for cell in cells if rng.random() < 0.3}
                if trial % 2:
                    chosen |= {sigma(*cell) for cell in chosen}
                mask = sum(1 << frame.index(r, c) for r, c in chosen)
                expected = all(sigma(r, c) in chosen and max(abs(sigma(r, c)[0] - r),
                                                             abs(sigma(r, c)[1] - c)) >= 2
                               for r, c in chosen)
                assert frame.mirror_safe(k, mask) == expected, (rows, cols, k, sorted(chosen))
