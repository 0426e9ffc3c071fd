"""Tournament configs (TOML): parsed, checked key by key, and turned into plain values.

Every error names the key it is about (`bots[2].spec`, `clock.budget_ms`, ...). Paths in a
config (setup files, bot files, programs of `exec:` bots) are relative to the config
file's directory; the output directory is relative to where the command runs.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import re
import shutil
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.clock import ClockError, ClockSettings
from arena.games import Game, GameError, UnknownGame, add_game_paths, get_game
from arena.games.registry import is_game_folder
from arena.launch.processes.process import LaunchError, Limits, check_folder, program_problem
from arena.launch.sandbox.sandbox import Sandbox, SandboxError, check_sandbox
from arena.launch.specs.botspec import (
    BotKind,
    BotOptionsError,
    BotSpec,
    BotSpecError,
    Wire,
    default_wire,
    parse_bot_spec,
    parse_wire,
    unique_names,
    with_wire,
)
from arena.match.remote import DEFAULT_GRACE_MS, RemoteError, RemoteSettings, allowed_keys
from arena.outcomes import DEFAULT_STRIKE_REASONS, FAILURES
from arena.setups import SetupFileError, complete_setup, load_setup_file
from arena.tournament.plan.checker import Checker, ConfigError, add_games, kind_of
from arena.tournament.plan.overlap import FIX, folder_conflict
from arena.tournament.plan.schedule import derive_seed
from arena.tournament.stats.sprt import SprtSettings, SprtSettingsError, sprt_settings
from protocol.keys import KeyFileError, read_key_file

TOP_KEYS = ("name", "game", "games", "seed", "players", "games_per_pairing", "bots", "setups", "clock",
            "strikes", "limits", "sandbox", "concurrency", "pin_cpus", "persistent", "logs", "output", "sprt", "format",
            "challengers", "rounds", "tiebreak_pairs", "ponder", "shared_dirs", "reveal_names", "transport", "remote")
BOT_KEYS = ("spec", "name", "options", "limits", "dir", "transport")
SETUP_KEYS = ("fixed", "maps", "files", "random")
CLOCK_KEYS = ("budget_ms", "increment_ms", "move_cap_ms", "margin_ms", "startup_ms", "mode", "wall_factor")
STRIKE_KEYS = ("max_strikes", "reasons")
REMOTE_KEYS = ("listen", "allow", "server_key", "network_grace_ms")
LIMIT_KEYS = ("address_space_mb", "cpu_seconds", "file_size_mb", "open_files", "processes", "memory_mb", "disk_mb")
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,79}")


FORMATS = ("round-robin", "gauntlet", "knockout", "swiss")
TIEBREAK_PAIRS = 2
BLOCK = 100_000  # ord numbers of a tie or pairing: round * BLOCK**2 + pairing * BLOCK + game
TIEBREAK_BASE = BLOCK // 2  # games of the tie-break pairs come after the tie's own games


@dataclass(frozen=True)
class FormatSpec:
    """The format keys of a config: kind, challengers (bot indices), Swiss rounds, tie-break pairs."""

    kind: str = "round-robin"
    challengers: tuple[int, ...] = ()
    rounds: int = 0
    tiebreak_pairs: int = TIEBREAK_PAIRS

    def to_data(self, names: list[str]) -> dict[str, Any]:
        """The keys stored with the results ({} for a round-robin, so old fingerprints stay)."""
        if self.kind == "round-robin":
            return {}
        data: dict[str, Any] = {"format": self.kind}
        if self.kind == "gauntlet":
            data["challengers"] = [names[i] for i in self.challengers]
        if self.kind == "swiss":
            data["rounds"] = self.rounds
        if self.kind == "knockout":
            data["tiebreak_pairs"] = self.tiebreak_pairs
        return data


@dataclass(frozen=True)
class BotEntry:
    """One competitor: the name it is listed under and how to start it."""

    name: str
    spec: BotSpec
    limits: Limits | None = None  # this bot's own limits, overriding the tournament's


@dataclass(frozen=True)
class SetupEntry:
    """One complete setup and where it came from (`fixed`, `files[0]`, `random[3]`, ...)."""

    label: str
    setup: dict[str, Any]


@dataclass(frozen=True)
class StrikeRule:
    """After max_strikes failures of these reasons a bot is disqualified (0 = never)."""

    max_strikes: int = 3
    reasons: tuple[str, ...] = DEFAULT_STRIKE_REASONS


@dataclass
class TournamentConfig:
    """A checked tournament config."""

    name: str
    game: str
    bots: list[BotEntry]
    players: int
    setups: list[SetupEntry]
    games_per_pairing: int
    seed: int = 1
    clock: ClockSettings = field(default_factory=ClockSettings)
    limits: Limits = field(default_factory=Limits)
    sandbox: Sandbox = Sandbox.NONE
    strikes: StrikeRule = field(default_factory=StrikeRule)
    concurrency: int | None = None  # None: cores // 2, at least 1
    pin_cpus: bool = False
    persistent: bool = True
    logs: bool = True
    output: str | None = None
    sprt: SprtSettings | None = None  # two bots only: stop once the SPRT accepts a hypothesis
    format: FormatSpec = field(default_factory=FormatSpec)
    ponder: bool = False  # bots may think on the opponent's time (else each is frozen while not on move)
    shared_dirs: bool = False  # bots may share folders, see the config or the results (trusted bots only)
    reveal_names: bool = True  # whether init tells the bots the players' names (arena serve: false)
    remote: RemoteSettings | None = None  # the listener of remote:NAME bots ([remote]): their matches play here
    source: str = ""  # the config file, for messages

    def to_data(self) -> dict[str, Any]:
        """What defines the results (stored with them, and hashed into the fingerprint)."""
        return {
            "name": self.name,
            "game": self.game,
            "game_version": get_game(self.game).version,
            "players": self.players,
            "bots": [{"name": b.name, "spec": b.spec.text, "options": b.spec.options} for b in self.bots],
            "setups": [{"label": s.label, "setup": s.setup} for s in self.setups],
            "games_per_pairing": self.games_per_pairing,
            "seed": self.seed,
            "clock": self.clock.to_data(),
            "strikes": {"max_strikes": self.strikes.max_strikes, "reasons": list(self.strikes.reasons)},
        } | ({"sprt": self.sprt.to_data()} if self.sprt is not None else {}) \
          | self.format.to_data([b.name for b in self.bots]) \
          | ({"ponder": True} if self.ponder else {}) \
          | ({} if self.reveal_names else {"reveal_names": False})  # absent at their defaults: old fingerprints stay

    def fingerprint(self) -> str:
        """A hash of everything that decides which matches are played and how they are scored."""
        data = self.to_data()
        data.pop("name")
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def output_dir(self) -> Path:
        """The output directory the config asks for (default results/NAME)."""
        return Path(self.output) if self.output else Path("results") / self.name


def config_changes(stored: Any, current: Any, where: str = "") -> list[str]:
    """The keys (`bots[1].spec`, `clock.budget_ms`, ...) whose values differ between two config maps."""
    if isinstance(stored, dict) and isinstance(current, dict):
        changed = []
        for key in sorted(set(stored) | set(current), key=str):
            here = f"{where}.{key}" if where else str(key)
            if key not in stored or key not in current:
                changed.append(here)
            else:
                changed += config_changes(stored[key], current[key], here)
        return changed
    if isinstance(stored, list) and isinstance(current, list) and len(stored) == len(current):
        return [c for i, (a, b) in enumerate(zip(stored, current)) for c in config_changes(a, b, f"{where}[{i}]")]
    if isinstance(stored, list) and isinstance(current, list):
        return [f"{where} ({len(stored)} entries, now {len(current)})"]
    return [] if stored == current else [where or "the config"]


def default_rounds(bots: int) -> int:
    """Swiss rounds when the config does not say: enough to single out a winner, log2 of the field."""
    return max(1, min(bots - 1, math.ceil(math.log2(bots))))


def default_concurrency() -> int:
    """Half the usable cores (bots need the other half), at least one."""
    return max(1, len(os.sched_getaffinity(0)) // 2)


# --- loading ----------------------------------------------------------------------------


def load_config(path: str | os.PathLike[str], transport: str | None = None) -> TournamentConfig:
    """Read and check a TOML config file (transport: the command line's, over the file's); ConfigError names the key."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: {exc.reason}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    if transport is not None:
        data["transport"] = transport
    default_name = path.stem
    folder = path.resolve().parent
    if is_game_folder(folder) and "game" not in data:
        # A config inside a game's folder (its demo.toml) plays that game, found even when nobody named it.
        try:
            data["game"] = add_game_paths([folder], origin=str(path))[0]
        except GameError as exc:
            raise ConfigError(f"{path}: {exc}") from None
        default_name = f"{data['game']}-{path.stem}"
    return config_from_data(data, base=path.parent, source=str(path), default_name=default_name, config_file=path)


