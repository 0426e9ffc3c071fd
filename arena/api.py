"""The arena from Python (scripts, notebooks), and the layer the `arena` command stands on.

Each function takes what the matching command takes, as keyword arguments, and returns a
`Result`: the dict `--json` prints, whose `.text` is what the command prints. Bad input raises
ArenaError with a one-line message; a run that began and stopped early raises RunStopped.
The command line parses its options, calls these functions and prints what they return.
"""

from __future__ import annotations

import html
import os
import random
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.clock import ClockError, ClockSettings
from arena.games import Game, GameError, State, UnknownGame, get_game
from arena.launch.processes.probe import check_starts
from arena.launch.processes.process import LaunchError, Limits, MachineError, preflight
from arena.launch.sandbox.sandbox import Sandbox, SandboxError, announce, check_sandbox
from arena.launch.specs.botspec import BotKind, BotSpec, BotSpecError, default_wire, parse_wire
from arena.match.remote import DEFAULT_GRACE_MS, RemoteError, RemoteSettings, allowed_keys, user_server_key
from arena.outcomes import public_detail
from arena.setups import SetupFileError, complete_setup, load_setup_file
from arena.tournament.plan.adhoc import (
    AdhocError,
    Conditions,
    parse_specs,
    series_config,
    shared_folder_warning,
    tournament_config,
    tournament_hint,
)
from arena.tournament.plan.config import ConfigError, TournamentConfig, config_from_data, load_config
from arena.tournament.results.report import STANDINGS_MD, terminal
from arena.tournament.results.series import parse_sprt
from arena.tournament.results.standings import standings_data
from arena.tournament.run.coordinator import RunOptions
from arena.tournament.run.session import RunOutcome, RunRefused, outline, run_config, run_directory
from arena.tournament.stats.sprt import SprtSettings, SprtSettingsError, sprt_settings
from protocol.keys import KeyFileError, read_key_file

PathLike = str | os.PathLike[str]
Setup = Mapping[str, Any] | PathLike | None
DEFAULT_SERIES_SEED = 1  # a series plays the same boards every run unless a seed is given


class ArenaError(ValueError):
    """Bad input to an API call, or a run that could not finish; the message says which, in one line."""


class RunStopped(ArenaError):
    """A run that began and stopped before its end (a full disk, a lost worker, Ctrl-C): its results are kept."""

    def __init__(self, message: str, code: int = 1, directory: Path | None = None, name: str = "") -> None:
        super().__init__(message)
        self.code = code  # the command's exit status: 1, or 130 when interrupted
        self.directory = directory
        self.name = name  # the run's name (a tournament's), "" for a single match


class Result(dict[str, Any]):
    """What `--json` prints, as a dict; `.text` is what the command prints for people."""

    def __init__(self, data: Mapping[str, Any], text: str) -> None:
        super().__init__(data)
        self.text = text


def _game(name: str) -> Game:
    try:
        return get_game(name)
    except UnknownGame as exc:
        raise ArenaError(str(exc)) from None


def _specs(game: Game, bots: Sequence[str], names: Sequence[str] | None) -> list[BotSpec]:
    try:
        return parse_specs(game, bots, names)
    except AdhocError as exc:
        raise ArenaError(str(exc)) from None


def _wired(specs: list[BotSpec], transport: str | None) -> list[BotSpec]:
    """The specs with the wire asked for (zeromq or pipes) where a bot can choose; None: their default."""
    try:
        wire = parse_wire(transport) if transport is not None else None
        return [default_wire(spec, wire) for spec in specs]
    except BotSpecError as exc:
        raise ArenaError(f"transport: {exc}") from None


def _partial_setup(game: Game, setup: Setup) -> dict[str, Any]:
    """The setup values given: a map as it is, a file read in (JSON, TOML, the game's own format)."""
    if setup is None:
        return {}
    if isinstance(setup, Mapping):
        return dict(setup)
    try:
        return load_setup_file(os.fspath(setup), game)
    except (SetupFileError, GameError) as exc:
        raise ArenaError(str(exc)) from None


def read_setup(game: str, path: PathLike) -> dict[str, Any]:
    """A setup file's values for a game (to merge with values given one by one)."""
    return _partial_setup(_game(game), path)


def _clock(budget_ms: int, increment_ms: int, move_ms: int | None, margin_ms: int, clock_mode: str) -> ClockSettings:
    try:
        return ClockSettings(budget_ms=budget_ms, increment_ms=increment_ms, move_cap_ms=move_ms,
                             margin_ms=margin_ms, mode=clock_mode)  # type: ignore[arg-type]
    except ClockError as exc:
        raise ArenaError(str(exc).replace("move_cap_ms", "move_ms")) from None


