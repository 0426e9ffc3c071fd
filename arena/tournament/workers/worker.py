"""The match runner of a worker: a pool of bot processes kept alive between matches.

One MatchRunner lives in each local worker process (and in each Dask worker, per task
thread). It referees one match at a time with arena.match.referee and hands back a plain
MatchRecord. Healthy bots stay connected for the next match (the protocol allows many
matches per process); a bot that failed, died or broke the protocol is killed and
replaced by a fresh process when it is next needed.

Every bot process runs under arena/launch/processes/launcher.py, so it dies with this worker
whatever kills the worker.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import sys
import tempfile
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.clock import ClockSettings
from arena.games import get_game
from arena.launch.processes import launcher
from arena.launch.processes.process import Limits, MachineError
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import BotKind, BotSpec
from arena.logs.matchlog import LogWriter, NullLog
from arena.match.hub import Hub
from arena.match.matchid import PROCESS_KEY
from arena.match.onematch import launch_player, log_outputs, open_listener, referee_match, release_link, shutdown
from arena.match.player import Player
from arena.match.referee import Referee
from arena.match.remote import RemoteError, RemoteSettings
from arena.match.result import MatchResult
from arena.match.trace import Tracer
from arena.tournament.plan.config import BotEntry
from arena.tournament.plan.schedule import MatchTask

if TYPE_CHECKING:
    from arena.match.listener import Listener

log = logging.getLogger(__name__)

LAUNCHER = Path(launcher.__file__).resolve()
LOG_SUFFIX = ".msgpack"


@dataclass(frozen=True)
class RunnerPlan:
    """What a worker needs to play any match of one tournament (picklable plain values)."""

    key: str  # the config fingerprint: Dask workers cache runners per plan
    game: str
    bots: tuple[BotEntry, ...]
    setups: tuple[dict[str, Any], ...]
    clock: ClockSettings
    limits: Limits = field(default_factory=Limits)
    sandbox: Sandbox = Sandbox.AUTO
    persistent: bool = True
    cpus: tuple[int, ...] | None = None  # pin bot processes to these cores
    log_dir: str | None = None  # absolute; None writes no logs
    ship_logs: bool = False  # return log bytes with the record (remote workers) instead of a file
    # Idle bot processes kept per runner (the least recently used go first). None: as many as
    # the memory allows: the pool stops growing when the machine runs short (memory_is_short).
    max_idle: int | None = None
    trace_path: str | None = None  # --trace: every message of every match, appended (absolute)
    log_key: bytes | None = field(default=None, repr=False)  # the results directory's key: signs every log
    ponder: bool = False  # bots may think on the opponent's time (else each is frozen while not on move)
    reveal_names: bool = True  # whether init tells the bots the players' names
    remote: RemoteSettings | None = None  # the listener of remote bots (its tournaments have one worker)


@dataclass
class MatchRecord:
    """The result of one scheduled match, as stored (one row per finished match)."""

    ord: int
    match: str
    round: int
    setup: int
    seed: int
    bots: list[int]
    names: list[str]
    scores: list[float]
    ranks: list[int]
    reason: str
    offender: int | None
    plies: int
    played: bool = True
    detail: str = ""
    duration_s: float = 0.0
    time_used_ms: list[float] = field(default_factory=list)
    log: str = ""  # relative to the output directory
    worker: str = ""
    finished: str = ""
    log_data: bytes | None = None  # the log itself when ship_logs (never stored in the table)

    @classmethod
    def from_result(cls, task: MatchTask, result: MatchResult, log: str, worker: str) -> MatchRecord:
        """The record of a match the referee played."""
        return cls(
            ord=task.ord, match=task.match, round=task.round, setup=task.setup, seed=task.seed,
            bots=list(task.bots), names=list(result.names), scores=list(result.scores),
            ranks=list(result.ranks), reason=result.reason, offender=result.offender,
            plies=result.plies, played=True, detail=result.detail,
            duration_s=round(result.duration_s, 4), time_used_ms=list(result.time_used_ms),
            log=log, worker=worker,
        )


def worker_name() -> str:
    """host:pid of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


def launch_spec(spec: BotSpec) -> BotSpec:
    """The spec as this host runs it (its own interpreter for Python bots, not the coordinator's)."""
    if spec.kind in (BotKind.REGISTERED, BotKind.PYTHON):
        return dataclasses.replace(spec, argv=(sys.executable, *spec.argv[1:]))
    return spec


