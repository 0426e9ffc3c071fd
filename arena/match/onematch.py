"""One match with fresh bot processes: setup completion, launch, referee, cleanup."""

from __future__ import annotations

import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.clock import ClockSettings
from arena.games import Game, State
from arena.launch.pascal.pascal import compile_module
from arena.launch.processes.process import BotProcess, LaunchError, Limits, MachineError
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import BotKind, BotSpec, Wire, served_argv
from arena.logs.matchlog import LogWriter, NullLog
from arena.match.hub import Hub, ZmqLink
from arena.match.link import Link
from arena.match.player import Player
from arena.match.referee import Referee
from arena.match.remote import RemoteError, RemoteSettings
from arena.match.result import MatchResult
from arena.match.stdio import PipeLink
from arena.match.trace import Tracer
from arena.outcomes import FAILURES, REPLACE_REASONS
from protocol.messages import bye_message

if TYPE_CHECKING:
    from arena.match.listener import Listener

log = logging.getLogger(__name__)

BYE_GRACE_S = 1.0  # a bot that ignores `bye` this long is killed


@dataclass
class MatchPlan:
    """Everything that defines one match."""

    game: Game
    bots: list[BotSpec]
    setup: dict[str, Any]
    seed: int
    clock: ClockSettings | list[ClockSettings] = field(default_factory=ClockSettings)  # one for all, or one per seat
    match_id: str = ""
    log_path: str | os.PathLike[str] | None = None
    limits: Limits = field(default_factory=Limits)
    sandbox: Sandbox = Sandbox.AUTO
    trace_path: str | os.PathLike[str] | None = None  # --trace: every message both ways
    log_key: bytes | None = field(default=None, repr=False)  # signs the log (arena/logs/signing.py); None: unsigned
    ponder: bool = False  # bots may think on the opponent's time (else each is frozen while not on move)
    reveal_names: bool = True  # whether init tells the bots the players' names
    remote: RemoteSettings | None = None  # where remote:NAME seats connect, and which keys may


def launch_player(hub: Hub, spec: BotSpec, limits: Limits, sandbox: Sandbox = Sandbox.AUTO,
                  supervisor: tuple[str, ...] = (), cpus: tuple[int, ...] | None = None,
                  remote: Listener | None = None) -> Player:
    """Start one bot process and the link the referee talks to it through (its spec's wire).

    A bot that cannot be started at all still gets a Player (with launch_error set), so the
    referee records the failure as that seat's crash instead of raising. A machine that
    refuses the process (MachineError) is nobody's fault: that propagates. A remote bot
    (remote:NAME) has no process: its seat on the listener waits for its key to connect.
    """
    if spec.kind == BotKind.REMOTE:
        if remote is None:
            raise RemoteError(f"{spec.text}: remote seats need a listener (--listen and --allow, or [remote])")
        link = remote.link(spec.target)
        return Player(spec.name, link, None, seq=link.first_seq, spec_text=spec.text)
    if spec.kind == BotKind.PASCAL:
        try:
            binary = compile_module(Path(spec.target), sandbox=sandbox,
                                    contest=spec.options.get("rules", "contest") == "contest")
            # The SDK serves the compiled module's library; its build folder is the bot's own.
            spec = replace(spec, argv=served_argv(spec, binary[-1]), files=os.path.dirname(binary[-1]))
        except LaunchError as exc:
            return Player(spec.name, PipeLink(BotProcess(spec, "", "", limits, stdio=True, sandbox=sandbox)),
                          None, spec_text=spec.text, launch_error=str(exc))
    link: Link
    if spec.wire == Wire.PIPES:
        process = BotProcess(spec, "", "", limits, stdio=True, sandbox=sandbox, supervisor=supervisor, cpus=cpus)
        link = PipeLink(process, greets=spec.kind.greets)
    else:
        zmq_link = hub.expect()
        process = BotProcess(spec, zmq_link.endpoint, zmq_link.token, limits, sandbox=sandbox, supervisor=supervisor,
                             cpus=cpus)
        link = zmq_link
    player = Player(spec.name, link, process, spec_text=spec.text)
    try:
        process.start()
    except LaunchError as exc:
        player.process = None
        player.launch_error = str(exc)
    except MachineError:
        hub.forget(link)
        raise
    return player


def shutdown(hub: Hub, players: list[Player], grace_s: float = BYE_GRACE_S) -> None:
    """Say bye to every bot, give them grace_s to exit, then kill every process group."""
    for player in players:
        if player.process is not None:
            player.process.thaw()  # a frozen bot could read neither `end` nor `bye`
        if player.link.connected:
            player.link.send(bye_message())
    deadline = time.monotonic() + grace_s
    for player in players:
        if player.process is not None:
            player.process.wait_exit(max(0.0, deadline - time.monotonic()))
    for player in players:
        if player.process is not None:
            # Even a bot that exited may have left children in its group.
            player.process.kill()
        release_link(hub, player.link)


