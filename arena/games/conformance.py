"""The game conformance check: seeded random playouts that test a Game against the contract of base.py.

Pure (no I/O, no pytest): `check_game(game)` returns a `Report` of readable problems instead
of asserting, so the test suite, `arena check-game` and the author of a game plug-in run the
very same checks. Playout `seed` seats `min_players + seed % (the number of player counts)`
players, draws its setup with `game.random_setup(random.Random(seed), players)` and its moves
with the same generator; "ply P" is the position after P moves. `position(game, seed, ply)`
rebuilds that position to reproduce a problem.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeGuard, TypeVar

from arena.games.base import (
    REFEREE,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    ranks_from_scores,
)
from arena.games.seats import SeatView, play_turn, random_turn, wire

__all__ = ["CHECKS", "Check", "CheckResult", "Problem", "Report", "check_game", "play_turn", "players_for",
           "position", "random_turn"]

MAX_PLIES = 20_000
GARBAGE_MOVES: tuple[Any, ...] = (None, "garbage", -1, [], {"x": 1}, [10**9, 10**9], 3.5, True)
END_REASONS = ("normal", "blocked", "resigned")
SHOWN = 72  # characters of a value quoted in a problem
T = TypeVar("T")


@dataclass(frozen=True)
class Check:
    """One property every game must have; the title may name {games} and {max_plies}."""

    key: str
    title: str


CHECKS: tuple[Check, ...] = (
    Check("metadata", "metadata: a name, a version >= 1, 1 <= min_players <= max_players <= 4"),
    Check("setups", "setups: generated ones validate to themselves and keep the keys given; "
                    "bad ones and wrong player counts raise SetupError"),
    Check("start", "start is deterministic for a seed and opens with referee events only"),
    Check("legal", "legal moves stay legal over {games} random games"),
    Check("refused", "malformed moves raise IllegalMove and change nothing"),
    Check("deterministic", "apply is deterministic: a copy given the same move reaches the same state"),
    Check("copy", "copies are independent of the original"),
    Check("data", "to_data is plain data and state_from_data round-trips it"),
    Check("mirror", "each seat's view (start_view of its share of the setup, then what it is shown) keeps up "
                    "with the game and knows its own moves"),
    Check("fingerprint", "fingerprints are None or 32-bit and equal for a rebuilt state"),
    Check("render", "render and render_move give deterministic text"),
    Check("to_setup", "positions of running games give valid setups (to_setup, where the game has it)"),
    Check("end", "every game ends within {max_plies} plies with a score per seat, ranks from the scores "
                 "and a reason"),
)


@dataclass(frozen=True)
class Problem:
    """One broken property, with the playout (seed, players) and the ply that show it."""

    check: str
    message: str
    seed: int | None = None
    ply: int | None = None
    players: int | None = None

    def where(self) -> str:
        """`seed 3, ply 12, 2 players` (what reproduces it), or empty."""
        parts = [f"seed {self.seed}"] if self.seed is not None else []
        parts += [f"ply {self.ply}"] if self.ply is not None else []
        parts += [f"{self.players} player{'s' * (self.players != 1)}"] if self.players is not None else []
        return ", ".join(parts)

    def __str__(self) -> str:
        where = self.where()
        return f"{where}: {self.message}" if where else self.message


@dataclass
class CheckResult:
    """The outcome of one check over every playout."""

    check: Check
    title: str
    problems: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when no playout showed a problem."""
        return not self.problems


