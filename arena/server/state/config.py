"""The contest server's config (TOML): the game and its clock as in a tournament, plus the server's own keys.

The tournament keys (`game`, `seed`, `setups`, `clock`, `limits`, `sandbox`, `reveal_names`) are checked by
the tournament config's own code, so an error names the same key either way. The server
adds `[server]`, `[ladder]`, `[uploads]`, `references` and `admin_token_file`. Paths are
relative to the config file's directory.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from arena.games import UnknownGame, get_game
from arena.launch.sandbox.sandbox import Sandbox, filter_problem, resolve_sandbox
from arena.launch.specs.plugins import bots_for
from arena.match.remote import DEFAULT_GRACE_MS
from arena.tournament.plan.checker import add_games
from arena.tournament.plan.config import Checker, ConfigError, TournamentConfig, config_from_data

TOP_KEYS = ("name", "game", "games", "seed", "setups", "clock", "limits", "sandbox", "reveal_names", "references",
            "admin_token_file", "directory", "server", "ladder", "uploads", "finals", "remote")
SERVER_KEYS = ("host", "port", "workers", "secure_cookies", "trusted_proxies", "trusted_origins", "login_failures",
               "login_window_s", "login_ipv4_prefix", "login_ipv6_prefix", "log_every")
LADDER_KEYS = ("placement_games", "validation_games", "provisional_games", "max_errors", "max_error_rate",
               "build_timeout_s", "lease_factor", "max_attempts", "scrimmages_per_hour", "max_games")
UPLOAD_KEYS = ("max_bytes", "max_files", "max_unpacked_bytes", "versions_per_entrant", "per_hour")
FINALS_KEYS = ("games_per_pairing", "format")
DEFAULT_PORTS = {"http": 80, "https": 443}
REMOTE_KEYS = ("allowed", "listen", "finals", "network_grace_ms")


@dataclass(frozen=True)
class RemoteEntrants:
    """The `[remote]` table: whether entrants may play from their own machines, and where they connect."""

    allowed: bool = False
    listen: str = "tcp://0.0.0.0:8100"  # where the ladder's worker listens for remote bots (CURVE)
    finals: bool = False  # whether remote entrants play the finals
    network_grace_ms: int = DEFAULT_GRACE_MS  # the cap on a move's network time not charged to a remote bot


@dataclass(frozen=True)
class LadderPolicy:
    """How new versions are checked and how the ladder pairs them."""

    placement_games: int = 6  # against opponents across the rating range, before regular pairing
    validation_games: int = 2  # per reference bot (both seats) before a version may enter
    provisional_games: int = 12  # marked provisional on the board until it has this many
    max_errors: int = 50  # a version with more failures than this is disabled ...
    max_error_rate: float = 0.10  # ... or with more than this share of its games (after 10 games)
    build_timeout_s: int = 120
    lease_factor: float = 2.0  # a game or build not finished in this many times its limit is retried
    max_attempts: int = 3  # tries of a game or build before it is given up (void)
    scrimmages_per_hour: int = 6  # unrated test games an entrant may ask for
    max_games: int = 200  # a version with this many rated games only plays when another needs an opponent


@dataclass(frozen=True)
class UploadLimits:
    """What one submission may be."""

    max_bytes: int = 2 * 2**20  # the uploaded file
    max_files: int = 200  # in an archive
    max_unpacked_bytes: int = 20 * 2**20  # an archive's members together
    versions_per_entrant: int = 50
    per_hour: int = 20  # submissions of one entrant in any hour


@dataclass(frozen=True)
class ServerConfig:
    """A checked server config."""

    tournament: TournamentConfig  # game, setups, clock, limits and sandbox; its bots are the references
    directory: Path  # where the server keeps its database, submissions, logs and finals
    admin_token_file: Path
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 1
    secure_cookies: bool = False  # True behind an HTTPS proxy: cookies are sent over HTTPS only
    # Addresses (or networks) of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are
    # believed; from anyone else those headers are ignored.
    trusted_proxies: tuple[str, ...] = ()
    # Origins (scheme://host[:port]) the site's pages are served from besides the request's own
    # scheme and Host: for a reverse proxy that rewrites Host (arena/server/web/origin.py).
    trusted_origins: tuple[str, ...] = ()
    login_failures: int = 20  # failed logins and bad tokens an address may send within login_window_s ...
    login_window_s: int = 60  # ... before its token checks are answered 429 for the rest of the window
    # The failures are counted per network, not per address: one host of IPv6 is given a /64 (or
    # more) and could otherwise try a fresh address for every guess.
    login_ipv4_prefix: int = 32
    login_ipv6_prefix: int = 64
    ladder: LadderPolicy = field(default_factory=LadderPolicy)
    uploads: UploadLimits = field(default_factory=UploadLimits)
    finals_games: int = 4
    finals_format: str = "round-robin"
    remote: RemoteEntrants = field(default_factory=RemoteEntrants)
    source: str = ""
    executor: str = "local"  # or "dask" (arena serve --executor dask --scheduler ADDRESS)
    scheduler: str | None = None
    base: Path = Path()  # the config file's folder: the reference bots' paths are relative to it
    log_every: int = 100  # the ladder's progress is told every this many games

    @property
    def game(self) -> str:
        """The game every match is played in."""
        return self.tournament.game

    @property
    def references(self) -> list[str]:
        """The reference bots' names: validation opponents and the ladder's house bots."""
        return [bot.name for bot in self.tournament.bots]


def load_server_config(path: str | os.PathLike[str], insecure: bool = False) -> ServerConfig:
    """Read and check a server config; ConfigError names the file and the key."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text: {exc.reason}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    return server_config_from_data(data, path.resolve().parent, str(path), insecure, path.stem)


