"""`arena check-game GAME|DIR`: is a game's folder whole and working, part by part?

The rules keep the contract (arena.games.conformance); every bot of the folder plays games
against the folder's weakest bot (random, where there is one) without a failure; the terminal
view renders every position of random games; the drawing draws every frame of a real match in
headless Chromium without an error (said when Chromium is not there); the rules document
exists and its example moves are legal; the demo config loads; an exact solver, where the folder
has one, gives every position it settles the value of its best move. One line per part, then a
verdict.
"""

from __future__ import annotations

import io
import json
import random
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games import Game, GameError, State, game_file, game_folder, game_module
from arena.games.conformance import check_game, players_for
from arena.games.seats import play_turn, random_turn
from arena.integrity.solvers import SolverError, check_solver, load_solver
from arena.kit.terminal import Terminal, View
from arena.kit.views import view_class
from arena.launch.specs.plugins import RegisteredBot, bots_for
from arena.logs.matchlog import read_log
from arena.outcomes import FAILURES
from arena.tournament.plan.adhoc import run_name
from arena.tournament.plan.config import ConfigError, config_from_data, load_config
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.store import StoreError
from arena.tournament.run.coordinator import Coordinator, RunOptions
from arena.viewer.frames import match_data
from arena.viewer.headless import draw_every_frame, missing_browser
from arena.viewer.page import match_page

EXAMPLE = re.compile(r"Example move: `([^`]+)` on the setup `(\{.*?\})`")
VIEW_GAMES = 6  # random games whose every position the view draws
SOLVER_GAMES = 6  # random games whose positions the solver values, from the end back
SHOWN = 3  # problems listed under a failed part


@dataclass
class Part:
    """The verdict on one part of the folder."""

    key: str
    status: str  # "ok", "FAIL", "skip" (could not be checked here) or "none" (the folder has none)
    title: str
    details: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The part's line and up to SHOWN details under it."""
        out = [f"{self.status:4}  {self.key}: {self.title}"]
        out += [f"        {d}" for d in self.details[:SHOWN]]
        if len(self.details) > SHOWN:
            out.append(f"        ... and {len(self.details) - SHOWN} more")
        return out


@dataclass
class FolderReport:
    """Every part's verdict for one game."""

    game: str
    parts: list[Part]

    @property
    def ok(self) -> bool:
        """True when no part failed."""
        return all(part.status != "FAIL" for part in self.parts)

    def lines(self) -> list[str]:
        """One line per part, then the verdict."""
        out = [line for part in self.parts for line in part.lines()]
        failed = [part.key for part in self.parts if part.status == "FAIL"]
        out.append(f"{self.game}: every part checked passes" if not failed
                   else f"{self.game}: FAIL: {', '.join(failed)}")
        return out


def check_folder(name: str, games: int = 20, browser: bool = True, budget_ms: int = 2000) -> FolderReport:
    """Check every part of a found game's folder."""
    game_folder(name)  # UnknownGame for a name nobody found
    parts: list[Part] = [_rules(name, games)]
    log_path: list[Path] = []
    with tempfile.TemporaryDirectory(prefix="arena-check-game-") as tmp:
        parts.append(_bots(name, Path(tmp), budget_ms, log_path))
        parts.append(_view(name))
        parts.append(_drawing(name, log_path[0] if log_path else None, Path(tmp), browser))
    parts.append(_docs(name))
    parts.append(_demo(name))
    parts.append(_solver(name))
    return FolderReport(name, parts)


def _guard(key: str, check: Callable[[], Part]) -> Part:
    """A part whose checking code met the game's own exception: a failure of that part, said in one line."""
    try:
        return check()
    except Exception as exc:  # noqa: BLE001 - a plug-in's own bug is reported, never raised
        return Part(key, "FAIL", f"stopped: {type(exc).__name__}: {exc}")


def _rules(name: str, games: int) -> Part:
    def check() -> Part:
        from arena.games import get_game

        report = check_game(get_game(name), seeds=games)
        title = f"the rules keep the contract ({len(report.results)} checks, {games} random games)"
        if report.ok:
            return Part("rules", "ok", title)
        details = [f"{result.check.key}: {problem}" for result in report.results for problem in result.problems]
        return Part("rules", "FAIL", title, details)

    return _guard("rules", check)


