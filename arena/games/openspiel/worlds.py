"""Worlds a seat cannot tell from the one it plays in: OpenSpiel states drawn from what the seat was sent.

A seat of a hidden game keeps only what it was sent (rules.Knowledge): its views and its own
actions after them. `sample_world` searches OpenSpiel's game tree depth first, in a random order
(chance outcomes weighted by their probability, the others' actions uniformly), for a history in
which the referee would have sent the seat exactly those views: at the opening and after every
turn, a view whenever the seat's observation changed or it moves (rules.Position._settle), the
same observation, the same legal actions, and the seat's own actions where it played them. The
world found is one the seat cannot rule out; what it could not see (the others' cards, their
secret moves, the chance it was not shown) is drawn. Nothing of the referee's state is used.
"""

from __future__ import annotations

import itertools
import random
import time
from typing import Any

from .rules import OpenSpielGame


class OutOfTime(Exception):
    """The search for a world passed its deadline."""


def paired(record: list[Any]) -> list[tuple[dict[str, Any], int | None]]:
    """A seat's record as (view, its own action after it, or None)."""
    pairs: list[tuple[dict[str, Any], int | None]] = []
    for item in record:
        if isinstance(item, dict):
            pairs.append((item, None))
        elif pairs:
            pairs[-1] = (pairs[-1][0], int(item))
    return pairs


def weighted_order(outcomes: list[tuple[int, float]], rng: random.Random) -> list[int]:
    """Chance outcomes in a random order where likelier ones tend to come first (without replacement)."""
    keyed = [(rng.random() ** (1.0 / p), a) for a, p in outcomes if p > 0]
    return [a for _, a in sorted(keyed, reverse=True)]


class _Search:
    """One depth-first search for a world that explains a seat's record."""

    def __init__(self, game: OpenSpielGame, seat: int, record: list[Any], rng: random.Random, deadline: float) -> None:
        self.game = game
        self.seat = seat
        self.views = paired(record)
        self.rng = rng
        self.deadline = deadline

    def settle(self, state: Any, k: int, shown: str | None) -> Any:
        """Resolve chance (every outcome in turn), then check the position the turn settled on."""
        if time.monotonic() > self.deadline:
            raise OutOfTime
        if not state.is_chance_node():
            return self.check(state, k, shown)
        for outcome in weighted_order(state.chance_outcomes(), self.rng):
            found = self.settle(state.child(outcome), k, shown)
            if found is not None:
                return found
        return None

    def check(self, state: Any, k: int, shown: str | None) -> Any:
        """A settled position: the view the seat would be sent must be the next one it was; then go on."""
        seat, players = self.seat, self.game.min_players
        simultaneous = state.is_simultaneous_node()
        moves = not state.is_terminal() and (simultaneous or state.current_player() == seat)
        seen = self.game.observation(state, seat)
        own = None
        if seen != shown or moves:
            if k >= len(self.views):
                return None
            view, own = self.views[k]
            if view["observation"] != seen or ("legal" in view) != moves:
                return None
            if moves and list(view["legal"]) != list(state.legal_actions(seat)):
                return None
            if k == len(self.views) - 1:
                return state if moves else None  # the seat's decision now: the world is found
            k, shown = k + 1, seen
            if moves and own is None:
                return None
        if state.is_terminal():
            return None
        if simultaneous:
            choices = [[own] if p == seat else self._shuffled(state.legal_actions(p)) for p in range(players)]
            for joint in itertools.product(*choices):
                child = state.clone()
                child.apply_actions(list(joint))
                found = self.settle(child, k, shown)
                if found is not None:
                    return found
            return None
        actions = [own] if state.current_player() == seat else self._shuffled(state.legal_actions())
        for action in actions:
            found = self.settle(state.child(action), k, shown)
            if found is not None:
                return found
        return None

    def _shuffled(self, actions: list[int]) -> list[int]:
        actions = list(actions)
        self.rng.shuffle(actions)
        return actions


def sample_world(game: OpenSpielGame, seat: int, record: list[Any], rng: random.Random, deadline: float) -> Any:
    """An OpenSpiel state at the seat's decision that explains its record, or None; OutOfTime past the deadline."""
    if not record or not isinstance(record[-1], dict) or "legal" not in record[-1]:
        return None  # the seat does not move now
    try:
        return _Search(game, seat, record, rng, deadline).settle(game.loaded.new_initial_state(), 0, None)
    except RecursionError:
        return None


def turn_based(tb_game: Any, world: Any, seat: int, rng: random.Random) -> Any:
    """The world in the game's turn-based form, with the moves of the seats before this one in the turn drawn."""
    state = tb_game.new_initial_state()
    for step in world.full_history():
        state.apply_action(step.action)
    while not state.is_terminal() and state.current_player() != seat:
        state.apply_action(rng.choice(state.legal_actions()))  # what an earlier mover bids now: unseen, drawn
    return state