@dataclass
class Report:
    """Every check's outcome for one game."""

    game: str
    games: int
    results: list[CheckResult]

    @property
    def problems(self) -> list[Problem]:
        """Every problem found, check by check."""
        return [p for result in self.results for p in result.problems]

    @property
    def ok(self) -> bool:
        """True when every check passed."""
        return all(result.ok for result in self.results)

    def failed(self) -> list[str]:
        """The keys of the checks that failed."""
        return [result.check.key for result in self.results if not result.ok]

    def lines(self, shown: int = 3) -> list[str]:
        """One line per check (`ok  …` / `FAIL  …` with up to `shown` problems under it) and a verdict."""
        out = []
        for result in self.results:
            out.append(f"{'ok' if result.ok else 'FAIL':4}  {result.title}")
            for problem in result.problems[:shown]:
                out.append(f"        {problem}")
            if len(result.problems) > shown:
                out.append(f"        ... and {len(result.problems) - shown} more")
        bad = len(self.failed())
        games = f"{self.games} random game{'s' * (self.games != 1)}"
        out.append(f"{self.game}: all {len(self.results)} checks pass ({games})" if not bad
                   else f"{self.game}: {bad} of {len(self.results)} checks FAIL ({games})")
        return out


class _Stop(Exception):
    """Ends one playout: the state can no longer be trusted."""


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= SHOWN else text[: SHOWN - 3] + "..."