def _bots(name: str, tmp: Path, budget_ms: int, log_path: list[Path]) -> Part:
    def check() -> Part:
        try:
            module = game_module(name, "bots")
        except Exception as exc:  # noqa: BLE001 - the folder's bots do not even import
            return Part("bots", "FAIL", f"the bots do not load: {type(exc).__name__}: {exc}")
        bots = bots_for(name)
        if module is None or not bots:
            where = "bots.py or bots/" if module is None else f"{module.__name__} (its BOTS list is empty)"
            return Part("bots", "FAIL", f"no bots: the folder needs {where} with BOTS = [...], a random bot at "
                                        "least (what a student plays against, and the bots the checks play)")
        return _play_bots(name, bots, tmp, budget_ms, log_path)

    return _guard("bots", check)


def _anchor(bots: list[RegisteredBot]) -> RegisteredBot:
    """The bot every other plays against: `random` where there is one, else the weakest."""
    return next((b for b in bots if b.name == "random"), min(bots, key=lambda b: (b.strength, b.name)))


def _play_bots(name: str, bots: list[RegisteredBot], tmp: Path, budget_ms: int, log_path: list[Path]) -> Part:
    from arena.games import get_game

    game = get_game(name)
    seats = 1 if game.max_players == 1 else max(2, game.min_players)
    anchor = _anchor(bots)
    data: dict[str, Any] = {
        # A family's game is named `family:SPEC`: the run's name keeps what a directory's name may hold.
        "name": run_name([], f"check-{name}", series=False), "game": name, "seed": 1, "players": seats,
        "games_per_pairing": seats, "bots": [bot.name for bot in bots], "setups": {"random": {"count": 1}},
        "clock": {"budget_ms": budget_ms, "mode": "cpu"}, "strikes": {"max_strikes": 0}}
    if seats > 1 and len(bots) > 1:
        data |= {"format": "gauntlet", "challengers": [anchor.name]}
    against = "alone" if seats == 1 else f"against {anchor.name}"
    title = f"{len(bots)} bots ({', '.join(b.name for b in bots)}) play {against} without a failure"
    try:
        config = config_from_data(data, base=tmp, source=f"{name} bots")
        coordinator = Coordinator(config, RunOptions(out=tmp / "bots", quiet=True))
        try:
            coordinator.run()
            records = coordinator.store.records("ord")
        finally:
            coordinator.close()
    except (ConfigError, TournamentError, StoreError) as exc:
        return Part("bots", "FAIL", title, [f"the games could not be played: {exc}"])
    failures = [f"{r.names[r.offender]}: {r.reason}{f' ({r.detail})' if r.detail else ''} in match {r.match} "
                f"after {r.plies} plies" for r in records if r.reason in FAILURES and r.offender is not None]
    logs = sorted((tmp / "bots").rglob("*.msgpack"))
    if logs:
        log_path.append(logs[0])
    return Part("bots", "FAIL" if failures else "ok", f"{title} ({len(records)} games)", failures)


def _playouts(game: Game, count: int) -> list[tuple[State, list[tuple[int, Any, State, State]]]]:
    """Random playouts: the initial state and every (seat, move, before, after) (a turn of several movers: each)."""
    found = []
    for seed in range(count):
        players = players_for(game, seed)
        rng = random.Random(seed)
        state, _ = game.start(game.random_setup(rng, players), players, seed)
        initial, steps = state.copy(), []
        while not state.is_over() and len(steps) < 400:
            before = state.copy()
            moves = random_turn(state, rng)
            play_turn(state, moves)
            steps += [(seat, move, before, state.copy()) for seat, move in moves.items()]
        found.append((initial, steps))
    return found


@dataclass
class _Ended:
    """The end of a random game, as a view tells it."""

    scores: list[float]
    ranks: list[int]
    reason: str
    offender: int | None = None
    detail: str = ""


