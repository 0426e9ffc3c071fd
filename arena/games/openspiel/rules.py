"""Any OpenSpiel game through the arena's contract: the family of games `openspiel:NAME(PARAMS)`.

Pure: OpenSpiel's own rules engine (the `open_spiel` package, `pip install 'arena[openspiel]'`),
no I/O, no clocks. The spec after `openspiel:` is OpenSpiel's own game string
(`kuhn_poker`, `goofspiel(num_cards=6)`); the setup map is empty. A move is an action: its
integer, or its action string (as `action_to_string` writes it). Chance is the referee's: every
chance node is resolved from the match seed (`chance_rng`), never by OpenSpiel's own generator.

Two ways to show a game, chosen from its type:
- public (sequential, perfect information): every seat sees everything; a seat's view is the
  position itself, and the chance outcomes drawn reach it as `[-1, {"chance": [...], ...}]`.
- hidden (every other game: imperfect information, simultaneous moves, one-shot games): a seat
  is never shown another seat's move; after the opening and after every turn, a seat whose
  observation changed, or that moves next, is sent `[-1, {"observation": TEXT}]` with, when it
  moves, `"legal"` (its actions) and `"labels"` (their action strings). TEXT is OpenSpiel's
  `observation_string` for the seat (`information_state_string` where the game has no
  observation). Simultaneous nodes are simultaneous turns.
"""

from __future__ import annotations

import random
import zlib
from collections.abc import Mapping
from typing import Any

from arena.games.base import (
    REFEREE,
    Event,
    Game,
    GameError,
    IllegalMove,
    Move,
    State,
    chance_rng,
    game_of_module,
    is_int,
    need_setup_map,
)

try:  # the optional extra: without it the family answers every name with how to install it
    import pyspiel
except ImportError:  # pragma: no cover - exercised where open_spiel is not installed
    pyspiel = None

FAMILY = game_of_module(__name__)  # the folder's name
INSTALL = "the open_spiel package is not installed (pip install 'arena[openspiel]')"
SHOWN_ACTIONS = 12  # legal actions quoted in an illegal move's message
MAX_PLAYERS = 4  # the arena's seats per match


