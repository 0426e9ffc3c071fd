"""`arena play`: a person against bots (or two bots watched) in the terminal, through the real referee.

    arena play GAME [--vs BOT]… [--first human|bot] [--setup FILE] [--set KEY=VALUE]…
               [--seed N] [--budget-ms N] [--bot-budget-ms N] [--move-ms N] [--log PATH] [--color WHEN]
    arena play GAME --watch BOT BOT… [--delay-ms N] [...]

The person's seat has no clock to speak of (a month) unless --budget-ms gives one; every
bot has its normal clock. The game's log is saved (default under logs/) and verifies with
`arena replay --verify`, take-backs included (arena/play/log.py). README.md, "Playing against
a bot", says what a person sees.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import Any

from arena.argtypes import (
    EXIT_OK,
    EXIT_USAGE,
    CliError,
    non_negative_int,
    positive_int,
    resolve_setup,
)
from arena.clock import ClockError, ClockSettings
from arena.games import Game, GameError, State, UnknownGame, get_game
from arena.games.seats import SeatView
from arena.kit.terminal import Terminal, View, colour_wanted
from arena.kit.views import view_for
from arena.launch.specs.botspec import BotSpec, BotSpecError, parse_bot_spec
from arena.launch.specs.plugins import bots_for
from arena.logs.signing import user_key
from arena.match.onematch import MatchPlan, default_log_path, play_match
from arena.match.result import MatchResult
from arena.play.session import PlaySession, SeatPlan

HUMAN = "human"  # `--vs human`: another person at this terminal
# "No clock": a week, far beyond any sitting (and below 2**31 ms, which the referee's poll
# timeout cannot exceed).
HUMAN_BUDGET_MS = 7 * 24 * 3600 * 1000
BOT_BUDGET_MS = 10_000  # a bot's normal clock, as for `arena match`
DEFAULT_DELAY_MS = 700
EXIT_INTERRUPTED = 130  # as arena/cli/main.py answers Ctrl-C
def register(sub: Any) -> argparse.ArgumentParser:
    """Add the `play` subcommand to the subparsers of `arena`."""
    p = sub.add_parser("play", help="play against bots (or watch bots) in the terminal",
                       description="Play GAME against bots through the real referee, or watch bots play.")
    p.add_argument("game")
    p.add_argument("--vs", action="append", default=[], metavar="BOT",
                   help="the bot to play against, or `human` for another person at this terminal (repeat for "
                        "games of more players; default: the strongest registered bot; none for one-player games)")
    p.add_argument("--first", choices=["human", "bot"], help="who moves first (default: human)")
    p.add_argument("--setup", metavar="FILE", help="setup file (JSON, TOML, or the game's own format)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="setup key (JSON value); overrides --setup; repeatable")
    p.add_argument("--seed", type=non_negative_int, help="match seed (random board completion, chance)")
    p.add_argument("--budget-ms", type=positive_int, help="the person's time for the whole game (default: no limit)")
    p.add_argument("--bot-budget-ms", type=positive_int, default=BOT_BUDGET_MS,
                   help="each bot's time for the whole game")
    p.add_argument("--move-ms", type=positive_int, metavar="N",
                   help="at most N ms for each bot move, whatever its budget left (default: no cap)")
    p.add_argument("--watch", nargs="+", metavar="BOT", help="watch these bots play each other instead")
    p.add_argument("--delay-ms", type=non_negative_int, default=DEFAULT_DELAY_MS,
                   help="pause after each move when watching")
    p.add_argument("--log", metavar="PATH", help="where to save the log (default logs/play-GAME-TIME-seedN-ID.msgpack)")
    p.add_argument("--trace", metavar="FILE",
                   help="append every message between the referee and the bots to FILE (JSON lines)")
    p.add_argument("--color", "--colour", choices=["auto", "always", "never"], default="auto",
                   help="colours: auto = on a terminal without NO_COLOR")
    p.set_defaults(func=cmd_play)
    return p


def cmd_play(args: argparse.Namespace) -> int:
    """Play (or watch) one game in the terminal."""
    try:
        return _play(args)
    except CliError as exc:
        # Reported here as arena/cli/main.py would: under `python -m arena.cli` that module runs as
        # __main__, whose handler does not catch arena.cli.CliError.
        print(f"arena play: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


def default_bot(game: Game) -> str:
    """The strongest registered bot of a game (by the bots' own `strength`; the first registered on a tie)."""
    bots = bots_for(game.name)
    if not bots:
        raise CliError(f"no registered bot plays {game.name}; name one with --vs")
    return max(bots, key=lambda b: b.strength).name


def _play(args: argparse.Namespace) -> int:
    try:
        game = get_game(args.game)
    except UnknownGame as exc:
        raise CliError(str(exc)) from None
    term = Terminal(colour_wanted(args.color, sys.stdout))
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    if args.watch:
        return _watch(args, game, term, seed)
    if game.max_players == 1:
        if args.vs or args.first == "bot":
            raise CliError(f"{game.name} is a one-player game: you play it alone (no --vs, no --first bot)")
        vs: list[str] = []
    else:
        vs = args.vs or [default_bot(game)]
    # `--vs human` seats another person at this terminal (the hot seat); the rest are bots.
    others: list[BotSpec | None] = [None if text == HUMAN else _specs(game, [text])[0] for text in vs]
    players = 1 + len(others)
    try:
        game.check_players(players)
    except GameError as exc:
        raise CliError(f"{exc} (you and one --vs BOT or --vs human per other seat)") from None
    setup = resolve_setup(game.name, args.setup, args.set, players, seed)
    first = _first_mover(game, setup, players, seed)
    you = first if args.first != "bot" else (first + 1) % players
    try:
        human_clock = ClockSettings(budget_ms=args.budget_ms or HUMAN_BUDGET_MS)
        bot_clock = ClockSettings(budget_ms=args.bot_budget_ms, move_cap_ms=args.move_ms)
    except ClockError as exc:
        raise CliError(str(exc)) from None
    order = iter(others)
    specs = [next(order) if seat != you else None for seat in range(players)]
    names = seat_names(specs)
    seats = [SeatPlan(name, spec, human_clock if spec is None else bot_clock) for name, spec in zip(names, specs)]
    humans = [seat for seat, spec in enumerate(specs) if spec is None]
    view = view_for(game.name, term, names, humans)
    log_path = Path(args.log) if args.log else default_log_path(f"play-{game.name}", seed)
    term.say(_lineup(game, seed, view, seats))
    session = PlaySession(game, setup, seed, seats, view, log_path, f"play-{game.name}-{seed}",
                          trace_path=args.trace)
    try:
        result = session.run()
    except KeyboardInterrupt:  # Ctrl-C twice: the game was left at once, its log still written
        term.say(f"\nLeft the game.\nlog: {log_path}")
        return EXIT_INTERRUPTED
    _finish(view, term, result, session.shown_state(), session.record.standing, log_path, session.resigned)
    problem = session.verify_log()
    if problem:
        print(f"warning: the saved log does not verify: {problem}", file=sys.stderr)
    return EXIT_OK


def seat_names(specs: list[BotSpec | None]) -> list[str]:
    """Display names: each bot by its own name (numbered when one plays twice), people as Human (1, 2, ...)."""
    people = sum(spec is None for spec in specs)
    names: list[str] = []
    person = 0
    for spec in specs:
        if spec is None:
            person += 1
            names.append("Human" if people == 1 else f"Human {person}")
            continue
        name, n = spec.name, 2
        while name in names:
            name, n = f"{spec.name} {n}", n + 1
        names.append(name)
    return names


def _specs(game: Game, texts: list[str]) -> list[BotSpec]:
    try:
        return [parse_bot_spec(text, game.name) for text in texts]
    except BotSpecError as exc:
        raise CliError(str(exc)) from None


def _first_mover(game: Game, setup: dict[str, Any], players: int, seed: int) -> int:
    """The seat that moves first in this setup; refuses a game that is over before it starts."""
    state, _ = game.start(setup, players, seed)
    first = state.to_move()
    if first is None:
        raise CliError(f"{game.name}: the game is already over in this position; nothing to play")
    return first


def _lineup(game: Game, seed: int, view: View, seats: list[SeatPlan]) -> str:
    """Who plays which seat (and the seed, to play the same board again)."""
    parts = []
    for i, seat in enumerate(seats):
        people = sum(s.spec is None for s in seats)
        what = ("you" if people == 1 else "a person") if seat.spec is None else seat.spec.text
        parts.append(f"{view.name(i)} ({what}, seat {i})")
    return f"{game.name}, seed {seed}: " + " against ".join(parts) + "."


def _finish(view: View, term: Terminal, result: MatchResult, state: State, moves: int, log_path: Path,
            resigned: bool = False) -> None:
    term.say()
    if resigned and result.offender is not None:
        # Said plainly, whatever reason the log needed to record it.
        lines = [f"{view.name(result.offender)} resigned.", view.winners(result)]
    else:
        lines = view.outcome(result, state)
    for line in lines:
        term.say(line)
    scores = ", ".join(f"{s:g}" for s in result.scores)
    offender = f", offender seat {result.offender}" if result.offender is not None else ""
    term.say(f"result: reason {result.reason}{offender}; scores [{scores}]; ranks {result.ranks}; "
             f"{moves} move{'' if moves == 1 else 's'}")
    term.say(f"log: {log_path}")


def _watch(args: argparse.Namespace, game: Game, term: Terminal, seed: int) -> int:
    """Bots against each other with a pause after each move: the seeds' computer vs computer."""
    if args.vs or args.first or args.budget_ms:
        raise CliError("--watch plays bots against each other: no --vs, --first or --budget-ms")
    specs = _specs(game, args.watch)
    try:
        game.check_players(len(specs))
        clock = ClockSettings(budget_ms=args.bot_budget_ms, move_cap_ms=args.move_ms)
    except (GameError, ClockError) as exc:
        raise CliError(f"{exc} (one --watch BOT per seat)") from None
    setup = resolve_setup(game.name, args.setup, args.set, len(specs), seed)
    _first_mover(game, setup, len(specs), seed)
    names = seat_names(list(specs))
    view = view_for(game.name, term, names, [])
    shown, _ = game.start(setup, len(specs), seed)
    term.say(_lineup(game, seed, view, [SeatPlan(n, s, clock) for n, s in zip(names, specs)]))
    term.say(view.intro(shown))
    term.say()
    term.say(view.board(shown))
    delay = args.delay_ms / 1000.0
    follow = SeatView(-1, shown)  # a spectator's: the whole position, a simultaneous turn once all its moves are in
    turn: list[tuple[int, Any]] = []
    before = [shown.copy()]

    def show(_state: State, seat: int, move: Any) -> None:
        # Runs between the referee's turns, so the pause is charged to no bot's clock.
        follow.play(seat, move)
        turn.append((seat, move))
        if follow.pending:
            return
        term.say()
        for mover, played in turn:
            line = view.announce(mover, played, before[0], shown)
            if line:
                term.say(line)
        term.say(view.board(shown, (seat, move)))
        turn.clear()
        before[0] = shown.copy()
        time.sleep(delay)

    log_path = Path(args.log) if args.log else default_log_path(f"watch-{game.name}", seed)
    plan = MatchPlan(game, specs, setup, seed, clock, f"watch-{game.name}-{seed}", log_path, trace_path=args.trace,
                     log_key=user_key(create=True))
    result = play_match(plan, on_ply=show)
    _finish(view, term, result, shown, result.plies, log_path)
    return EXIT_OK