def _remote(specs: list[BotSpec], listen: str | None, allow: Sequence[PathLike], server_key: PathLike | None,
            grace_ms: int, progress: bool) -> RemoteSettings | None:
    """The listener settings of a match's remote:NAME seats (None without any), checked; said on stderr."""
    remote = [spec for spec in specs if spec.kind == BotKind.REMOTE]
    if not remote:
        if listen is not None or allow:
            raise ArenaError("listen and allow (--listen, --allow) are for remote:NAME bots; none is given")
        return None
    if listen is None or not listen.startswith("tcp://"):
        raise ArenaError(f"{remote[0].text} plays from another machine: give listen=tcp://ADDR:PORT (--listen) "
                         "and its public key (--allow NAME.key)")
    if isinstance(grace_ms, bool) or not isinstance(grace_ms, int) or grace_ms < 0:
        raise ArenaError(f"network_grace_ms must be a non-negative integer, got {grace_ms!r}")
    try:
        secret = Path(server_key) if server_key is not None else user_server_key()
        public, _ = read_key_file(secret, secret=True)
        names = set(allowed_keys(tuple(os.fspath(file) for file in allow)).values())
    except (RemoteError, KeyFileError, OSError) as exc:
        raise ArenaError(str(exc)) from None
    missing = [spec.text for spec in remote if spec.target not in names]
    if missing:
        raise ArenaError(f"{missing[0]}: no allowed key is named {missing[0][len('remote:'):]} (--allow NAME.key)")
    if progress:
        shown = secret.with_name(secret.name.removesuffix("_secret"))
        print(f"remote bots connect to {listen} with the referee's public key {public.decode()}"
              + (f" ({shown})" if shown.exists() else ""), file=sys.stderr)
    return RemoteSettings(listen, tuple(os.fspath(file) for file in allow), os.fspath(secret), grace_ms)


def _warn(text: str, what: str) -> None:
    if text:
        print(f"{what}: {text}", file=sys.stderr)


def _board_printer(game: Game, names: list[str], initial: State) -> Callable[[State, int, Any], None]:
    """Print the board before the first move and after every move, as `arena play` draws it."""
    from arena.kit.terminal import Terminal, colour_wanted
    from arena.kit.views import view_for

    view = view_for(game.name, Terminal(colour_wanted("auto", sys.stdout)), names, [])
    print(view.board(initial), flush=True)

    def show(state: State, seat: int, move: Any) -> None:
        print(f"\n{names[seat]} (seat {seat}) chose {game.render_move(move)}.", flush=True)
        print(view.board(state, (seat, move)), flush=True)

    return show


def describe(result: Mapping[str, Any]) -> str:
    """One line saying who won and why, from a match's result."""
    ranks, names = result["ranks"], result["players"]
    best = min(ranks)
    winners = [names[i] for i, r in enumerate(ranks) if r == best]
    outcome = (f"{winners[0]} (seat {ranks.index(best)}) wins" if len(winners) == 1 and len(ranks) > 1
               else f"shared first place: {', '.join(winners)}" if len(winners) > 1 else "solo game")
    offender = result["offender"]
    failure = public_detail(str(result["reason"]), int(result["plies"])) if offender is not None else ""
    if failure:  # who failed and why comes first: the scores of a failed match say little
        detail = f": {result['detail']}" if result["detail"] else ""
        return (f"{names[offender]} (seat {offender}) {failure}{detail}; {outcome}; scores {result['scores']}; "
                f"ranks {ranks}; {result['plies']} plies")
    tail = f", offender seat {offender}" if offender is not None else ""
    detail = f" ({result['detail']})" if result["detail"] else ""
    return (f"{outcome}; reason {result['reason']}{tail}{detail}; scores {result['scores']}; "
            f"ranks {ranks}; {result['plies']} plies")


def _startable(specs: Sequence[BotSpec], sandbox: str, memory_mb: int) -> Sandbox:
    """The sandbox mode, once every bot is known to start there (its program runs, its Python loads)."""
    if any(b.kind == BotKind.PASCAL for b in specs) and shutil.which("fpc") is None:
        raise ArenaError("pascal: modules need Free Pascal (apt-get install fp-compiler)")
    try:
        mode = check_sandbox(sandbox)
        for bot in specs:
            preflight(bot, mode)
        check_starts(specs, mode, Limits(address_space_mb=memory_mb))
    except (SandboxError, LaunchError) as exc:
        raise ArenaError(str(exc)) from None
    except MachineError as exc:  # no process left to probe the sandbox with: the machine's, not the input's
        raise RunStopped(str(exc)) from None
    return mode


