"""Tournaments and series named on the command line: a config made from BOT specs, no file needed.

`arena tournament GAME A B C --games N` and `arena match GAME A B --games N` build the same
config a TOML file would hold and run it on the same engine, so their results directories are
a tournament's (`arena standings`, `arena view`, `arena verify` work on them).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from arena.games import Game, GameError
from arena.launch.sandbox.sandbox import Sandbox, SandboxError, resolve_sandbox
from arena.launch.specs.botspec import BotSpec, BotSpecError, parse_bot_spec, unique_names
from arena.tournament.plan.config import FORMATS, NAME_PATTERN, ConfigError, TournamentConfig, config_from_data
from arena.tournament.plan.overlap import folder_conflict
from arena.tournament.stats.sprt import SprtSettings

MAX_SETUPS = 10_000  # a config's `setups.random.count` limit: one setup per game pair


class AdhocError(ValueError):
    """Bots, games or options that make no run; the message says which."""


@dataclass(frozen=True)
class Conditions:
    """What every game of the run is played under: the clock, the limits, the sandbox."""

    budget_ms: int = 10_000
    increment_ms: int = 0
    move_ms: int | None = None  # the per-move cap (a config's clock.move_cap_ms)
    margin_ms: int = 200
    clock_mode: str = "wall"
    memory_mb: int = 4096
    sandbox: str = "auto"
    ponder: bool = False
    transport: str | None = None  # zeromq or pipes for the bots that can choose; None: their default

    def to_data(self) -> dict[str, Any]:
        """The config keys these conditions set."""
        clock: dict[str, Any] = {"budget_ms": self.budget_ms, "increment_ms": self.increment_ms,
                                 "margin_ms": self.margin_ms, "mode": self.clock_mode}
        if self.move_ms is not None:
            clock["move_cap_ms"] = self.move_ms
        wire = {"transport": self.transport} if self.transport is not None else {}
        return {"clock": clock, "limits": {"address_space_mb": self.memory_mb}, "sandbox": self.sandbox,
                "ponder": self.ponder, **wire}


def check_names(names: Sequence[str] | None, bots: int) -> list[str]:
    """The display names given (one per bot, distinct, well-formed), or "" for each bot when none are."""
    if not names:
        return [""] * bots
    names = list(names)
    if len(names) != bots:
        raise AdhocError(f"names (--name): give one per BOT ({bots}), not {len(names)}")
    if len(set(names)) != len(names):
        raise AdhocError(f"names (--name): the names must differ, got {names}")
    for name in names:
        if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
            raise AdhocError(f"name {name!r} (--name): letters, digits, '.', '_' or '-', at most 80 characters")
    return names


def parse_specs(game: Game, bots: Sequence[str], names: Sequence[str] | None = None) -> list[BotSpec]:
    """Each BOT spec parsed, named by its display name or a short unique one."""
    if isinstance(bots, str) or not bots:
        raise AdhocError("bots: a list of BOT specs (e.g. ['perfect', 'random'])")
    given = check_names(names, len(bots))
    specs = []
    for text, display in zip(bots, given):
        try:
            specs.append(parse_bot_spec(text, game.name, display=display))
        except BotSpecError as exc:
            raise AdhocError(str(exc)) from None
    unique = unique_names([s.name for s in specs], [bool(name) for name in given])
    return [spec if spec.name == name else _named(spec, name) for spec, name in zip(specs, unique)]


def _named(spec: BotSpec, name: str) -> BotSpec:
    return replace(spec, display=name)


def tournament_hint(game: Game, specs: Sequence[BotSpec]) -> str:
    """Where more bots than seats were named for a match: how to play them all as a tournament."""
    if not 1 < game.max_players < len(specs):
        return ""
    words = " ".join(shlex.quote(spec.text) for spec in specs)
    return f"; for a tournament of {len(specs)} bots: arena tournament {game.name} {words}"


def shared_folder_warning(specs: Sequence[BotSpec], sandbox: str) -> str:
    """A warning when one bot's own folder shows it another's files ("" when not, or nothing is contained).

    Bots in one and the same folder (versions of one bot side by side) are shown the same files: no warning.
    """
    try:
        mode = resolve_sandbox(Sandbox(sandbox)).mode
    except (ValueError, SandboxError):
        return ""  # the config's own check says what is wrong with the mode
    conflict = folder_conflict([(f"seat {i} ({spec.name})", spec) for i, spec in enumerate(specs)], alike=True)
    if conflict and mode != Sandbox.NONE:
        return (f"warning: {conflict} (a tournament config refuses this: give each bot a folder of its own "
                "for a fair match)")
    return ""


def run_name(names: Sequence[str], game: str, series: bool) -> str:
    """A name for the results directory: `a-vs-b` for a series, `GAME-a-b-c` for a tournament."""
    text = "-vs-".join(names) if series else "-".join([game, *names])
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in text).lstrip("._-") or "run"
    return cleaned[:80].rstrip("._-") or "run"


def _config(data: dict[str, Any]) -> TournamentConfig:
    try:
        return config_from_data(data, Path.cwd(), default_name="run")
    except ConfigError as exc:
        raise AdhocError(str(exc)) from None


def series_config(game: Game, specs: Sequence[BotSpec], games: int, setup: Mapping[str, Any], seed: int,
                  conditions: Conditions, sprt: SprtSettings | None = None) -> TournamentConfig:
    """A series: every game pair on one setup with the seats swapped (solo games: the same boards for every bot)."""
    players = 1 if game.max_players == 1 else len(specs)
    try:
        game.check_players(players)
    except GameError as exc:
        raise AdhocError(f"{exc} (one BOT per seat){tournament_hint(game, specs)}") from None
    pairs = _setup_count(players, games, "in one series")
    if sprt is not None and len(specs) != 2:
        raise AdhocError(f"an SPRT compares two bots; {len(specs)} are given")
    names = [spec.name for spec in specs]
    data = {
        "name": run_name(names, game.name, series=True), "game": game.name, "seed": seed, "players": players,
        "games_per_pairing": max(players, 1), "bots": [{"spec": s.text, "name": s.name} for s in specs],
        "setups": {"random": {**setup, "count": pairs}},
        "shared_dirs": True,  # the bot author's own bots: warned, not refused
        **conditions.to_data(),
    }
    if sprt is not None:
        data["sprt"] = sprt.to_data()
    return _config(data)


def _setup_count(players: int, games: int, per: str) -> int:
    """How many setups `games` games take (one per seat order); AdhocError when they do not divide or are too many."""
    if players > 1 and games % players:
        raise AdhocError(f"games must be a multiple of the seats ({players}) so every bot plays every seat "
                         f"equally; got {games}")
    count = games // players if players > 1 else games
    if count > MAX_SETUPS:
        raise AdhocError(f"games: at most {MAX_SETUPS * max(players, 1)} games {per}; got {games}")
    return count


def tournament_config(game: Game, specs: Sequence[BotSpec], games: int | None, setup: Mapping[str, Any],
                      seed: int, conditions: Conditions, kind: str = "round-robin") -> TournamentConfig:
    """A tournament of every bot named: games per pairing in pairs of seats, on as many random setups."""
    if kind not in FORMATS:
        raise AdhocError(f"format {kind!r} is not one of {', '.join(FORMATS)}")
    if len(specs) < 2:
        raise AdhocError(f"a tournament needs at least two bots; {len(specs)} given")
    players = max(game.min_players, min(game.max_players, len(specs)))
    if game.max_players == 1:
        players = 1
    games = games if games is not None else max(players, 1)
    count = _setup_count(players, games, "per pairing")
    names = [spec.name for spec in specs]
    data: dict[str, Any] = {
        "name": run_name(names, game.name, series=False), "game": game.name, "seed": seed, "players": players,
        "games_per_pairing": max(players, 1), "bots": [{"spec": s.text, "name": s.name} for s in specs],
        "setups": {"random": {**setup, "count": count}}, "format": kind,
        "shared_dirs": True,  # the organiser's own bots, named on the command line: warned, not refused
        **conditions.to_data(),
    }
    if kind == "gauntlet":  # as cutechess: the first bot plays every other
        data["challengers"] = [names[0]]
    return _config(data)
