"""`arena match GAME A B --games N`: a head-to-head series through the tournament runner."""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from arena.argtypes import CliError, find_game, positive_int, resolve_setup
from arena.games import GameError
from arena.launch.botspec import BotSpec, BotSpecError, parse_bot_spec
from arena.launch.sandbox import Sandbox, SandboxError, resolve_sandbox
from arena.setups import SetupFileError, load_setup_file, parse_set_values
from arena.tournament.config import ConfigError, TournamentConfig, config_from_data
from arena.tournament.overlap import folder_conflict
from arena.tournament.report import terminal
from arena.tournament.runner import RunOptions
from arena.tournament.series import parse_sprt
from arena.tournament.sprt import SprtSettingsError
from arena.tournament.standings import standings_data

MAX_SETUPS = 10_000  # a config's `setups.random.count` limit: one setup per game pair


def warn_shared_folders(specs: list[BotSpec], sandbox: str) -> None:
    """Say on stderr when the bots' own folders overlap: a tournament refuses that, a match is the author's."""
    try:
        mode = resolve_sandbox(Sandbox(sandbox)).mode
    except (ValueError, SandboxError):
        return  # the config's own check says what is wrong with the mode
    conflict = folder_conflict([(f"seat {i} ({spec.name})", spec) for i, spec in enumerate(specs)])
    if conflict and mode != Sandbox.NONE:
        print(f"arena match: warning: {conflict} (a tournament refuses this: give each bot a folder of its own "
              "for a fair match)", file=sys.stderr)


def add_series_arguments(parser: argparse.ArgumentParser) -> None:
    """The options `arena match` gains for series."""
    group = parser.add_argument_group("series (with --games)")
    group.add_argument("--games", type=positive_int, metavar="N",
                       help="play a series of N games in pairs: the same setup and seed with the seats "
                            "swapped (solo games: N boards, played by every bot)")
    group.add_argument("--workers", type=positive_int, metavar="K",
                       help="parallel referee processes (default: cores / 2)")
    group.add_argument("--sprt", metavar="elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]",
                       help="stop as soon as the SPRT accepts H0 (elo0) or H1 (elo1); alpha and beta "
                            "default to 0.05, model to logistic (or normalized)")
    group.add_argument("--out", metavar="DIR",
                       help="results directory (store, signed logs, reports; resumable); default "
                            "logs/GAME-series-TIME-ID")
    group.add_argument("--resume", action="store_true", help="continue the series in --out DIR")
    group.add_argument("--quiet", action="store_true", help="no progress line")


def display_names(args: argparse.Namespace) -> list[str]:
    """The --name of each seat ("" where the bot's own name is used); CliError when they do not fit."""
    from arena.tournament.config import NAME_PATTERN  # the rule of names in tournaments, too

    names = list(args.name or [])
    if names and len(names) != len(args.bots):
        raise CliError(f"--name: give one per BOT ({len(args.bots)}), not {len(names)}")
    if len(set(names)) != len(names):
        raise CliError(f"--name: the names must differ, got {names}")
    for name in names:
        if not NAME_PATTERN.fullmatch(name):
            raise CliError(f"--name {name!r}: letters, digits, '.', '_' or '-', at most 80 characters")
    return names or [""] * len(args.bots)


def series_name(names: list[str]) -> str:
    """A name for the series' directory and reports: `a-vs-b`, cut to the config name's length."""
    text = "-vs-".join(names)
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in text).lstrip("._-") or "series"
    return cleaned[:80]