def play_match(game: str, bots: Sequence[str], *, setup: Setup = None, seed: int | None = None,
               budget_ms: int = 10_000, increment_ms: int = 0, move_ms: int | None = None, margin_ms: int = 200,
               clock_mode: str = "wall", ponder: bool = False, sandbox: str = "auto", memory_mb: int = 4096,
               transport: str | None = None, log: PathLike | None = None, force: bool = False,
               trace: PathLike | None = None,
               names: Sequence[str] | None = None, show: bool = False, progress: bool = False,
               listen: str | None = None, allow: Sequence[PathLike] = (), server_key: PathLike | None = None,
               network_grace_ms: int = DEFAULT_GRACE_MS) -> Result:
    """Play one match; the result as `arena match --json` prints it (seed and log path included).

    setup: a map of setup values or a setup file; seed: random when None; move_ms: the cap per
    move; transport: "zeromq" (the default) or "pipes" for the bots that can choose; show: print
    the board after every move; progress: say the sandbox in use on stderr. A `remote:NAME`
    bot plays from another machine: it connects to listen (tcp://ADDR:PORT) with the key of
    NAME.key among the allow files (CURVE; server_key: the referee's secret key file, default
    the user's); of each move's wait, its connection's measured round trip (with a jitter
    allowance) is not charged to it, up to network_grace_ms.
    """
    from arena.logs.signing import user_key  # the log is signed with the user's key (protocol/LOGS.md)
    from arena.match.onematch import MatchPlan, default_log_path
    from arena.match.onematch import play_match as play

    rules = _game(game)
    specs = _wired(_specs(rules, bots, names), transport)
    try:
        rules.check_players(len(specs))
    except GameError as exc:
        raise ArenaError(f"{exc} (one BOT per seat){tournament_hint(rules, specs)}") from None
    if log is not None and Path(log).exists() and not force:
        raise ArenaError(f"{os.fspath(log)} exists (a log is never overwritten; force=True, --force, replaces it)")
    mode = _startable(specs, sandbox, memory_mb)
    _warn(shared_folder_warning(specs, sandbox), "arena match")
    remote = _remote(specs, listen, allow, server_key, network_grace_ms, progress)
    seed = seed if seed is not None else random.randrange(2**31)
    try:
        full = complete_setup(rules, _partial_setup(rules, setup), len(specs), seed)
    except GameError as exc:
        raise ArenaError(str(exc)) from None
    clock = _clock(budget_ms, increment_ms, move_ms, margin_ms, clock_mode)
    log_path = Path(log) if log is not None else default_log_path(rules.name, seed)
    shown = [b.name for b in specs]
    if progress:  # before the first board, not in the middle of it
        announce(mode)
    on_ply = _board_printer(rules, shown, rules.start(full, len(specs), seed)[0]) if show else None
    plan = MatchPlan(rules, specs, full, seed, clock, f"{rules.name}-{seed}", log_path,
                     Limits(address_space_mb=memory_mb), mode, trace_path=trace, log_key=user_key(create=True),
                     ponder=ponder, remote=remote)
    try:
        result = play(plan, on_ply=on_ply)
    except (MachineError, RemoteError) as exc:
        if log is None and log_path.exists() and log_path.stat().st_size == 0:
            log_path.unlink()  # the name claimed for a log that was never written
        if isinstance(exc, RemoteError):
            raise ArenaError(str(exc)) from None
        raise RunStopped(f"{exc}; no result recorded") from None
    data = result.summary() | {"seed": seed}
    return Result(data, f"{rules.name} seed {seed}: {describe(data)}\nlog: {result.log}")


def _sprt(sprt: str | Mapping[str, Any] | SprtSettings | None) -> SprtSettings | None:
    try:
        if sprt is None or isinstance(sprt, SprtSettings):
            return sprt
        return parse_sprt(sprt) if isinstance(sprt, str) else sprt_settings(sprt, "sprt")
    except SprtSettingsError as exc:
        raise ArenaError(str(exc)) from None


def _run(config: TournamentConfig, options: RunOptions) -> RunOutcome:
    """Run a config; ArenaError for bad input, RunStopped when it stops before its end."""
    try:
        outcome = run_config(config, options)
    except RunRefused as exc:
        raise ArenaError(str(exc)) from None
    if outcome.standings is None:
        raise RunStopped(outcome.problem, outcome.code, options.out, config.name)
    return outcome


