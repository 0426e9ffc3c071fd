"""The game contract every rules engine implements: pure rules, no I/O, no clocks."""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, ClassVar

from protocol.messages import Reason

# A move and an event payload are plain msgpack/JSON data (ints, strings, lists, maps).
Move = Any
Event = list  # [actor, payload]: actor is a seat, or -1 for the referee (chance)
REFEREE = -1


class GameError(Exception):
    """Base class of every error a rules engine raises."""


class SetupError(GameError, ValueError):
    """A setup map is not valid for the game; the message names the field."""

    def __init__(self, game: str, message: str) -> None:
        super().__init__(f"{game}: {message}")
        self.game = game
        self.detail = message


class IllegalMove(GameError):
    """A move is not legal in the current position (wrong shape or type included)."""

    def __init__(self, move: Move, reason: str) -> None:
        super().__init__(f"illegal move {short_repr(move)}: {reason}")
        self.move = move
        self.reason = reason


def short_repr(value: Any, limit: int = 120) -> str:
    """repr(value) cut to limit characters: what a bot sent, quoted in a one-line error."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def ranks_from_scores(scores: Sequence[float]) -> list[int]:
    """Rank 1 is best; equal scores share a rank (competition ranking: 1, 1, 3)."""
    return [1 + sum(1 for other in scores if other > mine) for mine in scores]


def ranks_with_last(scores: Sequence[float], last: Sequence[int]) -> list[int]:
    """Ranks when some seats failed or forfeited: the others by score among themselves, those last."""
    others = iter(ranks_from_scores([s for i, s in enumerate(scores) if i not in last]))
    return [len(scores) if i in last else next(others) for i in range(len(scores))]


def chance_rng(seed: int, counter: int) -> random.Random:
    """The referee's generator for the counter-th chance draw of a match seeded with seed.

    Seeding per draw (not one long stream) keeps states plain data: a state holds only
    the seed and the counter, and a replay verifier reproduces any draw on its own.
    """
    return random.Random(f"arena:{seed}:{counter}")


def turn_order_rng(seed: int, ply: int) -> random.Random:
    """The generator of the order in which a simultaneous turn's movers are asked (the referee's, not chance)."""
    return random.Random(f"arena-turn-order:{seed}:{ply}")


class State(ABC):
    """A position of one match: whose turn, legal moves, applying moves, results."""

    game: ClassVar[Game]

    @abstractmethod
    def to_move(self) -> int | None:
        """The seat to move, or None when the game is over (in a simultaneous turn: the first of movers())."""

    @abstractmethod
    def legal_moves(self) -> list[Move]:
        """Every legal move of the seat to move, in a deterministic order."""

    def movers(self) -> list[int]:
        """The seats that move now, in seat order: one, several at once (a simultaneous turn), none when over.

        Games of one mover at a time keep this default; a game with simultaneous turns overrides it,
        with moves_of, check_move and apply_turn.
        """
        seat = self.to_move()
        return [] if seat is None or self.is_over() else [seat]

    def moves_of(self, seat: int) -> list[Move]:
        """Every legal move of one mover now, in a deterministic order ([] for a seat that does not move)."""
        return self.legal_moves() if self.movers() == [seat] else []

    def check_move(self, seat: int, move: Move) -> None:
        """Raise IllegalMove when move is not one seat may play now; never changes the state."""
        if seat not in self.movers():
            raise IllegalMove(move, f"seat {seat} does not move now")
        if len(self.movers()) == 1:
            self.copy().apply(move)
        elif move not in self.moves_of(seat):
            raise IllegalMove(move, "not a legal move now")

    def apply_turn(self, moves: Mapping[int, Move]) -> list[Event]:
        """Play one turn: the move of every mover at once; return the referee events it caused.

        The default plays the single mover's move with apply. A game with simultaneous turns
        overrides it; the referee calls it once every mover's move passed check_move.
        """
        movers = self.movers()
        if len(movers) != 1 or set(moves) != set(movers):
            raise IllegalMove(dict(moves), f"a turn of {movers} needs one move from each")
        return self.apply(moves[movers[0]])

    def observe(self, event: Event, seat: int) -> Event | None:
        """What seat may see of an event of the turn just played (None: nothing of it); called after it.

        The default shows everything: a game of public information keeps it. A game with hidden
        information (Game.hidden_information) shows each seat its own view: another seat's secret
        move as [actor, None], a deal as that seat's card alone, and so on.
        """
        return event

    @abstractmethod
    def apply(self, move: Move) -> list[Event]:
        """Play a move of the seat to move; return the referee events it caused.

        Raises IllegalMove (state unchanged) when the move is not legal or malformed.
        """

    @abstractmethod
    def is_over(self) -> bool:
        """True when the game has ended by its own rules."""

    @abstractmethod
    def scores(self) -> list[float]:
        """The score of every seat (meaningful at any time, final once over)."""

    @abstractmethod
    def render(self) -> str:
        """A deterministic text picture of the position."""

    @abstractmethod
    def to_data(self) -> dict[str, Any]:
        """The whole state as plain data (inverse of Game.state_from_data)."""

    def apply_event(self, payload: Any) -> None:
        """Impose a referee (chance) event received from the referee on this state.

        Chance events are assignments ("the offer is now X", "the smashed block is now T"),
        so a bot's copy of the state, which drew its own guess for the outcome while
        applying a move, becomes the referee's state by applying the event it receives.
        Games without chance keep this default, which refuses any event.
        """
        raise IllegalMove(payload, f"{self.game.name} has no referee events")

    def end_reason(self) -> Reason:
        """Why the game ended by its own rules: `normal`, `blocked` (no legal move) or `resigned`."""
        return Reason.NORMAL

    def fingerprint(self) -> int | None:
        """A cheap 32-bit fingerprint of the position for match logs, or None for the default.

        The default (used when this returns None) is the CRC-32 of to_data() as msgpack;
        games whose to_data() is costly on large boards override this.
        """
        return None

    def resigned(self) -> int | None:
        """The seat that resigned (end reason `resigned`), else None."""
        return None

    def forfeit_scores(self, offender: int) -> list[float]:
        """Scores when offender fails (timeout, crash, ...): by default the scores so far.

        Win/loss games override this to give the other seat the win.
        """
        return self.scores()

    def ranks(self) -> list[int]:
        """Ranks derived from scores (1 is best, ties share)."""
        return ranks_from_scores(self.scores())

    def copy(self) -> State:
        """An independent copy of this state."""
        return self.game.state_from_data(self.to_data())

    def to_setup(self) -> dict[str, Any]:
        """A setup that starts a new match from this very position."""
        raise NotImplementedError(f"{self.game.name} cannot turn a position into a setup")


class Game(ABC):
    """Metadata and factories of one game: a game folder's rules.py defines one as GAME."""

    name: str = ""  # the game folder's name, set when the registry loads the game
    version: ClassVar[int]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    description: ClassVar[str] = ""
    chance: ClassVar[bool] = False  # the referee draws something during a match (from its seed)
    # Some of the setup or of the events is not for every seat (observe_setup, State.observe): the
    # referee sends each seat its own view, and logs what it sent so that `arena verify` can check it.
    hidden_information: ClassVar[bool] = False
    # State.to_setup() keeps everything the rules use: a match from it continues the game exactly
    # (what `arena play` needs to take moves back against bots).
    exact_setups: ClassVar[bool] = False

    @abstractmethod
    def validate_setup(self, setup: Mapping[str, Any], players: int) -> dict[str, Any]:
        """Check a complete setup; return it normalised. Raises SetupError naming the field."""

    @abstractmethod
    def random_setup(
        self, rng: random.Random, players: int, partial: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Complete a partial setup (keys given are kept) into a valid one, using rng.

        Keys the game does not know as setup fields may carry generator options
        (board size ranges, density, ...); they do not appear in the result.
        """

    @abstractmethod
    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        """The initial state of a match and the referee events it opens with (e.g. an offer)."""

    @abstractmethod
    def state_from_data(self, data: Mapping[str, Any]) -> State:
        """Rebuild a state from State.to_data()."""

    def observe_setup(self, setup: Mapping[str, Any], seat: int) -> dict[str, Any]:
        """A seat's share of a validated setup (what its init carries); by default all of it."""
        return dict(setup)

    def start_view(self, setup: Mapping[str, Any], players: int, seat: int) -> State:
        """A seat's own view of the opening position, from its share of the setup (what a bot keeps).

        The view follows the game through the events the seat is sent (referee events with
        apply_event, the others' moves with apply or apply_turn). By default it is the position
        itself, started without chance (the referee's events overwrite every chance outcome).
        """
        return self.start(setup, players, 0)[0]

    def parse_setup_file(self, data: bytes, filename: str) -> dict[str, Any] | None:
        """Parse a setup file in a format of the game's own (not JSON/TOML); pure, no I/O.

        Return None when filename's format is not one of the game's own; raise SetupError
        naming what is wrong when it is but the content is malformed.
        """
        return None

    def check_players(self, players: int) -> None:
        """Raise SetupError when the number of seats is outside the game's range."""
        if not isinstance(players, int) or not self.min_players <= players <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players}..{self.max_players}"
            )
            raise SetupError(self.name, f"players must be {span}, got {players}")

    def render_move(self, move: Move) -> str:
        """A short human-readable form of a move (for `--show` and replays)."""
        return repr(move)

    def describe_event(self, payload: Any) -> str:
        """One line about a referee event's payload (replays, the viewer's step text)."""
        return f"referee event {short_json(payload, 200)}"