def server_config_from_data(data: Mapping[str, Any], base: Path, source: str = "", insecure: bool = False,
                            default_name: str = "contest") -> ServerConfig:
    """Check a server config given as a map."""
    check = Checker(source)
    check.keys(data, TOP_KEYS, "")
    add_games(check, data, base)
    if "game" not in data:
        raise check.fail("game", "missing (the game the contest is played in)")
    game = check.string(data["game"], "game")
    try:
        if get_game(game).max_players < 2:
            raise check.fail("game", f"the ladder pairs two bots; {game} is played alone")
    except UnknownGame as exc:
        raise check.fail("game", str(exc)) from None
    references = check.array(data.get("references", [b.name for b in bots_for(game)]), "references")
    if not references:
        raise check.fail("references", f"{game} has no reference bots; name at least one bot spec")
    tournament_keys = ("game", "seed", "setups", "clock", "limits", "sandbox", "reveal_names")
    tdata = {key: data[key] for key in tournament_keys if key in data}
    tdata.setdefault("sandbox", "bwrap")
    tdata.setdefault("reveal_names", False)  # contest games are anonymous: a bot is not told whom it plays
    tdata |= {"name": check.string(data.get("name", default_name), "name"), "bots": references, "players": 2,
              "logs": True}
    tournament = config_from_data(tdata, base=base, source=source)
    if tournament.players != 2:
        raise check.fail("game", f"the ladder pairs two bots; {game} needs {tournament.players}")
    isolation = resolve_sandbox(tournament.sandbox)
    mode = isolation.mode
    if mode == Sandbox.NONE and not insecure:
        raise check.fail("sandbox", "the server runs untrusted code and needs a sandbox (bwrap: apt-get install "
                                    "bubblewrap); start with --insecure to run it without one")
    if mode == Sandbox.UID:
        raise check.fail("sandbox", "the server builds submissions in bwrap (apt-get install bubblewrap); "
                                    "uid alone is not enough (or --insecure with sandbox = \"none\")")
    if mode != Sandbox.NONE and not isolation.syscall_filter and not insecure:
        raise check.fail("sandbox", f"{mode} has no system-call filter here ({filter_problem(mode)}): bots that run at "
                                    "the same time could signal each other through locks and watches on shared files "
                                    "(arena doctor); start with --insecure to run it anyway")
    server = check.table(data.get("server", {}), "server")
    check.keys(server, SERVER_KEYS, "server")
    directory = (base / check.string(data.get("directory", f"{tournament.name}-server"), "directory")).resolve()
    token_file = base / check.string(data.get("admin_token_file", str(directory / "admin.token")),
                                     "admin_token_file")
    finals_format, finals_games = _finals(check, data.get("finals", {}))
    return ServerConfig(
        tournament=tournament, directory=directory, admin_token_file=token_file, source=source, base=base,
        host=check.string(server.get("host", "127.0.0.1"), "server.host"),
        port=check.integer(server.get("port", 8000), "server.port", 0, 65535),
        workers=check.integer(server.get("workers", 1), "server.workers", 1, 256),
        secure_cookies=check.boolean(server.get("secure_cookies", False), "server.secure_cookies"),
        trusted_proxies=_proxies(check, server.get("trusted_proxies", [])),
        trusted_origins=_origins(check, server.get("trusted_origins", [])),
        login_failures=check.integer(server.get("login_failures", 20), "server.login_failures", 1, 1_000_000),
        login_window_s=check.integer(server.get("login_window_s", 60), "server.login_window_s", 1, 86_400),
        login_ipv4_prefix=check.integer(server.get("login_ipv4_prefix", 32), "server.login_ipv4_prefix", 8, 32),
        login_ipv6_prefix=check.integer(server.get("login_ipv6_prefix", 64), "server.login_ipv6_prefix", 32, 128),
        ladder=_ladder(check, data.get("ladder", {})), uploads=_uploads(check, data.get("uploads", {})),
        finals_games=finals_games, finals_format=finals_format, remote=_remote(check, data.get("remote", {})),
        log_every=check.integer(server.get("log_every", 100), "server.log_every", 1, 10**9),
    )