def _options(out: PathLike | None, default: Path, resume: bool, **rest: Any) -> RunOptions:
    where = Path(out) if out is not None else run_directory(default, resume)
    trace = rest.pop("trace", None)
    return RunOptions(out=where, resume=resume, trace=Path(trace) if trace is not None else None, **rest)


def _hint(out: Path) -> str:
    """What to do with a results directory, said alike after a series and a tournament."""
    return f"(arena verify {out}; arena view {out}: the report page with every match)"


def run_series(game: str, bots: Sequence[str], games: int, *, sprt: str | Mapping[str, Any] | None = None,
               setup: Setup = None, seed: int | None = None, budget_ms: int = 10_000, increment_ms: int = 0,
               move_ms: int | None = None, margin_ms: int = 200, clock_mode: str = "wall", ponder: bool = False,
               sandbox: str = "auto", memory_mb: int = 4096, transport: str | None = None,
               names: Sequence[str] | None = None, workers: int | None = None, out: PathLike | None = None,
               resume: bool = False, trace: PathLike | None = None, progress: bool = False,
               report_every: int = 0) -> Result:
    """Play a series (games in pairs, seats swapped); its summary as `arena match --games N --json` prints it.

    sprt: "elo0=0,elo1=5" or {"elo0": 0, "elo1": 5, ...}: stop as soon as the SPRT decides. The
    results go to out, else to a new results/A-vs-B (-2, -3, ...; with resume: the newest).
    """
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise ArenaError(f"games: a positive number of games, not {games!r}")
    rules = _game(game)
    specs = _specs(rules, bots, names)
    conditions = Conditions(budget_ms, increment_ms, move_ms, margin_ms, clock_mode, memory_mb, sandbox, ponder,
                            transport)
    try:
        config = series_config(rules, specs, games, _partial_setup(rules, setup),
                               seed if seed is not None else DEFAULT_SERIES_SEED, conditions, _sprt(sprt))
    except AdhocError as exc:
        raise ArenaError(str(exc)) from None
    _startable([bot.spec for bot in config.bots], sandbox, memory_mb)
    _warn(shared_folder_warning(specs, sandbox), "arena match")
    options = _options(out, Path("results") / config.name, resume, workers=workers, quiet=not progress,
                       trace=trace, report_every=report_every)
    outcome = _run(config, options)
    coordinator, standings = outcome.coordinator, outcome.standings
    assert coordinator is not None and standings is not None
    if coordinator.tally is not None:
        pair = (config.bots[0].name, config.bots[1].name)
        data = coordinator.tally.summary(pair)
        lines = coordinator.tally.lines(pair, coordinator.plan.total() if coordinator.stopped_early else 0)
    else:
        data, lines = standings_data(standings), [terminal(standings)]
    lines.append(f"results: {options.out}  {_hint(options.out)}")
    return Result(data | {"stopped_early": coordinator.stopped_early, "dir": str(options.out)}, "\n".join(lines))


def tournament(config: PathLike | Mapping[str, Any] | TournamentConfig,
               transport: str | None = None) -> TournamentConfig:
    """A checked tournament config from a TOML file, its contents as a dict, or itself (transport: over its own)."""
    if isinstance(config, TournamentConfig):
        if transport is not None:
            raise ArenaError("transport: give it with a config file or dict, not a checked config")
        return config
    try:
        if isinstance(config, Mapping):
            return config_from_data({**config, "transport": transport} if transport is not None else config)
        return load_config(config, transport)
    except ConfigError as exc:
        raise ArenaError(str(exc)) from None


def describe_plan(config: PathLike | Mapping[str, Any] | TournamentConfig) -> str:
    """What a config would play (format, bots, matches per bot, total), playing nothing."""
    return "\n".join(outline(tournament(config)))


