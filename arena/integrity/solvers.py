"""A game's exact solver (the folder part `solver`) as the integrity check uses it, and the check of its contract.

The part is `solver.py` in a game's folder defining `value(state, budget_nodes)`: the
game-theoretic value of a position for the seat to move, +1 a win, 0 a draw, -1 a loss,
None when the budget (a count of the solver's own nodes, never a time) does not settle it.
It is pure, as the rules are. `check_solver` holds a solver to that on random games: every
value settled must be the best of the values of the position's moves (negamax, one ply
deep), the last moves of a game judged by its final ranks.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.games import Game, GameError, State, UnknownGame, game_module, get_game

Solve = Callable[[State, int], "int | None"]
VALUES = (-1, 0, 1)


class SolverError(Exception):
    """A game's solver is missing its `value` or failed on a position; the message says where."""


def load_solver(game: str) -> Solve | None:
    """The `value` function of a game's solver part, or None when the folder has none (or the game is unknown)."""
    try:
        module = game_module(game, "solver")
    except UnknownGame:
        return None  # a game this arena does not know: results only
    if module is None:
        return None
    value = getattr(module, "value", None)
    if not callable(value):
        raise SolverError(f"{module.__name__} defines no value(state, budget_nodes)")
    return value  # type: ignore[no-any-return]


def outcome(state: State, seat: int) -> int:
    """+1, 0 or -1 for seat at the end of a two-player game, by its ranks."""
    ranks = state.ranks()
    return (ranks[seat] < ranks[1 - seat]) - (ranks[seat] > ranks[1 - seat])


def value_after(solve: Solve, state: State, move: Any, seat: int, budget: int) -> int | None:
    """The value for seat of the position a move leads to (None: out of reach)."""
    child = state.copy()
    child.apply(move)
    if child.is_over():
        return outcome(child, seat)
    value = solve(child, budget)
    if value is None:
        return None
    return value if child.to_move() == seat else -value


def _playout(game: Game, seed: int) -> list[State]:
    """The positions of one seeded random two-player game, the first included, the last (over) left out."""
    rng = random.Random(seed)
    state, _ = game.start(game.random_setup(rng, 2), 2, seed)
    found = []
    while not state.is_over() and len(found) < 400:
        found.append(state.copy())
        state.apply(rng.choice(state.legal_moves()))
    return found


def check_solver(name: str, games: int = 6, budget: int = 2_000,
                 solve: Solve | None = None) -> tuple[int, list[str]]:
    """(positions settled, problems) of a game's solver on random games, checked against its moves' values."""
    game = get_game(name)
    solve = solve or load_solver(name)
    if solve is None:
        return 0, [f"{name} has no solver"]
    if game.min_players > 2 or game.max_players < 2:
        return 0, [f"{name} is not a two-player game: a solver's values are a two-player game's"]
    settled, problems = 0, []
    for seed in range(games):
        for ply, state in reversed(list(enumerate(_playout(game, seed)))):
            where = f"seed {seed}, ply {ply}"
            try:
                value = solve(state.copy(), budget)
                if value is None:
                    break  # earlier positions are larger: out of reach as well
                seat = state.to_move()
                children = [value_after(solve, state, move, seat, budget) for move in state.legal_moves()]
            except (GameError, ArithmeticError, AssertionError, LookupError, TypeError, ValueError) as exc:
                problems.append(f"{where}: the solver failed: {type(exc).__name__}: {exc}")
                break
            settled += 1
            known = [c for c in children if c is not None]
            if value not in VALUES:
                problems.append(f"{where}: value {value!r} is none of +1, 0, -1, None")
            elif known and max(known) > value:
                problems.append(f"{where}: value {value:+d}, but a move reaches {max(known):+d}")
            elif len(known) == len(children) and max(known) < value:
                problems.append(f"{where}: value {value:+d}, but the best move reaches {max(known):+d}")
    return settled, problems