class Position(State):
    """A position: OpenSpiel's state, the steps that led to it, and (the referee's) the chance drawn so far.

    `seed` is None in a seat's view of a public game: it draws no chance and waits for the
    referee's chance events instead. `shown` is the observation each seat was last sent and
    `fresh` the seats sent one after the last turn (hidden games only).
    """

    def __init__(self, game: OpenSpielGame, state: Any, steps: list[Any], seed: int | None, draws: int = 0,
                 shown: list[str | None] | None = None, fresh: list[bool] | None = None) -> None:
        self.game = game  # type: ignore[misc]  # one class serves every game of the family
        self.state = state
        self.steps = steps  # every action applied: an int (a move or a chance outcome), a list (a joint move)
        self.seed = seed
        self.draws = draws
        players = game.min_players
        self.shown = shown if shown is not None else [None] * players
        self.fresh = fresh if fresh is not None else [False] * players

    # --- who moves, and what ---------------------------------------------------------

    def movers(self) -> list[int]:
        state = self.state
        if state.is_terminal():
            return []
        if state.is_simultaneous_node():
            return list(range(self.game.min_players))
        player = state.current_player()
        return [player] if player >= 0 else []  # a view of a public game waits at a chance node

    def to_move(self) -> int | None:
        movers = self.movers()
        return movers[0] if movers else None

    def moves_of(self, seat: int) -> list[Move]:
        if seat not in self.movers():
            return []
        return list(self.state.legal_actions(seat))

    def legal_moves(self) -> list[Move]:
        seat = self.to_move()
        return [] if seat is None else self.moves_of(seat)

    def action(self, seat: int, move: Move) -> int:
        """The action a move of seat names (its integer or its action string); IllegalMove when it is not legal now."""
        if seat not in self.movers():
            raise IllegalMove(move, f"seat {seat} does not move now")
        legal = self.moves_of(seat)
        if is_int(move) and move in legal:
            return int(move)
        if isinstance(move, str):
            for action in legal:
                if self.state.action_to_string(seat, action) == move:
                    return int(action)
        shown = ", ".join(map(str, legal[:SHOWN_ACTIONS])) + (", ..." if len(legal) > SHOWN_ACTIONS else "")
        raise IllegalMove(move, f"not a legal action of seat {seat} (an action number or its action string; "
                                f"legal now: {shown})")

    def check_move(self, seat: int, move: Move) -> None:
        self.action(seat, move)

    # --- playing -------------------------------------------------------------------------

    def apply(self, move: Move) -> list[Event]:
        movers = self.movers()
        if len(movers) != 1:
            raise IllegalMove(move, "the game is over" if not movers else
                              "a simultaneous turn: every mover's move at once (apply_turn)")
        action = self.action(movers[0], move)
        self.state.apply_action(action)
        self.steps.append(action)
        return self._settle()

    def apply_turn(self, moves: Mapping[int, Move]) -> list[Event]:
        movers = self.movers()
        if len(movers) == 1 and set(moves) == set(movers):
            return self.apply(moves[movers[0]])
        if not movers or set(moves) != set(movers):
            raise IllegalMove(dict(moves), f"a turn of seats {movers} needs one move from each")
        joint = [self.action(seat, moves[seat]) for seat in movers]
        self.state.apply_actions(joint)
        self.steps.append(joint)
        return self._settle()

    def _settle(self) -> list[Event]:
        """Resolve chance from the seed (the referee's position; a view waits), then note each seat's view."""
        drawn = []
        while self.seed is not None and self.state.is_chance_node():
            outcomes = self.state.chance_outcomes()
            rng = chance_rng(self.seed, self.draws)
            self.draws += 1
            outcome = rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes])[0]
            drawn.append((outcome, self.state.action_to_string(pyspiel.PlayerId.CHANCE, outcome)))
            self.state.apply_action(outcome)
            self.steps.append(outcome)
        payload = {"chance": [a for a, _ in drawn], "labels": [label for _, label in drawn]}
        if not self.game.hidden_information:
            return [[REFEREE, payload]] if drawn else []
        movers = self.movers()
        for seat in range(len(self.shown)):
            seen = self.game.observation(self.state, seat)
            self.fresh[seat] = seen != self.shown[seat] or seat in movers
            self.shown[seat] = seen
        return [[REFEREE, payload]] if self.seed is not None else []

    def observe(self, event: Event, seat: int) -> Event | None:
        """A seat's view of the turn just played: its observation when it changed or the seat moves, nothing else."""
        if event[0] != REFEREE or not self.fresh[seat]:
            return None  # another seat's action reaches the seat only through its own observation
        view: dict[str, Any] = {"observation": self.shown[seat]}
        if seat in self.movers():
            legal = self.moves_of(seat)
            view["legal"] = legal
            view["labels"] = [self.state.action_to_string(seat, action) for action in legal]
        return [REFEREE, view]

    def apply_event(self, payload: Any) -> None:
        """A chance event of a public game: its outcomes, played on a seat's view that waits at a chance node."""
        if not isinstance(payload, dict) or not isinstance(payload.get("chance"), list):
            raise IllegalMove(payload, f"{self.game.name}'s referee events are {{\"chance\": [outcomes]}}")
        for outcome in payload["chance"]:
            if not self.state.is_chance_node() or not is_int(outcome) or outcome not in (
                    a for a, _ in self.state.chance_outcomes()):
                raise IllegalMove(payload, f"chance outcome {outcome!r} is not possible here")
            self.state.apply_action(outcome)
            self.steps.append(outcome)

    # --- the end -------------------------------------------------------------------------

    def is_over(self) -> bool:
        return bool(self.state.is_terminal())

    def scores(self) -> list[float]:
        return [float(r) for r in self.state.returns()]

    def forfeit_scores(self, offender: int) -> list[float]:
        low, high = self.game.utility_range()
        return [low if seat == offender else high for seat in range(self.game.min_players)]

    # --- data ----------------------------------------------------------------------------

    def render(self) -> str:
        return str(self.state)

    def fingerprint(self) -> int | None:
        # OpenSpiel's whole-state text and the steps taken: cheaper than to_data(), whose steps grow with the game.
        return zlib.crc32(f"{len(self.steps)}:{self.state}".encode())

    def to_data(self) -> dict[str, Any]:
        return {"steps": [list(s) if isinstance(s, list) else s for s in self.steps], "seed": self.seed,
                "draws": self.draws, "shown": list(self.shown), "fresh": list(self.fresh)}

    def copy(self) -> Position:
        return Position(self.game, self.state.clone(), [list(s) if isinstance(s, list) else s for s in self.steps],
                        self.seed, self.draws, list(self.shown), list(self.fresh))


