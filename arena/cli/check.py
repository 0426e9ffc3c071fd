"""`arena check-game` and `arena check-bot`: is a game's folder, or a bot, fit to enter?

`check-game GAME|DIR` checks every part of a game's folder (arena/cli/game_check.py); given a
module that defines a Game instead, it runs the rules' conformance checks alone.
`check-bot GAME BOT` plays a short series through the tournament runner against the game's
reference bots and reports every failure of the bot.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import shutil
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, find_game, non_negative_int, positive_int
from arena.clock import ClockSettings
from arena.games import Game, GameError, add_game_paths, family_names, game_folder, is_game_name
from arena.games.conformance import check_game
from arena.launch.processes.probe import check_starts
from arena.launch.processes.process import LaunchError, preflight
from arena.launch.sandbox.sandbox import SandboxError, check_sandbox
from arena.launch.specs.botspec import BotKind, BotSpec, BotSpecError, parse_bot_spec
from arena.launch.specs.plugins import bots_for
from arena.outcomes import FAILURES
from arena.tournament.plan.config import ConfigError, config_from_data
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.store import StoreError
from arena.tournament.run.coordinator import Coordinator, RunOptions
from arena.tournament.workers.worker import MatchRecord

DEFAULT_CHECK_GAMES = 20
DEFAULT_BOT_GAMES = 4


def register(subparsers: Any) -> None:
    """Add `arena check-game` and `arena check-bot` (called by arena.cli.main)."""
    g = subparsers.add_parser(
        "check-game", help="check a game's folder: rules, bots, view, drawing, docs, demo",
        description="Check every part of a game's folder: the rules against the Game/State contract (seeded "
                    "random games), its bots against its random bot, its terminal view on every position of "
                    "random games, its drawing on every frame of a match in headless Chromium, its RULES.md and "
                    "its demo config. One line per part, then a verdict. Exit 0: no part fails, 1: a part "
                    "fails, 2: GAME cannot be found.")
    g.add_argument("module", metavar="GAME|DIR",
                   help="a game's name (arena games), a game's folder, or a module that defines a Game "
                        "(mypkg.mygame[:NAME] or path/game.py[:NAME]: the rules alone are checked)")
    g.add_argument("--games", type=positive_int, default=DEFAULT_CHECK_GAMES, metavar="N",
                   help=f"random games the rules are checked on (default {DEFAULT_CHECK_GAMES})")
    g.add_argument("--no-browser", action="store_true", help="do not run the drawing in Chromium")
    g.add_argument("--budget-ms", type=positive_int, default=2000, metavar="N",
                   help="each seat's time for a whole game of the bots' check (default %(default)s)")
    g.set_defaults(func=cmd_check_game)

    b = subparsers.add_parser(
        "check-bot", help="play a bot against the reference bots and report every failure",
        description="Play BOT against each reference bot of GAME (both seats; a solo game: alone, on several "
                    "seeds) through the tournament runner, with the clock and the default sandbox. Exit 0: no "
                    "failure of BOT, 1: BOT failed a game, 2: bad GAME or BOT.")
    b.add_argument("game", metavar="GAME")
    b.add_argument("bot", metavar="BOT",
                   help="registered name, path/bot.py, module:Class, exec:…, stdio:… or pascal:…")
    b.add_argument("--games", type=positive_int, default=DEFAULT_BOT_GAMES, metavar="N",
                   help=f"games against each reference bot, a multiple of the seats (default {DEFAULT_BOT_GAMES})")
    b.add_argument("--budget-ms", type=positive_int, default=ClockSettings().budget_ms, metavar="N",
                   help="time budget per seat for the whole game (default %(default)s)")
    b.add_argument("--seed", type=non_negative_int, default=1, metavar="N", help="seed of the boards and games")
    b.set_defaults(func=cmd_check_bot)


# --- check-game -------------------------------------------------------------------------------


def _import(target: str) -> ModuleType:
    """The module a MODULE argument names: a dotted module path or a .py file."""
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise CliError(f"no such file: {target}")
        spec = importlib.util.spec_from_file_location(f"_arena_checked_{path.stem}", path.resolve())
        if spec is None or spec.loader is None:
            raise CliError(f"cannot load {target} as a Python module")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module
    if "" not in sys.path and str(Path.cwd()) not in sys.path:
        sys.path.append(str(Path.cwd()))  # `mypkg.mygame` beside you, as `python -m` finds it
    return importlib.import_module(target)


def _instance(obj: Any, where: str) -> Game:
    """A Game instance, or an instance of a Game class made without arguments."""
    if isinstance(obj, Game):
        return obj
    if inspect.isclass(obj) and issubclass(obj, Game):
        if inspect.isabstract(obj):
            missing = ", ".join(sorted(obj.__abstractmethods__))
            raise CliError(f"{where} is abstract: it does not implement {missing}")
        try:
            return obj()
        except Exception as exc:  # noqa: BLE001 - a plug-in's own bug is reported, not raised
            raise CliError(f"cannot make a {where}(): {type(exc).__name__}: {exc}") from None
    raise CliError(f"{where} is not a Game (a subclass of arena.games.Game, or an instance of one)")


def load_game(target: str) -> Game:
    """The game MODULE names: registered, else the module's GAME, its only Game instance or class."""
    if is_game_name(target):
        return find_game(target)
    module_name, _, attr = target.partition(":")
    try:
        module = _import(module_name)
    except CliError:
        raise
    except Exception as exc:  # noqa: BLE001 - an import error, or the plug-in's own code failing as it loads
        raise CliError(f"cannot load {module_name}: {type(exc).__name__}: {exc}") from None
    if attr:
        if not hasattr(module, attr):
            raise CliError(f"{module_name} has no {attr}")
        return _instance(getattr(module, attr), f"{module_name}:{attr}")
    if isinstance(getattr(module, "GAME", None), Game):
        return module.GAME  # the way arena.games registers its own games
    values = list(vars(module).items())
    instances = {id(v): (k, v) for k, v in values if isinstance(v, Game)}
    if len(instances) == 1:
        return next(iter(instances.values()))[1]
    classes = [(k, v) for k, v in values if inspect.isclass(v) and issubclass(v, Game)
               and v.__module__ == module.__name__ and not inspect.isabstract(v)]
    if len(classes) == 1 and not instances:
        return _instance(classes[0][1], f"{module_name}:{classes[0][0]}")
    found = sorted({k for k, _ in instances.values()} | {k for k, _ in classes})
    if found:
        raise CliError(f"{module_name} defines several games ({', '.join(found)}): name one as {module_name}:NAME")
    raise CliError(f"{module_name} defines no Game (a GAME instance or a subclass of arena.games.Game)")