def _proxies(check: Checker, value: Any) -> tuple[str, ...]:
    proxies = []
    for i, item in enumerate(check.array(value, "server.trusted_proxies")):
        text = check.string(item, f"server.trusted_proxies[{i}]")
        try:
            ipaddress.ip_network(text, strict=False)
        except ValueError:
            raise check.fail(f"server.trusted_proxies[{i}]", f"{text!r} is not an IP address or network") from None
        proxies.append(text)
    return tuple(proxies)


def _origins(check: Checker, value: Any) -> tuple[str, ...]:
    origins = []
    for i, item in enumerate(check.array(value, "server.trusted_origins")):
        text = check.string(item, f"server.trusted_origins[{i}]")
        origin = origin_of(text)
        if origin is None or urlsplit(text).path not in ("", "/") or urlsplit(text).query or "#" in text:
            raise check.fail(f"server.trusted_origins[{i}]",
                             f"{text!r} is not an origin: scheme://host[:port], e.g. https://contest.example.org")
        origins.append(origin)
    return tuple(origins)


def _finals(check: Checker, value: Any) -> tuple[str, int]:
    """The [finals] table: (format, games per pairing)."""
    finals = check.table(value, "finals")
    check.keys(finals, FINALS_KEYS, "finals")
    form = check.string(finals.get("format", "round-robin"), "finals.format")
    if form not in ("round-robin", "swiss", "knockout"):
        raise check.fail("finals.format", f"{form!r} is not one of round-robin, swiss, knockout")
    return form, _even(check, finals.get("games_per_pairing", 4), "finals.games_per_pairing")


def _even(check: Checker, value: Any, key: str) -> int:
    games = check.integer(value, key, 2, 10_000)
    if games % 2:
        raise check.fail(key, f"must be even (both seats equally often), got {games}")
    return games


def _ladder(check: Checker, value: Any) -> LadderPolicy:
    table = check.table(value, "ladder")
    check.keys(table, LADDER_KEYS, "ladder")
    rate = table.get("max_error_rate", LadderPolicy.max_error_rate)
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 < rate <= 1:
        raise check.fail("ladder.max_error_rate", f"must be a number in (0, 1], got {rate!r}")
    factor = table.get("lease_factor", LadderPolicy.lease_factor)
    if isinstance(factor, bool) or not isinstance(factor, (int, float)) or factor < 1:
        raise check.fail("ladder.lease_factor", f"must be a number >= 1, got {factor!r}")
    ints = {key: check.integer(table[key], f"ladder.{key}", 1 if key != "placement_games" else 0, 100_000)
            for key in LADDER_KEYS if key in table and key not in ("max_error_rate", "lease_factor")}
    if "validation_games" in ints and ints["validation_games"] % 2:
        raise check.fail("ladder.validation_games", "must be even (both seats)")
    return LadderPolicy(**ints, max_error_rate=float(rate), lease_factor=float(factor))


def _remote(check: Checker, value: Any) -> RemoteEntrants:
    table = check.table(value, "remote")
    check.keys(table, REMOTE_KEYS, "remote")
    listen = check.string(table.get("listen", RemoteEntrants.listen), "remote.listen")
    if not listen.startswith("tcp://") or ":" not in listen[len("tcp://"):]:
        raise check.fail("remote.listen", f"must be tcp://ADDR:PORT, got {listen!r}")
    return RemoteEntrants(
        allowed=check.boolean(table.get("allowed", False), "remote.allowed"), listen=listen,
        finals=check.boolean(table.get("finals", False), "remote.finals"),
        network_grace_ms=check.integer(table.get("network_grace_ms", DEFAULT_GRACE_MS), "remote.network_grace_ms",
                                       0, 600_000))


def _uploads(check: Checker, value: Any) -> UploadLimits:
    table = check.table(value, "uploads")
    check.keys(table, UPLOAD_KEYS, "uploads")
    return UploadLimits(**{key: check.integer(table[key], f"uploads.{key}", 1) for key in UPLOAD_KEYS
                           if key in table})


def origin_of(text: str) -> str | None:
    """The origin `scheme://host[:port]` of a URL or Origin value, lower-case, without a default port (None: none)."""
    try:
        parts = urlsplit(text.strip())
        port = parts.port
    except ValueError:
        return None
    host = parts.hostname
    if parts.scheme not in DEFAULT_PORTS or not host or parts.username is not None or parts.password is not None:
        return None
    if ":" in host:
        host = f"[{host}]"  # IPv6
    return f"{parts.scheme}://{host}" + (f":{port}" if port is not None and port != DEFAULT_PORTS[parts.scheme] else "")