def config_from_data(data: Mapping[str, Any], base: Path | None = None, source: str = "",
                     default_name: str = "tournament", config_file: Path | None = None) -> TournamentConfig:
    """Check a config given as a map (what the TOML file holds; config_file: the file, if any)."""
    check = Checker(source)
    base = base or Path.cwd()
    check.keys(data, TOP_KEYS, "")
    add_games(check, data, base)
    if "game" not in data:
        raise check.fail("game", "missing (the game every match is played in)")
    game_name = check.string(data["game"], "game")
    try:
        game = get_game(game_name)
    except UnknownGame as exc:
        raise check.fail("game", str(exc)) from None
    name = check.string(data.get("name", default_name), "name")
    if not NAME_PATTERN.fullmatch(name):
        raise check.fail("name", f"{name!r} must be letters, digits, '.', '_' or '-' (it names a directory)")
    seed = check.integer(data.get("seed", 1), "seed", 0, 2**63 - 1)
    bots = _bots(check, data, game, base)
    players = _players(check, data, game, len(bots))
    default_games = players
    games = check.integer(data.get("games_per_pairing", default_games), "games_per_pairing", 1, 100_000)
    if games % players:
        raise check.fail("games_per_pairing",
                         f"must be a multiple of {players} (the seats) so every bot plays every seat equally; "
                         f"got {games}")
    concurrency = data.get("concurrency")
    sandbox = _sandbox(check, data.get("sandbox", "auto"))
    shared_dirs = check.boolean(data.get("shared_dirs", False), "shared_dirs")
    _folders(check, bots, sandbox, shared_dirs, config_file)
    return TournamentConfig(
        name=name,
        game=game.name,
        bots=bots,
        players=players,
        setups=_setups(check, data.get("setups", {"random": {"count": 1}}), game, players, seed, base),
        games_per_pairing=games,
        seed=seed,
        clock=_clock(check, data.get("clock", {})),
        limits=_limits(check, data.get("limits", {})),
        sandbox=sandbox,
        strikes=_strikes(check, data.get("strikes", {})),
        concurrency=None if concurrency is None else check.integer(concurrency, "concurrency", 1, 1024),
        pin_cpus=check.boolean(data.get("pin_cpus", False), "pin_cpus"),
        persistent=check.boolean(data.get("persistent", True), "persistent"),
        logs=check.boolean(data.get("logs", True), "logs"),
        output=check.string(data["output"], "output") if "output" in data else None,
        sprt=_sprt(check, data["sprt"], len(bots)) if "sprt" in data else None,
        format=_format(check, data, bots, players, games),
        ponder=check.boolean(data.get("ponder", False), "ponder"),
        shared_dirs=shared_dirs,
        reveal_names=check.boolean(data.get("reveal_names", True), "reveal_names"),
        remote=_remote(check, data.get("remote"), bots, base),
        source=source,
    )


