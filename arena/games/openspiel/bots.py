"""The reference bots of every OpenSpiel game: `random`, and `mcts` (OpenSpiel's own searches).

Both keep only their seat's view (GameBot with the family's start_view): the position itself in
a public game, what the seat was sent in a hidden one (rules.Knowledge). `mcts` searches with
OpenSpiel's algorithms, on a state rebuilt from that view alone:
- sequential games of perfect information: OpenSpiel's MCTSBot on the position the seat follows;
- imperfect information: OpenSpiel's IS-MCTS, whose worlds are drawn from the seat's record
  (worlds.sample_world): the others' cards, moves and the chance the seat was not shown;
- simultaneous games: IS-MCTS over the game's turn-based form (pyspiel.convert_to_turn_based),
  in worlds drawn the same way, with the moves of the seats before this one in the turn drawn
  too (OpenSpiel's MCTSBot refuses simultaneous games as they are).
Each move gets a share of the clock: a probe search of two simulations measures the speed, then
a search sized to that share runs (or the option `simulations=N`, as far as the clock allows).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from arena.games import Move, State
from bots import common
from bots.common import GameBot, int_option

from .rules import Knowledge, OpenSpielGame, Position, pyspiel
from .worlds import OutOfTime, sample_world, turn_based

RESERVE_MS = 150  # kept back from the clock for the wire and the rest of the match
SHARE = 0.5  # of a move's share of the clock that the search is sized to (its speed varies)
MOVES_AHEAD = 30  # the most moves a move's share of the clock is reckoned over
MAX_MOVE_S = 2.0  # the longest search, whatever the clock
MAX_SIMULATIONS = 2_000
PROBE = 2  # simulations of the probe that measures the search's speed (IS-MCTS needs two; a rollout can be long)
WORLDS = 32  # worlds IS-MCTS draws per search (then it reuses them)
UCT_C = 2.0


class RandomBot(common.RandomBot):
    """A uniformly random legal action (seeded)."""

    description = "uniformly random legal action"


class MCTSBot(GameBot):
    """OpenSpiel's MCTS (perfect information) or IS-MCTS (hidden information, simultaneous moves), timed."""

    name = "mcts"
    strength = 2
    fixed_effort = "simulations=60"
    description = "OpenSpiel's MCTS, or IS-MCTS over worlds drawn from what the seat was sent"

    def __init__(self, simulations: int | None = None, **options: Any) -> None:
        super().__init__(**options)
        self.simulations = None if simulations is None else int_option("simulations", simulations)
        # OpenSpiel's searches (numpy with them) load here, at start-up, not on the match's clock.
        from open_spiel.python.algorithms import ismcts, mcts

        self.searches = (mcts, ismcts)
        self.search: Callable[[int, float], int | None] | None = None
        self.last_simulations = 0  # the size of the last search (tests and benches read it)
        self.unsearched = 0  # moves played at random: no world found, or out of time

    def on_init(self, time_left_ms: int) -> None:
        import numpy as np

        game = self.state.game
        assert isinstance(game, OpenSpielGame)
        self.game = game
        self.random_state = np.random.RandomState(self.rng.randrange(2**31))
        evaluator = self.searches[0].RandomRolloutEvaluator(1, self.random_state)
        kind = game.loaded.get_type()
        if not game.hidden_information:
            self.search = self._tree(evaluator) if kind.reward_model == pyspiel.GameType.RewardModel.TERMINAL else None
            return
        simultaneous = kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        searched = pyspiel.convert_to_turn_based(game.loaded) if simultaneous else game.loaded
        by_observation = not kind.provides_information_state_string
        bot = self.searches[1].ISMCTSBot(searched, evaluator, UCT_C, PROBE, max_world_samples=WORLDS,
                                         random_state=self.random_state, use_observation_string=by_observation)
        self.search = self._worlds(bot, searched if simultaneous else None)

    def choose(self, state: State, time_left_ms: int) -> Move:
        legal = state.moves_of(self.seat)
        if len(legal) == 1 or self.search is None:
            return legal[0] if len(legal) == 1 else self.rng.choice(legal)
        deadline = time.monotonic() + self.budget_s(state, time_left_ms)
        try:
            action = self._timed(self.search, deadline)
        except OutOfTime:
            action = None
        if action not in legal:
            self.unsearched += 1
            return self.rng.choice(legal)
        return action

    def budget_s(self, state: State, time_left_ms: int) -> float:
        """Seconds for this move: a share of the clock left over the seat's moves likely left."""
        played = len(state.steps) if isinstance(state, Position) else len(getattr(state, "record", []))
        ahead = math.ceil(max(1, self.game.loaded.max_game_length() - played) / max(1, self.players))
        spare = max(0.0, time_left_ms - RESERVE_MS) / 1000.0
        return min(MAX_MOVE_S, spare / min(MOVES_AHEAD, max(2, ahead)))

    def _timed(self, search: Callable[[int, float], int | None], deadline: float) -> int | None:
        """A probe search, then one sized to the time left (at most the simulations asked for)."""
        target = self.simulations or MAX_SIMULATIONS
        probe = min(target, PROBE)
        started = time.monotonic()
        action = search(probe, deadline)
        self.last_simulations = probe
        spent = max(time.monotonic() - started, 1e-6)
        if probe < target:
            affordable = int(probe * (deadline - time.monotonic()) * SHARE / spent)
            if min(target, affordable) > probe:
                self.last_simulations = min(target, affordable)
                action = search(self.last_simulations, deadline)
        return action

    def _tree(self, evaluator: Any) -> Callable[[int, float], int | None]:
        """OpenSpiel's MCTSBot on the position the seat follows (a public game: it sees everything)."""
        bot = self.searches[0].MCTSBot(self.game.loaded, UCT_C, PROBE, evaluator, solve=True,
                                       random_state=self.random_state)

        def search(simulations: int, deadline: float) -> int | None:
            bot.max_simulations = simulations
            assert isinstance(self.state, Position)
            return int(bot.step(self.state.state.clone()))

        return search

    def _worlds(self, bot: Any, turn_based_game: Any) -> Callable[[int, float], int | None]:
        """IS-MCTS rooted in worlds drawn from the seat's record (in the turn-based form for simultaneous games)."""

        def draw(deadline: float) -> Any:
            assert isinstance(self.state, Knowledge)
            world = sample_world(self.game, self.seat, self.state.record, self.rng, deadline)
            if world is None or turn_based_game is None:
                return world
            return turn_based(turn_based_game, world, self.seat, self.rng)

        def search(simulations: int, deadline: float) -> int | None:
            root = draw(deadline)
            if root is None:
                return None
            key = bot.get_state_key(root)

            def resample(state: Any, player: int) -> Any:
                for _ in range(4):  # a world whose information state differs from the root's is drawn again
                    world = draw(deadline)
                    if world is not None and bot.get_state_key(world) == key:
                        return world
                return root.clone()

            bot.set_resampler(resample)
            bot._max_simulations = simulations
            return int(bot.step(root))

        return search


BOTS = [RandomBot, MCTSBot]