def supervisor_argv(cpus: tuple[int, ...] | None) -> tuple[str, ...]:
    """The launcher that makes a bot die with this process (optionally pinned), outside any sandbox."""
    pin = ",".join(str(c) for c in cpus) if cpus else "-"
    return (sys.executable, "-I", "-S", str(LAUNCHER), str(os.getpid()), pin)


MEMORY_RESERVE = 0.2  # of the machine's memory: an automatic pool stops growing when less is available
MIN_RESERVE_MIB = 1024


def memory_mib() -> tuple[int, int]:
    """(MemTotal, MemAvailable) of this machine in MiB; (0, 0) where /proc/meminfo is missing."""
    found: dict[str, int] = {}
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                name, _, rest = line.partition(":")
                if name in ("MemTotal", "MemAvailable"):
                    found[name] = int(rest.split()[0]) // 1024
    except (OSError, ValueError):
        pass
    return found.get("MemTotal", 0), found.get("MemAvailable", 0)


def memory_is_short() -> bool:
    """True when less than the reserve of the machine's memory is available."""
    total, available = memory_mib()
    return total > 0 and available < max(MIN_RESERVE_MIB, total * MEMORY_RESERVE)


class BotPool:
    """Bot processes by bot index: idle healthy ones are reused, the rest started fresh."""

    def __init__(self, plan: RunnerPlan, hub: Hub) -> None:
        self.plan = plan
        self.hub = hub
        self.specs = [launch_spec(entry.spec) for entry in plan.bots]
        self.supervisor = supervisor_argv(plan.cpus)
        self.max_idle = plan.max_idle
        # Idle players in release order (the oldest is evicted first), and the same players by
        # bot, so acquiring one costs the same with 4 bots or 4,000.
        self.idle: OrderedDict[int, tuple[int, Player]] = OrderedDict()  # id(player) -> (bot, player)
        self._idle_of: dict[int, dict[int, Player]] = {}  # bot -> {id(player): player}
        self.started = 0  # processes launched so far (for tests and benchmarks)
        self.listener: Listener | None = None  # bound when a remote bot is first needed
        self._checked = 0  # the idle count at the last memory check

    def acquire(self, bot: int) -> Player:
        """A healthy idle player of this bot, or a freshly launched one."""
        mine = self._idle_of.get(bot)
        while mine:
            key, player = mine.popitem()
            del self.idle[key]
            if player.healthy():
                return player
            self._discard(player)
        return self._launch(bot)

    def release(self, returned: list[tuple[int, Player, bool]]) -> None:
        """Take players back after a match as (bot, player, keep); the rest are stopped."""
        ending: list[Player] = []
        for bot, player, keep in returned:
            if not (keep and player.healthy()):
                self._discard(player)
            elif self.plan.persistent:
                if player.process is not None:
                    player.process.freeze()  # an idle bot takes no CPU from the matches being played
                self.idle[id(player)] = (bot, player)
                self._idle_of.setdefault(bot, {})[id(player)] = player
            else:
                ending.append(player)
        if self.max_idle is None and len(self.idle) > self._checked:
            # Growing past its largest size so far (after a launch): is there memory for more?
            self._checked = len(self.idle)
            if memory_is_short():
                self.max_idle = max(1, len(self.idle) - 1)
                log.warning("memory is short: this worker keeps at most %d idle bots", self.max_idle)
        while self.max_idle is not None and len(self.idle) > self.max_idle:
            key, (owner, oldest) = self.idle.popitem(last=False)
            del self._idle_of[owner][key]
            if oldest.process is None:  # a remote bot: its seat goes, its connection (no bye) stays
                self._discard(oldest)
            else:
                ending.append(oldest)
        self._end(ending)

    def add_bots(self, entries: tuple[BotEntry, ...]) -> None:
        """Know more bots (a ladder's new versions), numbered after those known."""
        self.plan = dataclasses.replace(self.plan, bots=self.plan.bots + entries)
        self.specs += [launch_spec(entry.spec) for entry in entries]

    def close(self) -> None:
        """Say bye to every idle bot and stop it."""
        players = [player for _, player in self.idle.values()]
        self.idle.clear()
        self._idle_of.clear()
        if self.plan.remote is not None and self.plan.remote.presence:
            # A contest server's remote bots get no bye: its ladder goes on after the finals or a restart,
            # and they connect again to whichever listener comes next.
            for player in [p for p in players if p.process is None]:
                self._discard(player)
            players = [p for p in players if p.process is not None]
        self._end(players)

    def _launch(self, bot: int) -> Player:
        limits = self.plan.bots[bot].limits or self.plan.limits
        if self.specs[bot].kind == BotKind.REMOTE and self.listener is None:
            self.listener = open_listener([self.specs[bot]], self.plan.remote)
        player = launch_player(self.hub, self.specs[bot], limits, self.plan.sandbox, self.supervisor,
                               self.plan.cpus, remote=self.listener)
        player.spec_text = self.plan.bots[bot].spec.text  # the log names the bot, not the launcher
        self.started += 1
        return player

    def _end(self, players: list[Player]) -> None:
        """Say bye and stop (the polite way, for healthy bots)."""
        if players:
            shutdown(self.hub, players)

    def _discard(self, player: Player) -> None:
        """Kill at once (the way for failed, hung or hostile bots)."""
        # pidfd < 0: already killed and reaped; a second killpg could hit a reused pid.
        if player.process is not None and player.process.pidfd >= 0:
            player.process.kill()
        release_link(self.hub, player.link)  # a remote bot gets no bye: it stays connected for its next match