def game_of_module(module: str) -> str:
    """The game a module of a game folder belongs to: `arena.games.tiles.rules` -> `tiles`."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[0] == "arena" and parts[1] == "games" else parts[-1]


def short_json(value: Any, limit: int = 120) -> str:
    """Compact JSON of value, cut to limit characters."""
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --- small validation helpers shared by the engines -------------------------------------


def need_int(game: str, name: str, value: Any, lo: int | None = None, hi: int | None = None) -> int:
    """Return value if it is an int (not a bool) within [lo, hi]; else raise SetupError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SetupError(game, f"{name} must be an integer, got {value!r}")
    if lo is not None and value < lo or hi is not None and value > hi:
        raise SetupError(game, f"{name} must be in {lo}..{hi}, got {value}")
    return value


def need_list(game: str, name: str, value: Any) -> list[Any]:
    """Return value if it is a list or tuple (as a list); else raise SetupError."""
    if not isinstance(value, (list, tuple)):
        raise SetupError(game, f"{name} must be a list, got {type(value).__name__}")
    return list(value)


def need_pair(game: str, name: str, value: Any) -> tuple[int, int]:
    """Return value as an (int, int) pair; else raise SetupError."""
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or any(isinstance(v, bool) or not isinstance(v, int) for v in value)
    ):
        raise SetupError(game, f"{name} must be a pair of integers, got {value!r}")
    return int(value[0]), int(value[1])


def need_setup_map(
    game: str, setup: Any, known: set[str], required: tuple[str, ...] = ()
) -> Mapping[str, Any]:
    """Return setup if it is a map of known keys holding every required one; else SetupError."""
    if not isinstance(setup, Mapping):
        raise SetupError(game, f"setup must be a map, got {type(setup).__name__}")
    reject_unknown(game, setup, known)
    for key in required:
        if key not in setup:
            raise SetupError(game, f"missing {key}")
    return setup


def iter_bits(mask: int) -> Iterator[int]:
    """The indices of the set bits of mask, lowest first (engines keep boards as bit masks)."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def reject_unknown(game: str, setup: Mapping[str, Any], known: set[str]) -> None:
    """Raise SetupError naming the first key of setup that the game does not know."""
    for key in setup:
        if key not in known:
            raise SetupError(game, f"unknown setup key {key!r} (known: {', '.join(sorted(known))})")


def is_int(value: Any) -> bool:
    """True for a real int (bools excluded): wire moves must not smuggle True as 1."""
    return isinstance(value, int) and not isinstance(value, bool)