def series_config(args: argparse.Namespace) -> TournamentConfig:
    """The two-or-more-bot tournament a series is: one setup per game pair, every seat order once."""
    game = find_game(args.game)
    for flag, given in (("--log", args.log), ("--force", args.force), ("--show", args.show)):
        if given:
            raise CliError(f"{flag} is for a single match; a series (--games) keeps its logs in --out DIR")
    # Solo games: every bot plays the same boards alone; others: one BOT per seat.
    players = 1 if game.max_players == 1 else len(args.bots)
    try:
        game.check_players(players)
    except GameError as exc:
        raise CliError(f"{exc} (one BOT per seat)") from None
    if players > 1 and args.games % players:
        raise CliError(f"--games must be a multiple of the seats ({players}) so every bot plays every seat "
                       f"equally; got {args.games}")
    pairs = args.games // players if players > 1 else args.games
    if pairs > MAX_SETUPS:
        raise CliError(f"--games: at most {MAX_SETUPS * max(players, 1)} games in one series; got {args.games}")
    seed = args.seed if args.seed is not None else 1
    resolve_setup(game.name, args.setup, args.set, players, seed)  # says what is wrong with the setup, once
    try:
        partial = load_setup_file(args.setup, game) if args.setup else {}
        partial.update(parse_set_values(args.set))
    except (SetupFileError, GameError) as exc:
        raise CliError(str(exc)) from None
    names: list[str] = []
    bots: list[dict[str, Any]] = []
    specs: list[BotSpec] = []
    for text, display in zip(args.bots, display_names(args)):
        try:
            spec = parse_bot_spec(text, game.name, display=display)
        except BotSpecError as exc:
            raise CliError(str(exc)) from None
        specs.append(spec)
        name, n = spec.name, 2
        while name in names:  # the same bot twice (a self-play series): number the second seat
            name, n = f"{spec.name}-{n}", n + 1
        names.append(name)
        bots.append({"spec": text, "name": name})
    data = {
        "name": series_name(names), "game": game.name, "seed": seed, "players": players,
        "games_per_pairing": max(players, 1), "bots": bots,
        "setups": {"random": {**partial, "count": pairs}},
        "clock": {"budget_ms": args.budget_ms, "increment_ms": args.increment_ms, "margin_ms": args.margin_ms,
                  "mode": args.clock_mode},
        "limits": {"address_space_mb": args.memory_mb}, "sandbox": args.sandbox, "ponder": args.ponder,
        **({"transport": args.transport} if args.transport else {}),
        "shared_dirs": True,  # the bot author's own bots: warned below, not refused
    }
    warn_shared_folders(specs, args.sandbox)
    if args.sprt:
        try:
            settings = parse_sprt(args.sprt)
        except SprtSettingsError as exc:
            raise CliError(str(exc)) from None
        if len(names) != 2:
            raise CliError(f"--sprt compares two bots; {len(names)} are given")
        data["sprt"] = settings.to_data()
    try:
        return config_from_data(data, Path.cwd(), default_name="series")
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def series_dir(game: str) -> Path:
    """A new results directory under logs/ for a series without --out."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    while True:
        path = Path("logs") / f"{game}-series-{stamp}-{secrets.token_hex(3)}"
        if not path.exists():
            return path


def series_summary(config: TournamentConfig, coordinator: Any, standings: Any, out: Path) -> dict[str, Any]:
    """The JSON of a finished series: A's view for two bots, the standings for more."""
    if coordinator.tally is not None:
        names = (config.bots[0].name, config.bots[1].name)
        data = coordinator.tally.summary(names)
    else:
        data = standings_data(standings)
    return data | {"stopped_early": coordinator.stopped_early, "dir": str(out)}


def run_series_args(args: argparse.Namespace,
                    say: Callable[[str], None] | None = None) -> tuple[int, dict[str, Any] | None, list[str]]:
    """Play the series args describe: (exit code, JSON summary or None if it stopped, report lines)."""
    from arena.tournament.cli import run_guarded

    config = series_config(args)
    if args.resume and not args.out:
        raise CliError("--resume needs --out DIR (the series to continue)")
    out = Path(args.out) if args.out else series_dir(config.game)
    options = RunOptions(out=out, resume=args.resume, workers=args.workers, quiet=args.quiet or args.json,
                         trace=Path(args.trace) if args.trace else None)
    code, coordinator, standings = run_guarded(config, options, "arena match", *([say] if say else []))
    if standings is None or coordinator is None:
        return code, None, []
    summary = series_summary(config, coordinator, standings, out)
    if coordinator.tally is not None:
        lines = coordinator.tally.lines((config.bots[0].name, config.bots[1].name))
        if coordinator.stopped_early:
            lines.append(f"stopped early after {summary['games']} games: the SPRT accepted {summary['sprt']}")
    else:
        lines = [terminal(standings)]
    lines.append(f"results: {out}  (arena verify {out}; arena view {out} --html report.html)")
    return code, summary, lines


def cmd_series(args: argparse.Namespace) -> int:
    """Play a series and print its summary (cutechess-style, or one JSON object)."""
    code, summary, lines = run_series_args(args)
    if summary is not None:
        print(json.dumps(summary) if args.json else "\n".join(lines))
    return code