class MatchRunner:
    """Plays scheduled matches of one tournament with a pool of bots."""

    def __init__(self, plan: RunnerPlan) -> None:
        self.plan = plan
        self.game = get_game(plan.game)
        self.hub = Hub()
        self.pool = BotPool(plan, self.hub)
        if plan.remote is not None and plan.remote.presence:
            # A contest server's worker listens from the start: its remote bots connect before their
            # first game, and the presence file tells the ladder who is there.
            from arena.match.listener import Listener  # libzmq: loaded only for remote seats

            try:
                self.pool.listener = Listener(plan.remote)
            except RemoteError as exc:  # nobody can connect: its remote bots are never scheduled, nobody is charged
                log.error("remote bots cannot connect: %s", exc)
        self.name = worker_name()
        self.last_used = time.monotonic()
        self.tracer = Tracer(plan.trace_path) if plan.trace_path else None

    def run(self, task: MatchTask) -> MatchRecord:
        """Play one match; bot failures are results, never exceptions."""
        self.last_used = time.monotonic()
        players: list[Player] = []
        try:
            for bot in task.bots:
                players.append(self.pool.acquire(bot))
        except BaseException:  # the machine refused a process: nobody's result, nobody's strike
            self.pool.release([(task.bots[seat], player, True) for seat, player in enumerate(players)])
            raise
        marks = [p.output_mark() for p in players]
        relative = f"logs/{task.match}{LOG_SUFFIX}" if self.plan.log_dir else ""
        path, writer = self._open_log(task)
        keep = [False] * len(players)  # an exception mid-match leaves every bot suspect
        try:
            # Anonymous games key the ids bots are sent with the results directory's secret (a resumed
            # run sends the same); games that reveal the names, with the match seed (None): the same anywhere.
            id_key = None if self.plan.reveal_names else self.plan.log_key or PROCESS_KEY
            referee = Referee(players, self.game, self.plan.setups[task.setup], task.seed,
                              self.plan.clock, task.match, writer, tracer=self.tracer, ponder=self.plan.ponder,
                              id_key=id_key, reveal_names=self.plan.reveal_names)
            result, keep = referee_match(referee)
            log_outputs(writer, players, marks)
        except MachineError:  # no result: no log of it either (a retry or --resume writes one)
            writer.close()
            if path is not None:
                path.unlink(missing_ok=True)
            raise
        finally:
            writer.close()
            self.pool.release([(task.bots[seat], player, keep[seat]) for seat, player in enumerate(players)])
            self.last_used = time.monotonic()
        record = MatchRecord.from_result(task, result, relative, self.name)
        if self.plan.ship_logs and path is not None:
            record.log_data = path.read_bytes()
            path.unlink()
        return record

    def add_bots(self, entries: tuple[BotEntry, ...]) -> None:
        """Know more bots, numbered after those known (a ladder grows while it plays)."""
        self.pool.add_bots(entries)
        self.plan = self.pool.plan

    def _open_log(self, task: MatchTask) -> tuple[Path | None, LogWriter | NullLog]:
        if not self.plan.log_dir:
            return None, NullLog()
        if self.plan.ship_logs:
            # Remote workers may not see the output directory: the coordinator writes the file.
            path = Path(tempfile.gettempdir()) / f"arena-log-{os.getpid()}-{task.match}{LOG_SUFFIX}"
        else:
            path = Path(self.plan.log_dir) / f"{task.match}{LOG_SUFFIX}"
        return path, LogWriter(path, self.plan.log_key)

    def close(self) -> None:
        """Stop every bot and close the sockets."""
        self.pool.close()
        self.hub.close()
        if self.pool.listener is not None:
            self.pool.listener.close()
        if self.tracer is not None:
            self.tracer.close()