def run_tournament(config: PathLike | Mapping[str, Any] | TournamentConfig, bots: Sequence[str] | None = None, *,
                   games: int | None = None, format: str = "round-robin", setup: Setup = None,
                   seed: int | None = None, budget_ms: int | None = None, increment_ms: int | None = None,
                   move_ms: int | None = None, margin_ms: int | None = None, clock_mode: str | None = None,
                   ponder: bool | None = None, sandbox: str | None = None, memory_mb: int | None = None,
                   transport: str | None = None, names: Sequence[str] | None = None, out: PathLike | None = None,
                   resume: bool = False,
                   workers: int | None = None, executor: str = "local", scheduler: str | None = None,
                   trace: PathLike | None = None, progress: bool = False, report_every: int = 0) -> Result:
    """Run a tournament; its standings.json as a dict, with `dir`.

    Either a config (a TOML file, its contents as a dict) or a game and its bots:
    run_tournament("blocking", ["maxblock", "random", "sequential"], games=4) plays every pair
    4 games (2 setups, both seats; format: round-robin, gauntlet (the first bot against the
    others), knockout or swiss) under the clock given. Results go to out, else to a new
    results/NAME (-2, -3, ...; with resume: the newest). transport ("zeromq" or "pipes"), for
    the bots that can choose, goes with either.
    """
    chosen = {"games": games, "setup": setup, "seed": seed, "names": names, "budget_ms": budget_ms,
              "increment_ms": increment_ms, "move_ms": move_ms, "margin_ms": margin_ms, "clock_mode": clock_mode,
              "ponder": ponder, "sandbox": sandbox, "memory_mb": memory_mb}
    if bots is None:
        given = [key for key, value in chosen.items() if value is not None] + (["format"] if format != "round-robin"
                                                                              else [])
        if given:
            raise ArenaError(f"{given[0]}: a config says it itself; this option goes with a game and its bots "
                             "(run_tournament(GAME, [BOT, ...], ...), arena tournament GAME BOT BOT...)")
        checked = tournament(config, transport)
    else:
        checked = tournament_from_bots(os.fspath(config), bots, format=format, transport=transport,
                                       **chosen)  # type: ignore[arg-type]
    if executor == "dask":
        import importlib.util

        if importlib.util.find_spec("distributed") is None:
            raise ArenaError("executor dask needs Dask: pip install 'arena[dask]'")
    elif executor != "local":
        raise ArenaError(f"executor {executor!r}: local or dask")
    options = _options(out, checked.output_dir(), resume, workers=workers, executor=executor, scheduler=scheduler,
                       quiet=not progress, trace=trace, report_every=report_every)
    outcome = _run(checked, options)
    coordinator, standings = outcome.coordinator, outcome.standings
    assert coordinator is not None and standings is not None
    lines = [terminal(standings)]
    if coordinator.tally is not None:
        lines += coordinator.tally.lines((checked.bots[0].name, checked.bots[1].name))
    lines.append(f"results: {options.out / STANDINGS_MD}  {_hint(options.out)}")
    return Result(standings_data(standings) | {"dir": str(options.out)}, "\n".join(lines))


def tournament_from_bots(game: str, bots: Sequence[str], *, games: int | None = None, format: str = "round-robin",
                         setup: Setup = None, seed: int | None = None, names: Sequence[str] | None = None,
                         budget_ms: int | None = None, increment_ms: int | None = None, move_ms: int | None = None,
                         margin_ms: int | None = None, clock_mode: str | None = None, ponder: bool | None = None,
                         sandbox: str | None = None, memory_mb: int | None = None,
                         transport: str | None = None) -> TournamentConfig:
    """The config of a tournament named by its game and bots, as a TOML file would hold it (None: the default)."""
    rules = _game(game)
    specs = _specs(rules, bots, names)
    given = {"budget_ms": budget_ms, "increment_ms": increment_ms, "move_ms": move_ms, "margin_ms": margin_ms,
             "clock_mode": clock_mode, "memory_mb": memory_mb, "sandbox": sandbox, "ponder": ponder,
             "transport": transport}
    conditions = Conditions(**{key: value for key, value in given.items() if value is not None})
    if games is not None and (isinstance(games, bool) or not isinstance(games, int) or games < 1):
        raise ArenaError(f"games: a positive number of games per pairing, not {games!r}")
    _warn(shared_folder_warning(specs, conditions.sandbox), "arena tournament")
    try:
        return tournament_config(rules, specs, games, _partial_setup(rules, setup),
                                 seed if seed is not None else DEFAULT_SERIES_SEED, conditions, format)
    except AdhocError as exc:
        raise ArenaError(str(exc)) from None


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


def game_from_folder(folder: PathLike) -> Game:
    """The game of a folder (found from here on, in this process and the ones it starts); ArenaError for a bad one."""
    from arena.games import add_game_paths

    try:
        names = add_game_paths([folder])
    except GameError as exc:
        raise ArenaError(str(exc)) from None
    if len(names) != 1 or Path(folder).resolve().name != names[0]:
        raise ArenaError(f"{os.fspath(folder)} is not a game's folder (it has no rules.py)")
    return get_game(names[0])


def check_game_folder(folder: PathLike, *, games: int = 20, browser: bool = True, budget_ms: int = 2000) -> Any:
    """Every part of a game's folder checked, as `arena check-game DIR` does: a report with `.ok` and `.lines()`."""
    from arena.gamecheck.folder import check_folder

    return check_folder(game_from_folder(folder).name, games=games, browser=browser, budget_ms=budget_ms)