def _players(check: Checker, data: Mapping[str, Any], game: Game, bots: int) -> int:
    if "players" in data:
        players = check.integer(data["players"], "players", 1)
    elif game.min_players == game.max_players:
        players = game.min_players
    else:  # a game for 1..N: as many seats as bots allow
        players = max(game.min_players, min(game.max_players, bots))
    try:
        game.check_players(players)
    except GameError as exc:
        raise check.fail("players", str(exc)) from None
    if players > bots:
        raise check.fail("players", f"{players} seats need at least {players} bots, the config lists {bots}")
    if players > 1 and bots < 2:
        raise check.fail("bots", "a round-robin needs at least two bots")
    return players


def bot_entries(items: list[Any], game: str, base: Path | None = None, source: str = "") -> list[BotEntry]:
    """Check a list of bots as a config's `bots` key holds them (specs or tables)."""
    return _bots(Checker(source), {"bots": items}, get_game(game), base or Path.cwd())


def _bots(check: Checker, data: Mapping[str, Any], game: Game, base: Path) -> list[BotEntry]:
    if "bots" not in data:
        raise check.fail("bots", "missing (a list of BOT specs or tables with spec, name, options)")
    entries: list[BotEntry] = []
    names: set[str] = set()
    # The wire of every bot that can choose (Python bots, Pascal modules); exec: and stdio: keep theirs.
    wire = _wire(check, data["transport"], "transport") if "transport" in data else None
    given: set[str] = set()  # names given explicitly: no other entry may take them
    for i, item in enumerate(check.array(data["bots"], "bots")):
        key = f"bots[{i}]"
        if isinstance(item, str):
            item = {"spec": item}
        item = check.table(item, key)
        check.keys(item, BOT_KEYS, key)
        if "spec" not in item:
            raise check.fail(f"{key}.spec", "missing (registered name, path/bot.py, module:Class or exec:COMMAND)")
        text = check.string(item["spec"], f"{key}.spec")
        options = check.table(item.get("options", {}), f"{key}.options")
        display = check.string(item["name"], f"{key}.name") if "name" in item else ""
        own_wire = _wire(check, item["transport"], f"{key}.transport") if "transport" in item else None
        try:
            # Paths in a spec are relative to the config file, like setup files.
            with contextlib.chdir(base):
                spec = parse_bot_spec(text, game.name, options, display)
        except BotOptionsError as exc:
            raise check.fail(f"{key}.options" if options else f"{key}.spec", str(exc)) from None
        except BotSpecError as exc:
            raise check.fail(f"{key}.spec", str(exc)) from None
        try:
            spec = with_wire(spec, own_wire) if own_wire is not None else default_wire(spec, wire)
        except BotSpecError as exc:
            raise check.fail(f"{key}.transport" if own_wire is not None else "transport", str(exc)) from None
        if spec.kind in (BotKind.EXEC, BotKind.STDIO):
            with contextlib.chdir(base):  # a bare name beside the config is named with its fix
                problem = program_problem(spec)
            if problem:
                raise check.fail(f"{key}.spec", problem)
        if spec.kind == BotKind.PASCAL and shutil.which("fpc") is None:
            raise check.fail(f"{key}.spec", "pascal: modules need Free Pascal (apt-get install fp-compiler)")
        if "dir" in item:
            own = (base / check.string(item["dir"], f"{key}.dir")).resolve()
            if not own.is_dir():
                raise check.fail(f"{key}.dir", f"no such directory: {own}")
            if spec.files and not (spec.files == str(own) or spec.files.startswith(str(own).rstrip("/") + "/")):
                raise check.fail(f"{key}.dir", f"{own} does not hold the bot's own files ({spec.files}), "
                                 "which would not be shown to it")
            spec = dataclasses.replace(spec, files=str(own))
        if spec.name in names and (display or spec.name in given):
            raise check.fail(f"{key}.name", f"duplicate bot name {spec.name!r} (give each entry its own name)")
        names.add(spec.name)
        if display:
            given.add(display)
        limits = _limits(check, item["limits"], f"{key}.limits") if "limits" in item else None
        entries.append(BotEntry(spec.name, spec, limits))
    # Names not given are made from the specs and numbered where two coincide (`bot`, `bot-2`).
    unique = unique_names([e.name for e in entries], [bool(e.spec.display) for e in entries])
    return [e if e.name == name else dataclasses.replace(e, name=name, spec=dataclasses.replace(e.spec, display=name))
            for e, name in zip(entries, unique)]


