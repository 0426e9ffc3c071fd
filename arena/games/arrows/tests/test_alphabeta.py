"""Arrows `alphabeta`: tactics, proofs against an exhaustive solver, time, and strength."""

from __future__ import annotations

import itertools
import random
import time
from functools import cache

import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from arena.setups import complete_setup
from protocol.bot import Bot
from tests.helpers import duel, run

from ..bots import BOTS
from ..bots.alphabeta import AlphaBetaBot
from ..bots.search import DECIDED, WIN, Board, Searcher, longest_path, territory
from ..bots.simple import GreedyBot, RandomBot
from ..rules import ArrowsState

GAME = get_game("arrows")
BOARD_10 = {"cols": 10, "rows": 10, "density": 0.1}


def start(setup: dict, seat: int = 0, time_left_ms: int = 5000) -> AlphaBetaBot:
    bot = AlphaBetaBot()
    bot.reseed("m", seat)
    bot.init_game("arrows", seat, 2, GAME.validate_setup(setup), time_left_ms, "m")
    return bot


def play(setup: dict, bots: list[Bot], budget_ms: int = 5000) -> tuple[ArrowsState, list[int]]:
    """Play in process with the referee's clock rule (time from request to reply)."""
    return duel("arrows", setup, bots, budget_ms)


def test_alphabeta_is_registered() -> None:
    assert "alphabeta" in [bot.name for bot in BOTS]


def test_points_at_the_opponents_target_when_it_can() -> None:
    # Seat 0 targets (3,3); seat 1's target (4,4) is diagonally next to it: SE blocks seat 1.
    bot = start({"cols": 6, "rows": 6, "heads": [[2, 2], [5, 5]], "dirs": [3, 7]})
    assert bot.turn([], 5000) == 3
    assert bot.state.is_over() and bot.state.loser() == 1


def test_never_points_next_to_the_opponents_target_when_it_has_a_choice() -> None:
    for seed in range(20):
        bot = start(complete_setup(GAME, BOARD_10, 2, seed))
        board = Board(bot.state.cols, bot.state.rows)
        free = board.free_mask(bot.state.occupied)
        a, b = board.guarded(bot.state.target(0)), board.guarded(bot.state.target(1))
        safe = Searcher(board).safe_moves(free, a, b)
        bot.turn([], 5000)
        new_target = board.guarded(bot.state.target(0))
        if safe and new_target != b:
            assert not board.nbr[b] >> new_target & 1, seed


def exhaustive_win(state: ArrowsState) -> bool:
    """Does the mover win with best play? Plain search over the engine's own rules."""

    @cache
    def wins(occupied: int, heads: tuple, dirs: tuple, mover: int) -> bool:
        probe = state.copy()
        probe.occupied, probe.heads, probe.dirs, probe.mover = occupied, list(heads), list(dirs), mover
        probe.stuck = probe._mover_is_stuck()
        if probe.is_over():
            return False
        for d in range(8):
            child = probe.copy()
            child.apply(d)
            if child.is_over():
                return True  # the opponent is blocked
            if not wins(child.occupied, tuple(child.heads), tuple(child.dirs), child.mover):
                return True
        return False

    return wins(state.occupied, tuple(state.heads), tuple(state.dirs), state.mover)


def test_search_proves_the_same_results_as_an_exhaustive_solver() -> None:
    rng = random.Random(7)
    checked = 0
    while checked < 40:
        setup = GAME.random_setup(rng, 2, {"cols": rng.randint(4, 6), "rows": rng.randint(4, 5),
                                           "density": 0.2})
        state = GAME.start(setup, 2, 0)[0]
        if state.is_over():
            continue
        checked += 1
        board = Board(state.cols, state.rows)
        free = board.free_mask(state.occupied)
        a, b = board.guarded(state.target(0)), board.guarded(state.target(1))
        expected = exhaustive_win(state)
        if b < 0 or not free >> b & 1 or board.nbr[a] >> b & 1:
            assert expected  # immediate wins the bot handles before searching
            continue
        # Deep enough to reach the end of every line on these boards: a proven result.
        score = Searcher(board).negamax(free, a, b, 64, -WIN - 1, WIN + 1, 0)
        assert abs(score) >= DECIDED and (score > 0) == expected, setup
        target, _ = Searcher(board).best_move(free, a, b, 5.0)
        if expected:
            direction = next(d for d, n in board.moves[a] if n == target)
            child = state.copy()
            child.apply(direction)
            assert child.is_over() or not exhaustive_win(child)


