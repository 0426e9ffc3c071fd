"""The games' exact solvers (their folders' solver.py): right where they answer, None beyond their budget.

Each is held to brute force on positions small enough for it (a plain negamax over the
rules engine itself), and to the contract check that `arena check-game` runs; a solver that
gets values wrong fails that check.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

from arena.games import State, get_game
from arena.integrity.solvers import check_solver, load_solver, outcome


def brute_force(state: State) -> int:
    """The value of a position for the seat to move, by negamax over every move of the rules engine."""
    @functools.cache
    def solve(key: str) -> int:
        position = states[key]
        seat = position.to_move()
        best = -1
        for move in position.legal_moves():
            child = position.copy()
            child.apply(move)
            if child.is_over():
                value = outcome(child, seat)
            else:
                states.setdefault(key_of(child), child)
                value = solve(key_of(child)) * (1 if child.to_move() == seat else -1)
            best = max(best, value)
            if best == 1:
                break
        return best

    def key_of(position: State) -> str:
        return repr(position.to_data()) + repr(getattr(position, "pot", ""))

    states = {key_of(state): state}
    return solve(key_of(state))


def endgames(game: str, setup: dict[str, Any], count: int, depth: int) -> list[State]:
    """Positions depth to depth + 2 plies before the end of seeded random games (small enough for brute force)."""
    rules = get_game(game)
    found = []
    for seed in range(count):
        rng = random.Random(seed)
        state, _ = rules.start(rules.random_setup(rng, 2, setup), 2, seed)
        seen = []
        while not state.is_over():
            seen.append(state.copy())
            state.apply(rng.choice(survivors(state)))
        if seen:
            found.append(seen[max(0, len(seen) - depth - seed % 3)])
    return found


def survivors(state: State) -> list[Any]:
    """The moves that do not lose at once (all of them when every move does): random games that last."""
    seat = state.to_move()
    moves = state.legal_moves()
    kept = []
    for move in moves:
        child = state.copy()
        child.apply(move)
        if not (child.is_over() and outcome(child, seat) < 0):
            kept.append(move)
    return kept or moves


@pytest.mark.parametrize(("game", "setup", "depth"), [
    ("blocking", {"min_size": 4, "max_size": 6}, 2),
    ("tiles", {"min_pot": 6, "max_pot": 10, "min_rows": 4, "max_rows": 4, "max_row_len": 3}, 8),
    ("arrows", {"cols": 5, "rows": 5, "density": 0.3}, 6),
])
def test_each_solver_agrees_with_brute_force(game: str, setup: dict[str, Any], depth: int) -> None:
    solve = load_solver(game)
    assert solve is not None
    answered = 0
    for state in endgames(game, setup, 12, depth):
        value = solve(state.copy(), 200_000)
        if value is not None:
            answered += 1
            assert value == brute_force(state), state.render()
    assert answered >= 8  # endgames of small boards are within reach


@pytest.mark.parametrize("game", ["blocking", "tiles", "arrows"])
def test_each_solver_keeps_the_contract_on_random_games(game: str) -> None:
    settled, problems = check_solver(game)
    assert problems == [] and settled > 0


def test_a_solver_that_gets_values_wrong_fails_the_check() -> None:
    right = load_solver("blocking")
    assert right is not None

    def upside_down(state: State, budget: int) -> int | None:
        value = right(state, budget)
        return None if value is None else -value

    settled, problems = check_solver("blocking", solve=upside_down)
    assert settled and problems and "but a move reaches" in problems[0]


def test_blocking_values_known_boards_and_gives_up_beyond_its_budget() -> None:
    solve = load_solver("blocking")
    assert solve is not None
    game = get_game("blocking")

    def board(rows: int, cols: int, blocked: list[list[int]] | None = None) -> State:
        return game.start({"rows": rows, "cols": cols, "blocked": blocked or []}, 2, 0)[0]

    assert solve(board(6, 6), 100_000) == 1  # the first mover wins 6 x 6 (20 of its 36 first cells win)
    assert solve(board(1, 3, [[0, 1]]), 10) == -1  # two lone cells: the second mover takes the last
    assert solve(board(12, 12), 50) is None  # far out of a budget of 50 shapes