class Knowledge(State):
    """A seat's view of a hidden game: what it was sent, in order (its views, and its own actions after them)."""

    def __init__(self, game: OpenSpielGame, seat: int, record: list[Any] | None = None) -> None:
        self.game = game  # type: ignore[misc]
        self.seat = seat
        self.record: list[Any] = record if record is not None else []  # view maps and the seat's own actions

    def _legal(self) -> list[int]:
        last = self.record[-1] if self.record else None
        return list(last.get("legal", [])) if isinstance(last, dict) else []

    def movers(self) -> list[int]:
        return [self.seat] if self._legal() else []

    def to_move(self) -> int | None:
        return self.seat if self._legal() else None

    def legal_moves(self) -> list[Move]:
        return self._legal()

    def moves_of(self, seat: int) -> list[Move]:
        return self._legal() if seat == self.seat else []

    def check_move(self, seat: int, move: Move) -> None:
        if seat != self.seat:
            raise IllegalMove(move, f"seat {seat}'s moves are not shown to seat {self.seat}")
        self._action(move)

    def _action(self, move: Move) -> int:
        last = self.record[-1] if self.record else {}
        legal = self._legal()
        if is_int(move) and move in legal:
            return int(move)
        labels = last.get("labels", []) if isinstance(last, dict) else []
        if isinstance(move, str) and move in labels:
            return legal[labels.index(move)]
        raise IllegalMove(move, f"not a legal action of seat {self.seat} now")

    def apply(self, move: Move) -> list[Event]:
        self.record.append(self._action(move))
        return []

    def apply_turn(self, moves: Mapping[int, Move]) -> list[Event]:
        if set(moves) != {self.seat}:
            raise IllegalMove(dict(moves), "a seat's view plays only its own moves")
        return self.apply(moves[self.seat])

    def apply_event(self, payload: Any) -> None:
        if not isinstance(payload, dict) or not isinstance(payload.get("observation"), str):
            raise IllegalMove(payload, f"{self.game.name}'s referee events are {{\"observation\": text, ...}}")
        legal = payload.get("legal", [])
        if not isinstance(legal, list) or not all(is_int(a) for a in legal):
            raise IllegalMove(payload, "legal must be a list of actions")
        self.record.append(dict(payload))

    def observation(self) -> str:
        """The latest observation the seat was sent ("" before any)."""
        views = [item for item in self.record if isinstance(item, dict)]
        return views[-1]["observation"] if views else ""

    def is_over(self) -> bool:
        return False  # the seat learns the end from the referee's `end`

    def scores(self) -> list[float]:
        return [0.0] * self.game.min_players

    def render(self) -> str:
        return f"seat {self.seat} sees:\n{self.observation()}"

    def to_data(self) -> dict[str, Any]:
        return {"seat": self.seat, "record": [dict(i) if isinstance(i, dict) else i for i in self.record]}

    def copy(self) -> Knowledge:
        return Knowledge(self.game, self.seat, [dict(i) if isinstance(i, dict) else i for i in self.record])