def brute_longest(board: Board, free: int, start: int) -> int:
    best = 0

    def dfs(cell: int, avail: int, length: int) -> None:
        nonlocal best
        best = max(best, length)
        for _, n in board.moves[cell]:
            if avail >> n & 1:
                dfs(n, avail & ~(1 << n), length + 1)

    dfs(start, free & ~(1 << start), 1)
    return best


def test_space_filling_finds_a_longest_path() -> None:
    rng = random.Random(3)
    board = Board(5, 4)
    for _ in range(30):
        free = 0
        for i in range(board.rows * board.stride):
            if board.on_board >> i & 1 and rng.random() < 0.7:
                free |= 1 << i
        if not free:
            continue
        start = (free & -free).bit_length() - 1
        path = longest_path(board, free, start, time.monotonic() + 5.0)
        assert len(path) == brute_longest(board, free, start)
        assert path[0] == start and len(set(path)) == len(path)
        assert all(free >> cell & 1 for cell in path)
        assert all(board.nbr[x] >> y & 1 for x, y in itertools.pairwise(path))


def test_territory_counts_cells_reached_first() -> None:
    board = Board(5, 1 + 3)  # 5 wide, 4 high, nothing blocked
    free = board.on_board
    # Targets in opposite corners: each side owns the cells strictly nearer to it.
    t = territory(board, free, board.guarded(0), board.guarded(19))
    assert t.mine == t.theirs and not t.separated
    wall = sum(1 << (y * board.stride + 2) for y in range(4))
    t = territory(board, free & ~wall, board.guarded(0), board.guarded(19))
    assert t.separated and t.mine == t.theirs == 7


def test_a_nearly_empty_clock_still_gets_a_quick_legal_move() -> None:
    setup = complete_setup(GAME, BOARD_10, 2, 11)
    bot = start(setup, time_left_ms=10_000)
    started = time.monotonic()
    bot.turn([], 10_000)
    roomy_s = time.monotonic() - started
    bot = start(setup, time_left_ms=50)
    started = time.monotonic()
    assert bot.turn([], 50) in range(8)
    quick_s = time.monotonic() - started
    # Ordering, not a 50 ms bound: the same position with a 10 s clock takes far longer.
    assert quick_s < roomy_s / 4, (quick_s, roomy_s)


def test_beats_greedy_and_random_on_ten_games_each_within_five_seconds() -> None:
    wins = {"greedy": 0, "random": 0}
    for seed in range(5):
        setup = complete_setup(GAME, BOARD_10, 2, seed)
        for seat in (0, 1):
            for name, cls in (("greedy", GreedyBot), ("random", RandomBot)):
                bots: list[Bot] = [cls(seed=seed), cls(seed=seed)]
                bots[seat] = AlphaBetaBot()
                state, _ = play(setup, bots)
                wins[name] += state.scores()[seat] == 1.0
    assert wins["greedy"] >= 9 and wins["random"] == 10


def test_real_processes_with_the_acceptance_budget() -> None:
    clock = ClockSettings(budget_ms=5000)
    for seat, seed in ((0, 21), (1, 22)):
        bots = ["greedy", "greedy"]
        bots[seat] = "alphabeta"
        result, _ = run("arrows", bots, dict(BOARD_10), seed=seed, clock=clock)
        assert result.offender is None and result.scores[seat] == 1.0


def test_a_fixed_node_effort_ignores_the_clock() -> None:
    # 10x10 openings are far from proven: the time-bound search stops wherever the clock
    # says, the fixed-node search at the same node count whatever the budget.
    setup = complete_setup(GAME, BOARD_10, 2, 12)
    state = GAME.start(setup, 2, 0)[0]
    board = Board(state.cols, state.rows)
    free = board.free_mask(state.occupied)
    a, b = board.guarded(state.target(0)), board.guarded(state.target(1))
    answers = set()
    for budget_s in (5.0, 60.0):
        target, stats = Searcher(board).best_move(free, a, b, budget_s, nodes=2000)
        assert stats.nodes == 2001 and not stats.proven  # stopped by the count, mid-iteration
        answers.add((target, stats.depth, stats.score))
    assert len(answers) == 1
    path = longest_path(board, free, a, time.monotonic() + 60.0, max_nodes=50)
    assert len(path) >= 2 and path == longest_path(board, free, a, time.monotonic() + 5.0,
                                                   max_nodes=50)


def test_the_nodes_option_is_checked() -> None:
    for bad in (0, -3, 2.5, "many", True):
        with pytest.raises(ValueError, match="nodes must be a positive integer"):
            AlphaBetaBot(nodes=bad)
    assert AlphaBetaBot(nodes=500).nodes == 500 and AlphaBetaBot().nodes is None
