"""The arena from Python (scripts, notebooks): a match, a series, a tournament, a log on screen.

Each function takes what the matching command takes and returns what its `--json` prints, as a
plain dict; bad input raises ArenaError with the command's one-line message. They run the very
code of the commands (`arena match`, `arena match --games`, `arena tournament`), so a result
from Python and one from the shell mean the same.
"""

from __future__ import annotations

import argparse
import html
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.argtypes import CliError
from arena.launch.process import MachineError

PathLike = str | os.PathLike[str]


class ArenaError(ValueError):
    """Bad input to an API call, or a run that could not finish; the message says which."""


def _match_args(game: str, bots: Sequence[str], setup: Mapping[str, Any] | PathLike | None,
                options: Mapping[str, Any]) -> argparse.Namespace:
    """The parsed `arena match GAME BOT...` with the defaults of the command and these values set."""
    from arena.cli.main import build_parser

    if isinstance(bots, str) or not bots:
        raise ArenaError("bots: a list of BOT specs, one per seat (e.g. ['perfect', 'random'])")
    try:
        args = build_parser().parse_args(["match", "--", game, *bots])  # "--": names are never options
    except SystemExit:  # the parser has said why on stderr
        raise ArenaError(f"cannot play {game} with {list(bots)}") from None
    args.quiet = True
    if isinstance(setup, Mapping):
        args.set = [f"{key}={json.dumps(value)}" for key, value in setup.items()]
    elif setup is not None:
        args.setup = os.fspath(setup)
    for key, value in options.items():
        name = key.replace("-", "_")
        if name in ("game", "bots", "func", "command", "set", "setup") or not hasattr(args, name):
            raise ArenaError(f"unknown option {key!r}")
        setattr(args, name, os.fspath(value) if isinstance(value, os.PathLike) else value)
    return args


def play_match(game: str, bots: Sequence[str], *, setup: Mapping[str, Any] | PathLike | None = None,
               **options: Any) -> dict[str, Any]:
    """Play one match; the result as `arena match --json` prints it (seed and log path included).

    options are `arena match`'s long options with underscores: seed, budget_ms, increment_ms,
    margin_ms, clock_mode, ponder, sandbox, memory_mb, log, force, trace.
    """
    from arena.cli.main import play_one

    args = _match_args(game, bots, setup, options)
    try:
        result = play_one(args)
    except CliError as exc:
        raise ArenaError(str(exc)) from None
    except MachineError as exc:
        raise ArenaError(f"{exc}; no result recorded") from None
    return result.summary() | {"seed": args.seed}


def run_series(game: str, bots: Sequence[str], games: int, *, sprt: str | Mapping[str, Any] | None = None,
               setup: Mapping[str, Any] | PathLike | None = None, **options: Any) -> dict[str, Any]:
    """Play a series; its summary as `arena match --games N --json` prints it.

    sprt: "elo0=0,elo1=5" or {"elo0": 0, "elo1": 5, ...}. options as play_match's, plus workers,
    out (a results directory) and resume.
    """
    from arena.cli.series import run_series_args

    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ArenaError(f"games: a positive number of games, not {games!r}")
    if isinstance(sprt, Mapping):
        sprt = ",".join(f"{key}={value}" for key, value in sprt.items())
    args = _match_args(game, bots, setup, {**options, "games": games, "sprt": sprt})
    said: list[str] = []
    try:
        code, summary, _ = run_series_args(args, said.append)
    except CliError as exc:
        raise ArenaError(str(exc)) from None
    if summary is None:
        raise ArenaError("; ".join(said) or f"the series stopped (exit status {code})")
    return summary


def run_tournament(config: PathLike | Mapping[str, Any], *, out: PathLike | None = None, resume: bool = False,
                   workers: int | None = None) -> dict[str, Any]:
    """Run a tournament (a TOML file, or its contents as a dict); its standings.json as a dict."""
    from arena.tournament.cli import run_directory, run_guarded
    from arena.tournament.config import ConfigError, config_from_data, load_config
    from arena.tournament.runner import RunOptions
    from arena.tournament.standings import standings_data

    try:
        checked = config_from_data(config) if isinstance(config, Mapping) else load_config(config)
    except ConfigError as exc:
        raise ArenaError(str(exc)) from None
    where = Path(out) if out is not None else run_directory(checked.output_dir(), resume)
    said: list[str] = []
    options = RunOptions(out=where, resume=resume, workers=workers, quiet=True)
    try:
        _, _, standings = run_guarded(checked, options, "run_tournament", said.append)
    except CliError as exc:
        raise ArenaError(str(exc)) from None
    if standings is None:
        raise ArenaError("; ".join(said) or "the tournament stopped")
    return standings_data(standings) | {"dir": str(where)}


class Rendered:
    """A viewer page that Jupyter shows inline (in a sandboxed frame) and scripts can save."""

    def __init__(self, page: str, height: int) -> None:
        self.html = page
        self.height = height

    def _repr_html_(self) -> str:
        """The page in an iframe: its script and styles stay apart from the notebook's."""
        return (f'<iframe srcdoc="{html.escape(self.html, quote=True)}" sandbox="allow-scripts" '
                f'style="width:100%;height:{self.height}px;border:0"></iframe>')

    def save(self, path: PathLike) -> Path:
        """Write the page to a file; return its path."""
        target = Path(path)
        target.write_text(self.html, encoding="utf-8")
        return target


def render(log: PathLike, *, height: int = 640) -> Rendered:
    """The HTML viewer of a match log (its board, moves, clocks and verdict), for a notebook."""
    from arena.logs.matchlog import LogError, read_log
    from arena.viewer.frames import match_data
    from arena.viewer.page import match_page

    try:
        return Rendered(match_page(match_data(read_log(log))), height)
    except LogError as exc:
        raise ArenaError(str(exc)) from None