def bot_labels(bots: list[BotEntry]) -> list[tuple[str, BotSpec]]:
    """Each bot as the messages name it (`bots[1] (alice)`), with its spec."""
    return [(f"bots[{i}] ({bot.name})", bot.spec) for i, bot in enumerate(bots)]


def _folders(check: Checker, bots: list[BotEntry], sandbox: Sandbox, shared: bool, config_file: Path | None) -> None:
    """Each bot's own folder can be shown to it, and (unless shared) none overlaps another's or the config."""
    for i, bot in enumerate(bots):
        try:
            check_folder(bot.spec, sandbox)
        except LaunchError as exc:
            raise check.fail(f"bots[{i}]", str(exc)) from None
    conflict = "" if shared else folder_conflict(bot_labels(bots), config_file)
    if conflict:
        raise check.fail("", f"{conflict}; {FIX}")


def _remote(check: Checker, value: Any, bots: list[BotEntry], base: Path) -> RemoteSettings | None:
    """The [remote] table: where remote:NAME bots connect and whose keys may; every remote bot's key allowed."""
    remote = [(i, bot) for i, bot in enumerate(bots) if bot.spec.kind == BotKind.REMOTE]
    if value is None:
        if remote:
            i, bot = remote[0]
            raise check.fail(f"bots[{i}].spec", f"{bot.spec.text} needs a [remote] table (listen, allow)")
        return None
    table = check.table(value, "remote")
    check.keys(table, REMOTE_KEYS, "remote")
    if "listen" not in table:
        raise check.fail("remote.listen", "missing (tcp://ADDR:PORT where remote bots connect)")
    listen = check.string(table["listen"], "remote.listen")
    if not listen.startswith("tcp://"):
        raise check.fail("remote.listen", f"must be tcp://ADDR:PORT, got {listen!r}")
    allow = [str(base / check.string(item, f"remote.allow[{i}]"))
             for i, item in enumerate(check.array(table.get("allow", []), "remote.allow"))]
    try:
        names = set(allowed_keys(tuple(allow)).values())
    except RemoteError as exc:
        raise check.fail("remote.allow", str(exc)) from None
    for i, bot in remote:
        if bot.spec.target not in names:
            raise check.fail(f"bots[{i}].spec", f"{bot.spec.text}: remote.allow lists no key {bot.spec.target}.key")
    server_key = str(base / check.string(table["server_key"], "remote.server_key")) if "server_key" in table else ""
    if server_key:
        try:
            read_key_file(server_key, secret=True)
        except KeyFileError as exc:
            raise check.fail("remote.server_key", str(exc)) from None
    grace = check.integer(table.get("network_grace_ms", DEFAULT_GRACE_MS), "remote.network_grace_ms", 0, 600_000)
    return RemoteSettings(listen, tuple(allow), server_key, grace)


