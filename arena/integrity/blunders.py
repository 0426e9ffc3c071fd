"""Games from their logs: which are copies of one another, and every move a player made from a won position.

A game's folder may hold an exact solver (its part `solver`: `value(state, budget_nodes)`,
+1 / 0 / -1 for the seat to move, None beyond the budget). Each game is replayed
(arena/logs/replay.py) and its positions are solved from the last one backwards, so that
the solver's memo grows from small positions to larger ones and the replay stops at the
first position out of reach (every earlier one is larger). At a position the mover had won,
every legal move is solved: the move played is a blunder when it leads to a lost position,
and the position's stratum is the share of its moves that do (the first move of a game has
strata of its own).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from arena.games import GameError, State
from arena.integrity.records import Game
from arena.integrity.solvers import Solve, SolverError, value_after
from arena.logs.matchlog import LogError, MatchLog, position_fingerprint, read_log
from arena.logs.replay import Disagreement, positions

SHARES = 4  # strata by the share of losing moves: (0, 1/4), [1/4, 1/2), [1/2, 3/4), [3/4, 1)
STRATA = 2 * SHARES  # each for the first move of a game and for the others


@dataclass(frozen=True)
class Decision:
    """A move a player made from a won position: its stratum and whether it threw the win away."""

    player: str
    opponent: str
    stratum: int
    blunder: bool
    key: tuple[int, str]  # the position and the move: a decision repeated in a copied game counts once


@dataclass
class Coverage:
    """How much of the games the solver settled."""

    games: int = 0
    positions: int = 0
    solved: int = 0
    won_moves: int = 0
    blunders: int = 0
    problems: list[str] = field(default_factory=list)


def read_game_log(game: Game) -> MatchLog | None:
    """The game's log, or None when it has none or it cannot be read."""
    if game.log is None:
        return None
    try:
        return read_log(game.log)
    except (LogError, OSError):
        return None


def copy_key(game: Game, log: MatchLog | None) -> tuple[Any, ...]:
    """What makes two games the same game: the seats, the setup and every move and referee event."""
    if log is None:
        return ("unique", game.ref)
    plays = [r["move"] if r["kind"] == "move" else r["event"] for r in log.records if r["kind"] in ("move", "event")]
    return game.seats, json.dumps(log.header.get("setup"), sort_keys=True), json.dumps(plays), game.points


def _steps(log: MatchLog) -> list[tuple[dict[str, Any], State]]:
    """Every move record with the position it was played from."""
    steps = []
    before: State | None = None
    for record, state in positions(log):
        if record is not None and before is not None:
            steps.append((record, before))
        before = state.copy()
    return steps


def game_decisions(game: Game, log: MatchLog, solve: Solve, budget: int, coverage: Coverage) -> list[Decision]:
    """The decisions from won positions in one game (positions out of the solver's reach are skipped)."""
    try:
        steps = _steps(log)
    except (GameError, Disagreement) as exc:
        coverage.problems.append(f"{game.ref}: the log does not replay ({exc})")
        return []
    coverage.games += 1
    coverage.positions += len(steps)
    found = []
    for record, before in reversed(steps):
        seat = record["seat"]
        try:
            value = solve(before, budget)
            if value is None:
                break  # every earlier position is larger: out of reach as well
            coverage.solved += 1
            if value != 1:
                continue
            outcomes = [value_after(solve, before, move, seat, budget) for move in before.legal_moves()]
            chosen = value_after(solve, before, record["move"], seat, budget)
        except (GameError, ArithmeticError, AssertionError, LookupError, TypeError, ValueError) as exc:
            raise SolverError(f"the solver failed on ply {record['ply']} of {game.ref}: {type(exc).__name__}: "
                              f"{exc}") from None
        losing = outcomes.count(-1)
        if None in outcomes or chosen is None or not losing:
            continue  # unsettled, or no move could have thrown the win away
        # The first move of a game has a stratum of its own: made before the mover has seen anything of its
        # opponent (but its name, where names are revealed), it is compared only with other first moves.
        share = min(SHARES - 1, losing * SHARES // len(outcomes))
        stratum = share + (SHARES if record["ply"] == 1 else 0)
        opponent = game.seats[1 - seat]
        coverage.won_moves += 1
        coverage.blunders += chosen == -1
        found.append(Decision(game.seats[seat], opponent, stratum, chosen == -1,
                              (position_fingerprint(before), json.dumps(record["move"], sort_keys=True))))
    return found