def folder_games(target: str) -> list[str]:
    """The games a GAME|DIR argument names: a found game, or the game folders of a directory."""
    if is_game_name(target):
        find_game(target)  # a family's game it cannot make: one line saying why
        return [target]
    if target in family_names():
        find_game(target)  # a family: name one of its games
    if Path(target).is_dir():
        try:
            names = add_game_paths([target])
        except GameError as exc:
            raise CliError(str(exc)) from None
        if not names:
            raise CliError(f"{target} is not a game's folder (no rules.py) and holds none")
        return names
    return []


def cmd_check_game(args: argparse.Namespace) -> int:
    """Check each part of a game's folder (or a module's rules alone); one line per part and a verdict."""
    from arena.gamecheck.folder import check_folder

    names = folder_games(args.module)
    if names:
        ok = True
        for name in names:
            print(f"check-game: {name} ({game_folder(name).path})", flush=True)
            report = check_folder(name, games=args.games, browser=not args.no_browser, budget_ms=args.budget_ms)
            for line in report.lines():
                print(line, flush=True)
            ok = ok and report.ok
        return EXIT_OK if ok else EXIT_FAILED
    game = load_game(args.module)
    try:
        report = check_game(game, seeds=args.games)
    except Exception as exc:  # noqa: BLE001 - a game so broken that the checker itself stopped
        print(f"FAIL  the checks stopped: {type(exc).__name__}: {exc}")
        return EXIT_FAILED
    *checks, verdict = report.lines()
    for line in checks:
        print(line)
    if not report.ok:
        print("to reproduce: arena.games.conformance.position(game, SEED, PLY) is the position after PLY moves "
              "of playout SEED")
    print(verdict)
    return EXIT_OK if report.ok else EXIT_FAILED


# --- check-bot --------------------------------------------------------------------------------


@dataclass
class Series:
    """The checked bot's games against one opponent (or alone)."""

    opponent: str  # "" for a solo game
    records: list[MatchRecord] = field(default_factory=list)

    def tally(self) -> tuple[int, int, int]:
        """(wins, draws, losses) of the checked bot (bot 0): alone first, shared first, behind."""
        wins = draws = losses = 0
        for record in self.records:
            seat = record.bots.index(0)
            best = min(record.ranks)
            if record.ranks[seat] != best:
                losses += 1
            elif record.ranks.count(best) > 1:
                draws += 1
            else:
                wins += 1
        return wins, draws, losses


def _seats(game: Game) -> int:
    """Seats of a checking game: 1 for a solo game, else the fewest above one."""
    return 1 if game.max_players == 1 else max(2, game.min_players)


def _failure(record: MatchRecord, total: int, index: int) -> str:
    """One line naming a failure, its detail and the game that shows it."""
    detail = f": {record.detail}" if record.detail else ""
    plies = f"{record.plies} pl{'y' if record.plies == 1 else 'ies'}"
    return (f"    game {index} of {total} (match {record.match}, seat {record.offender}, seed {record.seed}, "
            f"after {plies}): {record.reason}{detail}")