def _setups(check: Checker, value: Any, game: Game, players: int, seed: int, base: Path) -> list[SetupEntry]:
    table = check.table(value, "setups")
    check.keys(table, SETUP_KEYS, "setups")
    partials: list[tuple[str, dict[str, Any]]] = []
    if "fixed" in table:
        partials.append(("fixed", check.table(table["fixed"], "setups.fixed")))
    for i, item in enumerate(check.array(table.get("maps", []), "setups.maps")):
        partials.append((f"maps[{i}]", check.table(item, f"setups.maps[{i}]")))
    for i, item in enumerate(check.array(table.get("files", []), "setups.files")):
        key = f"setups.files[{i}]"
        file = base / check.string(item, key)
        try:
            partials.append((f"files[{i}]:{Path(item).name}", load_setup_file(file, game)))
        except (SetupFileError, GameError) as exc:
            raise check.fail(key, str(exc)) from None
    if "random" in table:
        options = dict(check.table(table["random"], "setups.random"))
        count = check.integer(options.pop("count", 1), "setups.random.count", 1, 10_000)
        partials += [(f"random[{i}]", dict(options)) for i in range(count)]
    if not partials:
        raise check.fail("setups", "no setup given (fixed, maps, files or random)")
    setups = []
    for index, (label, partial) in enumerate(partials):
        key = "setups." + label.split(":")[0]
        try:
            # Each setup gets its own seed, so random[3] is the same board in every pairing.
            complete = complete_setup(game, partial, players, derive_seed(seed, "setup", index))
        except GameError as exc:
            raise check.fail(key, str(exc)) from None
        except (TypeError, ValueError) as exc:  # generators may reject odd option types this way
            raise check.fail(key, f"bad setup value: {exc}") from None
        setups.append(SetupEntry(label, complete))
    return setups


def _clock(check: Checker, value: Any) -> ClockSettings:
    table = check.table(value, "clock")
    check.keys(table, CLOCK_KEYS, "clock")
    values: dict[str, Any] = {}
    for key, raw in table.items():
        if key == "mode":
            values[key] = check.string(raw, "clock.mode")
        elif key == "wall_factor":
            if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw <= 0:
                raise check.fail("clock.wall_factor", f"must be a positive number, got {kind_of(raw)}")
            values[key] = float(raw)
        else:
            values[key] = check.integer(raw, f"clock.{key}", 1 if key in ("budget_ms", "move_cap_ms") else 0)
    try:
        return ClockSettings(**values)
    except ClockError as exc:
        field_name = str(exc).split(" ", 1)[0]
        raise check.fail(f"clock.{field_name}" if field_name in CLOCK_KEYS else "clock", str(exc)) from None