def _raised(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= 2 * SHOWN else text[: 2 * SHOWN - 3] + "..."


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two plain values first differ: `at ['board'][3]: 1 != 2`."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"key {path}[{key!r}] only in the {'second' if key not in a else 'first'}"
            if a[key] != b[key]:
                return _first_difference(a[key], b[key], f"{path}[{key!r}]")
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"at {path or 'the top'}: {_short(a)} != {_short(b)}"


def _not_plain(value: Any, path: str = "") -> str | None:
    """Where a value stops being plain wire data (maps with string keys, lists, str, numbers, bool, None)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = _not_plain(item, f"{path}[{i}]")
            if found:
                return found
        return None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path or 'the top'} has the key {_short(key)}, not a string"
            found = _not_plain(item, f"{path}[{key!r}]")
            if found:
                return found
        return None
    return f"{path or 'the top'} is a {type(value).__name__}"


def _is_int(value: Any) -> TypeGuard[int]:
    """True for a real int (bools excluded)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_event(event: Any) -> bool:
    return isinstance(event, list) and len(event) == 2 and event[0] == REFEREE and _is_int(event[0])


def players_for(game: Game, seed: int) -> int:
    """The number of seats of playout `seed`: the game's player counts in turn."""
    return game.min_players + seed % (game.max_players - game.min_players + 1)


def position(game: Game, seed: int, ply: int) -> State:
    """The position after `ply` turns of playout `seed`, to reproduce a problem."""
    rng = random.Random(seed)
    players = players_for(game, seed)
    state, _ = game.start(game.random_setup(rng, players), players, seed)
    for _ in range(ply):
        play_turn(state, random_turn(state, rng))
    return state


class _Playout:
    """One seeded random game, checking the contract at every ply."""

    def __init__(self, game: Game, seed: int, max_plies: int, found: dict[str, Problem]) -> None:
        self.game = game
        self.seed = seed
        self.max_plies = max_plies
        self.found = found  # check key -> the first problem of this playout
        self.players = players_for(game, seed)
        self.ply: int | None = None
        self.rng = random.Random(seed)  # the setup, then every move
        self.views: list[SeatView] = []  # each seat's view, as its bot keeps it (until one fails)
        self.to_setup = True  # False once the game says it has no to_setup

    def fail(self, key: str, message: str) -> None:
        """Note a problem (the first of its check in this playout)."""
        self.found.setdefault(key, Problem(key, message, self.seed, self.ply, self.players))

    def stop(self, key: str, message: str) -> NoReturn:
        """Note a problem and end the playout: the state can no longer be trusted."""
        self.fail(key, message)
        raise _Stop

    def call(self, key: str, what: str, fn: Callable[..., T], *args: Any) -> T:
        """fn(*args), or a problem of `key` naming what raised (which ends the playout)."""
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            self.stop(key, f"{what} raised {_raised(exc)}")

    def run(self) -> None:
        """Play the game to its end, or until the state can no longer be trusted."""
        try:
            state = self.begin()
            state = self.play(state)
            self.finish(state)
        except _Stop:
            pass
        except Exception as exc:  # noqa: BLE001 - a game's value of the wrong shape, met unguarded
            self.fail("end", f"the playout stopped on {_raised(exc)}")

    def begin(self) -> State:
        """The setup and start checks; return the started state."""
        game, players, seed = self.game, self.players, self.seed
        setup = self.call("setups", f"random_setup(rng, {players})", game.random_setup, self.rng, players)
        if not isinstance(setup, dict):
            self.stop("setups", f"random_setup returned {_short(setup)}, not a dict")
        bad = _not_plain(setup)
        if bad:
            self.fail("setups", f"the generated setup is not plain data: {bad}")
        valid = self.call("setups", "validate_setup of a generated setup", game.validate_setup, setup, players)
        if valid != setup:
            self.fail("setups", f"validate_setup changes a generated setup, {_first_difference(setup, valid)}")
        again = self.call("setups", "random_setup", game.random_setup, random.Random(seed), players)
        if again != setup:
            self.fail("setups", f"random_setup differs for the same seed, {_first_difference(setup, again)}")
        kept = self.call("setups", "random_setup(rng, players, setup)", game.random_setup,
                         random.Random(seed + 1), players, dict(setup))
        if kept != setup:
            self.fail("setups", f"random_setup does not keep the keys given, {_first_difference(setup, kept)}")
        state, events = self.call("start", "start", game.start, setup, players, seed)
        twin, twin_events = self.call("start", "start", game.start, setup, players, seed)
        if twin_events != events or self.call("start", "to_data", twin.to_data) != state.to_data():
            self.fail("start", "start gives different states or events for the same setup and seed")
        if not isinstance(events, list) or not all(_is_event(event) for event in events):
            self.stop("start", f"start's events are not [-1, payload] lists: {_short(events)}")
        seats = range(players) if game.hidden_information else range(1)  # public: every view is the same
        for seat in seats:
            share = self.call("mirror", f"observe_setup(setup, {seat})", game.observe_setup, setup, seat)
            view = self.call("mirror", f"start_view of seat {seat}'s share", game.start_view, share, players, seat)
            self.views.append(SeatView(seat, view))
        self.follow(state, events)
        return state

    def follow(self, state: State, events: list[Any], skip: int | None = None) -> None:
        """Show each view its share of events (as the referee sends them), as a bot's copy learns them."""
        for view in list(self.views):
            if view.seat == skip:
                continue
            for event in events:
                try:
                    seen = state.observe(event, view.seat) if self.game.hidden_information else event
                    if seen is not None:
                        view.see(wire(seen))
                except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
                    self.fail("mirror", f"seat {view.seat}'s view of {_short(event)} raised {_raised(exc)}")
                    self.views = []
                    return

    def play(self, state: State) -> State:
        """Random moves until the game ends, checking every position."""
        for ply in range(self.max_plies):
            self.ply = ply
            data = self.position(state)
            if self.call("end", "is_over", state.is_over):
                return state
            if self.to_setup:
                self.check_setup(state)
            move, events = self.move(state, data)
            self.after(state, move, events)
        self.ply = self.max_plies
        self.stop("end", f"the game did not end within {self.max_plies} plies")

    def position(self, state: State) -> Any:
        """Check render, mirror, data and fingerprint of one position; return its to_data()."""
        game = self.game
        text = self.call("render", "render", state.render)
        if not isinstance(text, str):
            self.fail("render", f"render returned a {type(text).__name__}, not text")
        elif self.call("render", "render", state.render) != text:
            self.fail("render", "render gives different text for the same position")
        for view in self.views:
            if not self.game.hidden_information:
                if self.call("mirror", "render of a seat's view", view.state.render) != text:
                    self.fail("mirror", "a seat's view differs from the referee's position (render)")
                    self.views = []
                    break
            elif not state.is_over() and view.seat in state.movers():
                own = self.call("mirror", "moves_of in a seat's view", view.state.moves_of, view.seat)
                if own != state.moves_of(view.seat):
                    self.fail("mirror", f"seat {view.seat}'s view offers it {_short(own)}, the referee's position "
                                        f"{_short(state.moves_of(view.seat))}")
                    self.views = []
                    break
        data = self.call("data", "to_data", state.to_data)
        bad = _not_plain(data)
        if bad:
            self.fail("data", f"to_data is not plain data: {bad}")
        rebuilt = self.call("data", "state_from_data(to_data())", game.state_from_data, data)
        back = self.call("data", "to_data of a rebuilt state", rebuilt.to_data)
        if back != data:
            self.fail("data", f"state_from_data(to_data()) differs, {_first_difference(data, back)}")
        mark = self.call("fingerprint", "fingerprint", state.fingerprint)
        if mark is not None and (not _is_int(mark) or not 0 <= mark < 2**32):
            self.fail("fingerprint", f"fingerprint is {_short(mark)}, not None or an int in 0..2**32-1")
        elif self.call("fingerprint", "fingerprint of a rebuilt state", rebuilt.fingerprint) != mark:
            self.fail("fingerprint", "a rebuilt state has another fingerprint")
        return data

    def check_setup(self, state: State) -> None:
        """A running game's to_setup() validates, unless the game has none (NotImplementedError)."""
        try:
            setup = state.to_setup()
        except NotImplementedError:
            self.to_setup = False
            return
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            self.fail("to_setup", f"to_setup raised {_raised(exc)}")
            self.to_setup = False
            return
        try:
            self.game.validate_setup(setup, self.players)
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            self.fail("to_setup", f"to_setup gives {_short(setup)}, which does not validate: {_raised(exc)}")
            self.to_setup = False

    def move(self, state: State, data: Any) -> tuple[dict[int, Move], list[Any]]:
        """Check the legal moves and malformed ones, then play a random turn; return its moves and events."""
        movers = self.call("legal", "movers", state.movers)
        if not isinstance(movers, list) or not movers or not all(_is_int(m) and 0 <= m < self.players for m in movers):
            self.stop("legal", f"movers() is {_short(movers)} in a game that is not over (seats 0..{self.players - 1})")
        if len(movers) > 1:
            return self.simultaneous(state, data, movers)
        mover = self.call("legal", "to_move", state.to_move)
        if not _is_int(mover) or not 0 <= mover < self.players:
            self.stop("legal", f"to_move() is {_short(mover)} in a game that is not over "
                               f"(seats 0..{self.players - 1})")
        legal = self.call("legal", "legal_moves", state.legal_moves)
        if not isinstance(legal, list) or not legal:
            self.stop("legal", f"a game that is not over offers no legal moves: {_short(legal)}")
        if self.call("legal", "legal_moves", state.legal_moves) != legal:
            self.fail("legal", "legal_moves gives another list for the same position")
        for candidate in legal:
            bad = _not_plain(candidate)
            if bad:
                self.fail("legal", f"legal move {_short(candidate)} is not plain data: {bad}")
                break
        self.refuse(state, data, legal)
        move = self.rng.choice(legal)
        copy = self.call("copy", "copy", state.copy)
        sent = wire(move)
        try:
            events = state.apply(sent)
        except IllegalMove as exc:
            delivered = " (as the wire delivers it)" if repr(sent) != repr(move) else ""
            self.stop("legal", f"legal move {_short(sent)}{delivered} was refused: {exc}")
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            self.stop("legal", f"apply({_short(sent)}) of a legal move raised {_raised(exc)}")
        if not isinstance(events, list) or not all(_is_event(event) for event in events):
            self.stop("mirror", f"apply({_short(sent)}) returned events that are not [-1, payload] lists: "
                                f"{_short(events)}")
        if self.call("copy", "to_data of a copy", copy.to_data) != data:
            self.fail("copy", f"a copy changed when the original played {_short(sent)}")
        else:
            twin_events = self.call("deterministic", "apply on a copy", copy.apply, wire(move))
            if twin_events != events:
                self.fail("deterministic", f"{_short(sent)} causes other events on a copy: {_short(twin_events)} "
                                           f"!= {_short(events)}")
            else:
                mine = self.call("data", "to_data", state.to_data)
                theirs = self.call("deterministic", "to_data of a copy", copy.to_data)
                if theirs != mine:
                    self.fail("deterministic", f"{_short(sent)} on a copy gives another state, "
                                               f"{_first_difference(mine, theirs)}")
        shown = self.call("render", f"render_move({_short(move)})", self.game.render_move, move)
        if not isinstance(shown, str):
            self.fail("render", f"render_move returned a {type(shown).__name__}, not text")
        return {mover: move}, events

    def simultaneous(self, state: State, data: Any, movers: list[int]) -> tuple[dict[int, Move], list[Any]]:
        """A simultaneous turn: each mover's moves, malformed ones refused by check_move, then a random turn."""
        for seat in movers:
            legal = self.call("legal", f"moves_of({seat})", state.moves_of, seat)
            if not isinstance(legal, list) or not legal:
                self.stop("legal", f"mover {seat} has no legal moves in a game that is not over: {_short(legal)}")
            for garbage in GARBAGE_MOVES:
                if any(type(m) is type(garbage) and m == garbage for m in legal):
                    continue
                try:
                    state.check_move(seat, garbage)
                except IllegalMove:
                    continue
                except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
                    self.fail("refused", f"check_move({seat}, {_short(garbage)}) raised {_raised(exc)}")
                    continue
                self.stop("refused", f"the malformed move {_short(garbage)} of seat {seat} was accepted")
        moves = random_turn(state, self.rng)
        copy = self.call("copy", "copy", state.copy)
        try:
            events = play_turn(state, moves)
        except IllegalMove as exc:
            self.stop("legal", f"the legal turn {_short(moves)} was refused: {exc}")
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            self.stop("legal", f"apply_turn({_short(moves)}) raised {_raised(exc)}")
        if self.call("copy", "to_data of a copy", copy.to_data) != data:
            self.fail("copy", f"a copy changed when the original played {_short(moves)}")
        elif self.call("deterministic", "apply_turn on a copy", play_turn, copy, moves) != events:
            self.fail("deterministic", f"the turn {_short(moves)} causes other events on a copy")
        for _seat, move in moves.items():
            shown = self.call("render", f"render_move({_short(move)})", self.game.render_move, move)
            if not isinstance(shown, str):
                self.fail("render", f"render_move returned a {type(shown).__name__}, not text")
        return moves, events

    def refuse(self, state: State, data: Any, legal: list[Move]) -> None:
        """Malformed moves must raise IllegalMove and leave the state as it was."""
        for garbage in GARBAGE_MOVES:
            if any(type(m) is type(garbage) and m == garbage for m in legal):
                continue
            try:
                state.apply(garbage)
            except IllegalMove:
                pass
            except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
                self.fail("refused", f"apply({_short(garbage)}) raised {_raised(exc)} instead of IllegalMove")
            else:
                self.stop("refused", f"the malformed move {_short(garbage)} was accepted")
            now = self.call("refused", "to_data", state.to_data)
            if now != data:
                self.stop("refused", f"the refused move {_short(garbage)} changed the state, "
                                     f"{_first_difference(data, now)}")

    def after(self, state: State, moves: dict[int, Move], events: list[Any]) -> None:
        """Show every view the turn's moves (its own, and its view of the others') and its events."""
        for seat, move in moves.items():
            for view in list(self.views):
                if view.seat != seat:
                    continue
                try:
                    view.play(seat, wire(move))
                except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
                    self.fail("mirror", f"seat {seat}'s view refused its own move {_short(move)}: {_raised(exc)}")
                    self.views = []
            self.follow(state, [[seat, move]], skip=seat)
        self.follow(state, events)

    def finish(self, state: State) -> None:
        """Check the end of the game: nobody to move, scores, ranks, reason, forfeits."""
        players = self.players
        mover = self.call("end", "to_move", state.to_move)
        if mover is not None:
            self.fail("end", f"to_move() is {_short(mover)} in a game that is over, not None")
        scores = self.call("end", "scores", state.scores)
        if (not isinstance(scores, list) or len(scores) != players
                or not all(isinstance(s, (int, float)) and not isinstance(s, bool) for s in scores)):
            self.stop("end", f"scores() is {_short(scores)}, not {players} numbers")
        ranks = self.call("end", "ranks", state.ranks)
        if ranks != ranks_from_scores(scores):
            self.fail("end", f"ranks() is {_short(ranks)} but the scores {_short(scores)} give "
                             f"{ranks_from_scores(scores)}")
        reason = self.call("end", "end_reason", state.end_reason)
        if reason not in END_REASONS:
            self.fail("end", f"end_reason() is {_short(reason)}, not one of {', '.join(END_REASONS)}")
        resigned = self.call("end", "resigned", state.resigned)
        if reason == "resigned" and not (_is_int(resigned) and 0 <= resigned < players):
            self.fail("end", f"the game ended by resignation but resigned() is {_short(resigned)}")
        for seat in range(players):
            forfeit = self.call("end", f"forfeit_scores({seat})", state.forfeit_scores, seat)
            if not isinstance(forfeit, list) or len(forfeit) != players:
                self.fail("end", f"forfeit_scores({seat}) is {_short(forfeit)}, not {players} scores")


def _check_metadata(game: Game) -> list[str]:
    """What is wrong with the game's name, version and player counts."""
    name, version = getattr(game, "name", None), getattr(game, "version", None)
    low, high = getattr(game, "min_players", None), getattr(game, "max_players", None)
    wrong = []
    if not isinstance(name, str) or not name:
        wrong.append(f"name is {_short(name)}, not a non-empty string")
    if not _is_int(version) or version < 1:
        wrong.append(f"version is {_short(version)}, not an int >= 1")
    if not (_is_int(low) and _is_int(high) and 1 <= low <= high <= 4):
        wrong.append(f"players are {_short(low)}..{_short(high)}, not 1 <= min_players <= max_players <= 4")
    return wrong


def _check_refusals(game: Game, found: list[Problem]) -> None:
    """Bad setups and player counts outside the game's range must raise SetupError."""
    players = game.min_players
    try:
        setup = game.random_setup(random.Random(0), players)
    except Exception:  # noqa: BLE001 - a game's own bug is a problem to report
        return  # the playouts report it
    trials: list[tuple[str, Any, int]] = [
        ("a setup that is not a map", "garbage", players),
        ("a setup with an unknown key", {**setup, "no_such_key": 1}, players),
        (f"{game.min_players - 1} players", setup, game.min_players - 1),
        (f"{game.max_players + 1} players", setup, game.max_players + 1),
    ]
    for what, value, count in trials:
        try:
            game.validate_setup(value, count)
        except SetupError:
            continue
        except Exception as exc:  # noqa: BLE001 - a game's own bug is a problem to report
            found.append(Problem("setups", f"validate_setup of {what} raised {_raised(exc)}, not SetupError"))
            continue
        found.append(Problem("setups", f"validate_setup accepts {what}"))


def check_game(game: Game, seeds: int = 20, max_plies: int = MAX_PLIES) -> Report:
    """Run every check over `seeds` random playouts (seeds 0..seeds-1) and report the problems."""
    problems: list[Problem] = [Problem("metadata", text) for text in _check_metadata(game)]
    name = str(getattr(game, "name", "") or type(game).__name__)
    if not any(p.check == "metadata" and "players" in p.message for p in problems):
        _check_refusals(game, problems)
        for seed in range(seeds):
            found: dict[str, Problem] = {}
            _Playout(game, seed, max_plies, found).run()
            problems += found.values()
    else:
        problems += [Problem(c.key, "not run: the game's player counts are unusable") for c in CHECKS[1:]]
    results = []
    for check in CHECKS:
        title = check.title.format(games=seeds, max_plies=max_plies)
        results.append(CheckResult(check, title, [p for p in problems if p.check == check.key]))
    return Report(name, seeds, results)