def release_link(hub: Hub, link: Link) -> None:
    """Close a seat's link: the hub's ZeroMQ seats through the hub, any other link itself.

    A remote seat goes back to its listener: its bot's connection stays for the key's next seat.
    """
    if isinstance(link, ZmqLink):
        hub.forget(link)
    else:
        link.close()


def referee_match(referee: Referee) -> tuple[MatchResult, list[bool]]:
    """Run the referee; kill a hung or hostile offender at once. Returns the result and which bots may play on.

    MachineError instead of a result when the machine may have caused a bot's failure: a
    process limit above the bot's own (a container's pids limit, a systemd slice's
    TasksMax) refused forks of the failed bot during the match, its launch included.
    """
    result = referee.run()
    refused = [player.process.machine_refusals() if player.process is not None else 0 for player in referee.players]
    if result.offender is not None and result.reason in FAILURES and refused[result.offender]:
        raise MachineError(f"a process limit above the arena's (a container's pids limit, a systemd slice's "
                           f"TasksMax) refused {refused[result.offender]} fork(s) of "
                           f"{referee.players[result.offender].name}, which then failed ({result.reason})")
    failed = referee.players[result.offender].process if result.offender is not None else None
    if failed is not None and result.reason in FAILURES and failed.never_ran():
        raise MachineError(f"the launch of {referee.players[result.offender].name} failed before the bot ran "
                           f"({result.detail})")
    keep = [True] * len(referee.players)
    if result.offender is not None and result.reason in REPLACE_REASONS:
        keep[result.offender] = False
        failed = referee.players[result.offender].process
        if failed is not None:
            failed.kill()  # a hung or hostile bot gets no grace
    return result, keep


def log_outputs(writer: LogWriter | NullLog, players: list[Player], marks: list[int]) -> None:
    """Log what each seat's process wrote after its mark (a launch failure's text for a seat that never ran)."""
    for seat, player in enumerate(players):
        text = player.output_since(marks[seat])
        if text:
            writer.write({"kind": "output", "seat": seat, "text": text})


def open_listener(bots: list[BotSpec], settings: RemoteSettings | None) -> Listener | None:
    """The listener of a match's remote seats (None without any); RemoteError when it cannot be had."""
    remote = [spec for spec in bots if spec.kind == BotKind.REMOTE]
    if not remote:
        return None
    if settings is None:
        raise RemoteError(f"{remote[0].text}: remote seats need a listener (--listen and --allow, or [remote])")
    names = [spec.target for spec in remote]
    if len(set(names)) < len(names):
        raise RemoteError("one remote bot holds one seat of a match: remote:NAME is given twice")
    from arena.match.listener import Listener  # libzmq, for CURVE over TCP: loaded only when needed

    return Listener(settings)


def play_match(plan: MatchPlan, on_ply: Callable[[State, int, Any], None] | None = None) -> MatchResult:
    """Launch the bots, referee the match, stop every process; the result is always returned.

    Only the machine (MachineError: it refused to start a bot, or refused a failed bot's forks
    from above) ends it without a result; then no log is left behind either.
    """
    hub = Hub()  # makes a socket only for a seat that speaks ZeroMQ
    players: list[Player] = []
    listener = open_listener(plan.bots, plan.remote)
    try:
        for spec in plan.bots:
            players.append(launch_player(hub, spec, plan.limits, plan.sandbox, remote=listener))
    except (MachineError, RemoteError):
        shutdown(hub, players, 0.0)
        hub.close()
        if listener is not None:
            listener.close()
        raise
    writer: LogWriter | NullLog = LogWriter(plan.log_path, plan.log_key) if plan.log_path else NullLog()
    tracer: Tracer | None = None
    refused = False
    try:
        tracer = Tracer(plan.trace_path) if plan.trace_path else None
        referee = Referee(players, plan.game, plan.setup, plan.seed, plan.clock,
                          plan.match_id or f"{plan.game.name}-{plan.seed}", writer, on_ply=on_ply, tracer=tracer,
                          ponder=plan.ponder, reveal_names=plan.reveal_names)
        result, _ = referee_match(referee)
    except MachineError:
        refused = True
        raise
    finally:
        shutdown(hub, players, 0.0 if refused else BYE_GRACE_S)
        log_outputs(writer, players, [0] * len(players))  # after the bye: a bot's last words are kept
        writer.close()
        hub.close()
        if listener is not None:
            listener.close()  # after the bye: it leaves before the sockets close
        if tracer is not None:
            tracer.close()
        if refused and plan.log_path:  # no result, so no log of one either
            Path(plan.log_path).unlink(missing_ok=True)
    return result


def default_log_path(game: str, seed: int, directory: str | os.PathLike[str] = "logs") -> Path:
    """Where `arena match` writes its log when --log is not given: a new name every time."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    while True:
        path = folder / f"{game}-{stamp}-seed{seed}-{secrets.token_hex(3)}.msgpack"
        try:  # claim the name now: two matches started in the same second never share a log
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            return path
        except FileExistsError:
            continue