def _series_lines(series: Series, name: str, width: int) -> list[str]:
    """The report of one series: W/D/L (or the scores alone), then every failure."""
    records = series.records
    if series.opponent:
        wins, draws, losses = series.tally()
        lines = [f"vs {series.opponent:{width}}  W {wins}  D {draws}  L {losses}"]
    else:
        scores = [r.scores[0] for r in records]
        mean = sum(scores) / len(scores) if scores else 0.0
        shown = ", ".join(f"{s:g}" for s in scores)
        lines = [f"alone: {len(records)} games, scores {shown} (mean {mean:.1f})"]
    for index, record in enumerate(records, 1):
        if record.reason not in FAILURES or record.offender is None:
            continue
        if record.bots[record.offender] == 0:
            lines.append(_failure(record, len(records), index))
        else:
            lines.append(f"    reference bot {record.names[record.offender]} failed, not counted against {name}:")
            lines.append("  " + _failure(record, len(records), index))
    return lines


def _play(data: dict[str, Any], out: Path) -> list[MatchRecord]:
    """Run one small tournament quietly into out; return its records in schedule order."""
    try:
        config = config_from_data(data, base=Path.cwd(), source="check-bot")
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    coordinator = Coordinator(config, RunOptions(out=out, quiet=True))
    try:
        coordinator.run()
        return coordinator.store.records("ord")
    finally:
        coordinator.close()


def _spec(game: Game, text: str) -> BotSpec:
    """The BOT spec, checked before any game: it parses and its program can start."""
    try:
        spec = parse_bot_spec(text, game.name)
    except BotSpecError as exc:
        raise CliError(str(exc)) from None
    if spec.kind == BotKind.PASCAL and shutil.which("fpc") is None:
        raise CliError("pascal: modules need Free Pascal (apt-get install fp-compiler)")
    try:
        mode = check_sandbox("auto")
        preflight(spec, mode)
        check_starts([spec], mode)
    except (SandboxError, LaunchError) as exc:
        raise CliError(str(exc)) from None
    return spec


def cmd_check_bot(args: argparse.Namespace) -> int:
    """Play the series, print the report and the verdict."""
    game = find_game(args.game)
    spec = _spec(game, args.bot)
    seats = _seats(game)
    if args.games % seats:
        raise CliError(f"--games must be a multiple of {seats} (every board is played from each seat), "
                       f"got {args.games}")
    opponents = [bot.name for bot in bots_for(game.name)] if seats > 1 else [""]
    if not opponents:
        raise CliError(f"{game.name} has no reference bots to play against (arena bots {game.name})")
    name = spec.name
    where = (f"against each of {len(opponents)} reference bots: {args.games} games each" if seats > 1
             else f"alone: {args.games} games on their own seeds")
    print(f"check-bot: {name} plays {game.name} {where}, {args.budget_ms} ms per seat per game, seed {args.seed}",
          flush=True)
    base = {"game": game.name, "seed": args.seed, "players": seats, "games_per_pairing": seats,
            "setups": {"random": {"count": args.games // seats}}, "clock": {"budget_ms": args.budget_ms},
            "strikes": {"max_strikes": 0}, "logs": False}
    all_series = []
    width = max(len(o if o != name else f"{o} (reference)") for o in opponents)
    with tempfile.TemporaryDirectory(prefix="arena-check-bot-") as tmp:
        for number, opponent in enumerate(opponents):
            rival = opponent if opponent != name else f"{opponent} (reference)"
            bots: list[Any] = [{"spec": args.bot, "name": name}]
            bots += [{"spec": opponent, "name": rival if seats == 2 else f"{rival} #{i}"} for i in range(1, seats)]
            data = {**base, "name": f"check-{number}", "bots": bots}
            try:
                series = Series(rival, _play(data, Path(tmp) / f"series-{number}"))
            except (TournamentError, StoreError) as exc:
                print(f"arena check-bot: error: the games could not be played: {exc}", file=sys.stderr)
                return EXIT_FAILED
            all_series.append(series)
            for line in _series_lines(series, name, width):
                print(line, flush=True)
    return _verdict(all_series, name, game.name)


def _verdict(all_series: list[Series], name: str, game: str) -> int:
    """Print the verdict line; the exit status."""
    records = [r for s in all_series for r in s.records]
    failed = [r for r in records if r.reason in FAILURES and r.offender is not None and r.bots[r.offender] == 0]
    others = [r for r in records if r.reason in FAILURES and r.offender is not None and r.bots[r.offender] != 0]
    if others:
        print(f"note: reference bots failed {len(others)} game{'s' * (len(others) != 1)} (listed above); "
              f"not counted against {name}")
    if not failed:
        print(f"PASS: {name} plays {game} by the rules ({len(records)} games, no failure)")
        return EXIT_OK
    reasons = Counter(str(r.reason) for r in failed)
    ordered = sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
    counts = ", ".join(f"{reason} {count}" for reason, count in ordered)
    print(f"FAIL: {name} failed {len(failed)} of {len(records)} games ({counts})")
    return EXIT_FAILED