class OpenSpielGame(Game):
    """One OpenSpiel game, loaded from its game string, played through the arena's contract."""

    version = 1

    def __init__(self, spec: str, loaded: Any) -> None:
        kind = loaded.get_type()
        self.spec = spec
        self.loaded = loaded  # pyspiel.Game
        self.min_players = self.max_players = loaded.num_players()  # type: ignore[misc]
        self.description = f"OpenSpiel's {kind.long_name} ({loaded})"  # type: ignore[misc]
        self.chance = kind.chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC  # type: ignore[misc]
        self.hidden_information = not public(kind)  # type: ignore[misc]
        self.by_observation = bool(kind.provides_observation_string)

    def observation(self, state: Any, seat: int) -> str:
        """What a seat may know of a state: its observation string, else its information state string."""
        if self.by_observation:
            return str(state.observation_string(seat))
        return str(state.information_state_string(seat))

    def utility_range(self) -> tuple[float, float]:
        """The game's lowest and highest score (a forfeit's: the offender's lowest, the others' highest)."""
        return float(self.loaded.min_utility()), float(self.loaded.max_utility())

    def validate_setup(self, setup: Mapping[str, Any], players: int) -> dict[str, Any]:
        self.check_players(players)
        need_setup_map(self.name, setup, set())  # OpenSpiel's parameters are in the game's name
        return {}

    def random_setup(self, rng: random.Random, players: int,
                     partial: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.validate_setup(dict(partial or {}), players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        self.validate_setup(setup, players)
        position = Position(self, self.loaded.new_initial_state(), [], seed)
        return position, position._settle()

    def start_view(self, setup: Mapping[str, Any], players: int, seat: int) -> State:
        self.validate_setup(setup, players)
        if self.hidden_information:
            return Knowledge(self, seat)
        return Position(self, self.loaded.new_initial_state(), [], None)

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        if "record" in data:
            return Knowledge(self, int(data["seat"]), [dict(i) if isinstance(i, dict) else i for i in data["record"]])
        state = self.loaded.new_initial_state()
        steps = [list(s) if isinstance(s, list) else s for s in data["steps"]]
        try:
            for step in steps:
                state.apply_actions(step) if isinstance(step, list) else state.apply_action(step)
        except pyspiel.SpielError as exc:
            raise GameError(f"{self.name}: the steps {steps!r:.80} do not replay: {exc}") from None
        return Position(self, state, steps, data["seed"], int(data["draws"]), list(data["shown"]),
                        list(data["fresh"]))

    def render_move(self, move: Move) -> str:
        return f"action {move}"

    def describe_event(self, payload: Any) -> str:
        if isinstance(payload, dict) and payload.get("labels"):
            return "chance: " + ", ".join(map(str, payload["labels"]))
        if isinstance(payload, dict) and payload.get("chance") == []:
            return "each seat is sent its view"
        if isinstance(payload, dict) and "observation" in payload:
            return "observation: " + " ".join(str(payload["observation"]).split())[:120]
        return super().describe_event(payload)


def make_game(spec: str) -> Game:
    """The OpenSpiel game a game string names (`kuhn_poker`, `goofspiel(num_cards=6)`); GameError saying why not."""
    if pyspiel is None:
        raise GameError(INSTALL)
    short = spec.partition("(")[0].strip()
    if short not in known_games():
        raise GameError(f"OpenSpiel has no game {short!r} (its {len(known_games())} games: "
                        f"python -c 'import pyspiel; print(pyspiel.registered_names())')")
    try:
        loaded = pyspiel.load_game(spec)
    except pyspiel.SpielError as exc:
        raise GameError(f"OpenSpiel does not load {spec!r}: {one_line(str(exc))}") from None
    why = inexpressible(loaded)
    if why:
        raise GameError(f"OpenSpiel's {spec!r} cannot be played here: {why}")
    return OpenSpielGame(spec, loaded)


def inexpressible(loaded: Any) -> str:
    """Why a loaded OpenSpiel game cannot be played through the arena's contract ("" when it can)."""
    kind = loaded.get_type()
    Dynamics, Chance = pyspiel.GameType.Dynamics, pyspiel.GameType.ChanceMode
    if kind.dynamics not in (Dynamics.SEQUENTIAL, Dynamics.SIMULTANEOUS):
        return f"its dynamics are {kind.dynamics.name.lower()} (a mean-field game has no seats to play)"
    if kind.chance_mode == Chance.SAMPLED_STOCHASTIC:
        return ("its chance is drawn inside the game by its own generator (sampled stochastic), not at chance "
                "nodes the referee could draw from the match seed")
    if not 1 <= loaded.num_players() <= MAX_PLAYERS:
        return f"it has {loaded.num_players()} players; a match seats 1 to {MAX_PLAYERS}"
    if not public(kind) and not (kind.provides_observation_string or kind.provides_information_state_string):
        return "it gives a seat neither an observation nor an information state to be shown"
    return ""


def one_line(text: str, limit: int = 240) -> str:
    """An OpenSpiel message on one line, cut to limit characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def public(kind: Any) -> bool:
    """True for a game every seat sees whole: sequential, of perfect information (OpenSpiel's GameType)."""
    return bool(kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
                and kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION)


def known_games() -> list[str]:
    """OpenSpiel's registered games' short names ([] without open_spiel)."""
    return [] if pyspiel is None else sorted(g.short_name for g in pyspiel.registered_games())