def _limits(check: Checker, value: Any, where: str = "limits") -> Limits:
    table = check.table(value, where)
    check.keys(table, LIMIT_KEYS, where)
    values: dict[str, int | None] = {}
    for key, raw in table.items():
        # false or 0 lifts a limit (TOML has no null).
        values[key] = None if raw is False or raw == 0 else check.integer(raw, f"{where}.{key}", 1)
    return Limits(**values)


def _wire(check: Checker, value: Any, key: str) -> Wire:
    try:
        return parse_wire(check.string(value, key))
    except BotSpecError as exc:
        raise check.fail(key, str(exc)) from None


def _sandbox(check: Checker, value: Any) -> Sandbox:
    try:
        return check_sandbox(check.string(value, "sandbox"))
    except SandboxError as exc:
        raise check.fail("sandbox", str(exc)) from None


def _strikes(check: Checker, value: Any) -> StrikeRule:
    table = check.table(value, "strikes")
    check.keys(table, STRIKE_KEYS, "strikes")
    max_strikes = check.integer(table.get("max_strikes", StrikeRule.max_strikes), "strikes.max_strikes", 0)
    reasons = table.get("reasons", list(DEFAULT_STRIKE_REASONS))
    for i, reason in enumerate(check.array(reasons, "strikes.reasons")):
        if reason not in FAILURES:
            raise check.fail(f"strikes.reasons[{i}]", f"{reason!r} is not one of {', '.join(FAILURES)}")
    return StrikeRule(max_strikes, tuple(str(reason) for reason in reasons))


def _sprt(check: Checker, value: Any, bots: int) -> SprtSettings:
    table = check.table(value, "sprt")
    if bots != 2:
        raise check.fail("sprt", f"an SPRT compares two bots; this config has {bots}")
    try:
        return sprt_settings(table)
    except SprtSettingsError as exc:
        raise check.fail("", str(exc)) from None


def _format(check: Checker, data: Mapping[str, Any], bots: list[BotEntry], players: int, games: int) -> FormatSpec:
    kind = check.string(data.get("format", "round-robin"), "format")
    if kind not in FORMATS:
        raise check.fail("format", f"{kind!r} is not one of {', '.join(FORMATS)}")
    for key, only in (("challengers", "gauntlet"), ("rounds", "swiss"), ("tiebreak_pairs", "knockout")):
        if key in data and kind != only:
            raise check.fail(key, f"is for format = \"{only}\", not {kind!r}")
    if kind in ("knockout", "swiss") and players != 2:
        raise check.fail("format", f"{kind} pairs two bots at a time; this game seats {players}")
    names = [b.name for b in bots]
    if kind == "gauntlet":
        wanted = check.array(data.get("challengers", []), "challengers")
        if not wanted:
            raise check.fail("challengers", "a gauntlet names at least one challenger (a bot's name)")
        chosen = []
        for i, name in enumerate(wanted):
            if not isinstance(name, str) or name not in names:
                raise check.fail(f"challengers[{i}]", f"{name!r} is not a bot of this config ({', '.join(names)})")
            if names.index(name) not in chosen:
                chosen.append(names.index(name))
        return FormatSpec(kind, challengers=tuple(sorted(chosen)))
    if kind == "swiss":
        if len(bots) < 2:
            raise check.fail("bots", "a Swiss tournament needs at least two bots")
        limit = len(bots) - 1
        rounds = check.integer(data.get("rounds", default_rounds(len(bots))), "rounds", 1, limit)
        return FormatSpec(kind, rounds=rounds)
    if kind == "knockout":
        pairs = check.integer(data.get("tiebreak_pairs", 2), "tiebreak_pairs", 0, 100)
        setups = data.get("setups", {})
        if games * max(1, len(setups) if isinstance(setups, list) else 1) >= TIEBREAK_BASE:
            raise check.fail("games_per_pairing", f"a knockout tie holds fewer than {TIEBREAK_BASE} games")
        return FormatSpec(kind, tiebreak_pairs=pairs)
    return FormatSpec()