def _view(name: str) -> Part:
    def check() -> Part:
        from arena.games import get_game

        cls = view_class(name)
        game = get_game(name)
        own = cls is not View
        title = (f"the terminal view ({cls.__name__}) draws every position of {VIEW_GAMES} random games" if own
                 else f"no view of its own (view.py): the generic view draws every position of {VIEW_GAMES} "
                      "random games as the rules' text")
        problems = []
        for number, (initial, steps) in enumerate(_playouts(game, VIEW_GAMES)):
            names = [f"seat {s}" for s in range(len(initial.scores()))]
            view = cls(game, Terminal(False, io.StringIO()), names, [0])
            where = f"random game {number}"
            try:
                view.intro(initial)
                view.help(initial)
                view.board(initial)
                for ply, (seat, move, before, after) in enumerate(steps, 1):
                    where = f"random game {number}, ply {ply}"
                    view.board(after, (seat, move))
                    view.announce(seat, move, before, after)
                final = steps[-1][3] if steps else initial
                if final.is_over():
                    view.outcome(_Ended(final.scores(), final.ranks(), str(final.end_reason())), final)
            except Exception as exc:  # noqa: BLE001 - the view's own bug, reported with where it happened
                problems.append(f"{where}: {type(exc).__name__}: {exc}")
        return Part("view", "FAIL" if problems else ("ok" if own else "none"), title, problems)

    return _guard("view", check)


def _drawing(name: str, log: Path | None, tmp: Path, browser: bool) -> Part:
    def check() -> Part:
        if game_file(name, "draw.js") is None:
            return Part("drawing", "none", "no drawing of its own (draw.js): the viewer shows the rules' text "
                                           "picture on a board and says so")
        if log is None:
            return Part("drawing", "skip", "not checked: it needs the log of a match, and the bots played none")
        data = match_data(read_log(log))
        if data["drawing_error"]:
            return Part("drawing", "FAIL", "draw.py's frames", [data["drawing_error"]])
        why = missing_browser() if browser else "not asked for (--no-browser)"
        if why:
            return Part("drawing", "skip", f"draw.js was not run: {why}")
        page = tmp / "check.html"
        page.write_text(match_page(data), encoding="utf-8")
        drawn = draw_every_frame(page, len(data["frames"]))
        views = f", and each of {drawn.seat_views} seats' own views" if drawn.seat_views else ""
        title = f"draw.js draws every frame of a match ({len(data['frames'])} frames{views}) in headless Chromium"
        return Part("drawing", "FAIL" if drawn.errors else "ok", title, drawn.errors)

    return _guard("drawing", check)


def _docs(name: str) -> Part:
    def check() -> Part:
        from arena.games import get_game

        path = game_file(name, "RULES.md")
        if path is None:
            return Part("docs", "FAIL", "no rules document: RULES.md (the rules students read, and the game's "
                                        "setup, moves and events on the wire)")
        game = get_game(name)
        examples = EXAMPLE.findall(path.read_text(encoding="utf-8"))
        problems = []
        for move_text, setup_text in examples:
            try:
                move, setup = json.loads(move_text), json.loads(setup_text)
                players = max(1, game.min_players)
                state, _ = game.start(game.validate_setup(setup, players), players, 1)
                movers = state.movers()
                if len(movers) > 1:
                    state.check_move(movers[0], move)  # a simultaneous turn: the first mover's move
                else:
                    state.apply(move)
            except (ValueError, GameError) as exc:
                problems.append(f"example move {move_text} on {setup_text}: {exc}")
        told = f", {len(examples)} example move{'s' * (len(examples) != 1)} legal" if examples else ""
        return Part("docs", "FAIL" if problems else "ok", f"RULES.md{told}", problems)

    return _guard("docs", check)


def _demo(name: str) -> Part:
    path = game_file(name, "demo.toml")
    if path is None:
        return Part("demo", "none", "no demo tournament (demo.toml)")
    try:
        config = load_config(path)
    except ConfigError as exc:
        return Part("demo", "FAIL", "demo.toml does not load", [str(exc)])
    if config.game != name:
        return Part("demo", "FAIL", f"demo.toml plays {config.game}, not {name}")
    return Part("demo", "ok", f"demo.toml loads ({len(config.bots)} bots, {len(config.setups)} setups)")


def _solver(name: str) -> Part:
    def check() -> Part:
        try:
            solve = load_solver(name)
        except SolverError as exc:
            return Part("solver", "FAIL", str(exc))
        if solve is None:
            return Part("solver", "none", "no exact solver (solver.py): arena integrity judges its results alone")
        settled, problems = check_solver(name, games=SOLVER_GAMES, solve=solve)
        title = (f"solver.py values every position it settles as its best move's ({settled} positions of "
                 f"{SOLVER_GAMES} random games)")
        if not problems and not settled:
            problems = ["it settled no position of them, not even a last move"]
        return Part("solver", "FAIL" if problems else "ok", title, problems)

    return _guard("solver", check)
