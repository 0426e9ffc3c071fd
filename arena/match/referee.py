"""The referee: one match between connected bots, with preemptive absolute deadlines.

Every wait has a deadline; every bot failure becomes the match's result (a reason and an
offender), never an exception. The referee does not start or stop processes: the caller
(a single match, or a tournament pool) hands it connected players and acts on the result.

Strict alternation: a bot gets the CPU only while the referee waits for its answer. It is
thawed just before its request is sent and frozen (with every process it started) as soon
as its answer is in, so nothing it left running can take the CPU from the seat on move.
`ponder=True` lets bots think on the opponent's time instead.
"""

from __future__ import annotations

import logging
import math
import select
import time
from typing import Any

from arena.clock import ClockMode, ClockSettings, SeatClock
from arena.games import Game, GameError, State, ranks_with_last
from arena.games.base import turn_order_rng
from arena.logs.matchlog import LOG_FORMAT, MAGIC, LogWriter, NullLog, position_fingerprint
from arena.match.link import LinkState
from arena.match.matchid import bot_match_id, seed_key
from arena.match.player import Player
from arena.match.result import Failure, MatchResult
from arena.match.trace import Tracer, TraceTap
from arena.match.waits import Requests, Waiting, hello_hint, network_record, silence_hint, start_wait, time_detail
from protocol.messages import Reason, end_message, init_message, turn_message

log = logging.getLogger(__name__)

MESSAGE_QUOTA = 200  # unsolicited messages (stale seq, chatter) a seat may send in one match
DEATH_SETTLE_S = 0.02  # after a death is seen, replies still in flight get this long to land
DISCONNECT_SETTLE_MS = 250  # after a dropped connection, how long a dying process may take to exit


class Referee:
    """Runs one match: init, the turn loop, end; returns a MatchResult."""

    def __init__(
        self,
        players: list[Player],
        game: Game,
        setup: dict[str, Any],
        seed: int,
        clock: ClockSettings | list[ClockSettings],
        match_id: str,
        log_writer: LogWriter | NullLog | None = None,
        message_quota: int = MESSAGE_QUOTA,
        on_ply: Any = None,
        tracer: Tracer | None = None,
        ponder: bool = False,
        id_key: bytes | None = None,
        reveal_names: bool = True,
    ) -> None:
        self.players = players
        self.ponder = ponder  # bots may think on the others' time: nobody is frozen
        self.game = game
        self.setup = setup
        self.seed = seed
        # One clock for every seat, or one per seat (a person's seat may have a generous one).
        self.seat_settings = list(clock) if isinstance(clock, list) else [clock] * len(players)
        self.clocks = [SeatClock(settings) for settings in self.seat_settings]
        self.match_id = match_id
        # What bots are sent instead: opaque, the same for the same id and key (arena/match/matchid.py);
        # without a key, the match seed's.
        self.bot_match = bot_match_id(match_id, seed_key(seed) if id_key is None else id_key)
        self.reveal_names = reveal_names  # whether init carries the players' names
        self.log = log_writer or NullLog()
        self.quota = message_quota
        self.on_ply = on_ply  # called as on_ply(state, seat, move) after each move (for --show)
        self.unsolicited = [0] * len(players)
        self.time_used = [0.0] * len(players)
        self.events: list[list[list[Any]]] = [[] for _ in players]
        # One poll set over everything a wait must notice: each seat's link's descriptors
        # (level-triggered, link.py), its output pipe and its pidfd (readable the moment
        # the process dies).
        self._watch: dict[int, tuple[str, int]] = {}
        self._dead: set[int] = set()
        for seat, player in enumerate(players):
            player.link.tap = TraceTap(tracer, match_id, seat, player.link.via) if tracer is not None else None
            for fd in player.link.fds():
                self._watch[fd] = ("link", seat)
            process = player.process
            if process is not None and process.output_fd >= 0:
                self._watch[process.output_fd] = ("output", seat)
                self._watch[process.pidfd] = ("death", seat)
        # While one seat thinks, only its own items are polled (fewer to poll: a cheaper wait);
        # the others' deaths, messages and floods are taken in at their next request.
        self.poller = select.poll()
        self._seat_pollers = [select.poll() for _ in players]
        for fd, (_, seat) in self._watch.items():
            self.poller.register(fd, select.POLLIN)
            self._seat_pollers[seat].register(fd, select.POLLIN)

    @property
    def processes(self) -> list[Any]:
        """Each seat's bot process (BotProcess), None for a seat without one (a remote bot, a person)."""
        return [player.process for player in self.players]

    # --- the match ---------------------------------------------------------------------

    def run(self) -> MatchResult:
        """Play the match to its end and return the result; never raises because of a bot."""
        started = time.monotonic()
        n = len(self.players)
        state, opening = self.game.start(self.setup, n, self.seed)
        self._write_header()
        self._deliver(state, opening)
        self._log_events(opening, 0)
        failure = self._await_hellos()
        if failure is None:
            failure = self._init_all()
        ply = 0
        # A move's records are written once the next request is out, while that bot thinks (reply ->
        # rules -> next request is the critical path; a kill -9 loses at most the last ply). Not so in a
        # game of hidden information, whose log says in order what each request sent.
        unwritten: tuple[int, int, Any, float, list[list[Any]], float] | None = None
        while failure is None and not state.is_over():
            movers = state.movers()
            if len(movers) != 1:
                if not movers:  # pragma: no cover - engines keep movers and is_over consistent
                    break
                failure = self._simultaneous_turn(state, movers, ply + 1)
                ply += failure is None
                continue
            seat = movers[0]
            failure = self._unprompted(seat)
            if failure is not None:
                break
            waiting = self._request_move(seat, ply + 1)
            if unwritten is not None:
                self._record_move(state, *unwritten)
                unwritten = None
            failure, move, used_ms = self._await_move(seat, waiting)
            if failure is not None:
                if failure.reason == Reason.RESIGNED:
                    self.log.write({"kind": "resign", "ply": ply + 1, "seat": seat,
                                    "time_ms": round(failure.time_ms, 3)})
                break
            try:
                caused = state.apply(move)
            except GameError as exc:
                failure = Failure(seat, Reason.ILLEGAL, str(exc))
                self.log.write({"kind": "illegal", "ply": ply + 1, "seat": seat, "move": move,
                                "detail": str(exc)})
                break
            ply += 1
            self._deliver(state, [[seat, move]], skip=seat)
            self._deliver(state, caused)
            unwritten = (ply, seat, move, used_ms, caused, waiting.grace_ms)
            if self.on_ply is not None or self.game.hidden_information:
                self._record_move(state, *unwritten)
                unwritten = None
        if unwritten is not None:
            self._record_move(state, *unwritten)
        return self._finish(state, failure, ply, time.monotonic() - started)

    def _finish(self, state: State, failure: Failure | None, plies: int, duration: float) -> MatchResult:
        """The match's result: sent to the bots (`end`) and written last in the log."""
        result = self._result(state, failure, plies, duration)
        self._send_end(result, failure)
        summary = {k: v for k, v in result.summary().items() if k != "log"}  # a log need not name itself
        self.log.write({"kind": "result", **summary, "detail": result.detail,
                        "time_used_ms": result.time_used_ms, "duration_s": round(result.duration_s, 4)})
        return result

    def _simultaneous_turn(self, state: State, movers: list[int], ply: int) -> Failure | None:
        """Ask every mover for its move, then play them at once; a failure of one ends the match.

        No mover is sent another's move before every move is in. Unless bots ponder, the movers think
        one after another, each frozen while another thinks, in an order drawn afresh every turn from the
        match's seed (all a wait tells is the others' thinking time); each is charged its own thinking.
        """
        order = list(movers)
        turn_order_rng(self.seed, ply).shuffle(order)
        answers: dict[int, tuple[Any, float, float]] = {}  # seat -> (move, time charged, network time not charged)
        before = [round(c.left_ms, 3) for c in self.clocks]
        failure = next((found for seat in order if (found := self._unprompted(seat)) is not None), None)
        if failure is not None:
            return self._log_turn(state, ply, answers, failure, before)
        if self.ponder:
            waiting = {seat: self._request_move(seat, ply) for seat in order}
            replies, failure = self._collect(dict(waiting))
            answers.update({seat: (reply["move"], used, waiting[seat].grace_ms)
                            for seat, (reply, used) in replies.items()})
            failure = failure or next((f for seat in order if seat in answers
                                       and (f := self._check(state, seat, answers[seat][0], ply))), None)
            return self._log_turn(state, ply, answers, failure, before)
        for seat in order:
            waiting = self._request_move(seat, ply)
            failure, move, used_ms = self._await_move(seat, waiting)
            if failure is None:
                answers[seat] = (move, used_ms, waiting.grace_ms)
                failure = self._check(state, seat, move, ply)
            if failure is not None:
                return self._log_turn(state, ply, answers, failure, before)
        return self._log_turn(state, ply, answers, None, before)

    def _check(self, state: State, seat: int, move: Any, ply: int) -> Failure | None:
        """A mover's move, checked alone: the seat's illegal move, or None."""
        try:
            state.check_move(seat, move)
        except GameError as exc:
            self.log.write({"kind": "illegal", "ply": ply, "seat": seat, "move": move, "detail": str(exc)})
            return Failure(seat, Reason.ILLEGAL, str(exc))
        return None

    def _log_turn(self, state: State, ply: int, answers: dict[int, tuple[Any, float, float]],
                  failure: Failure | None, before: list[float]) -> Failure | None:
        """Log a simultaneous turn's moves in seat order; unless one failed, play them and pass them on."""
        if failure is not None:
            answers.pop(failure.seat, None)
            if failure.reason == Reason.RESIGNED:
                self.log.write({"kind": "resign", "ply": ply, "seat": failure.seat,
                                "time_ms": round(failure.time_ms, 3)})
        caused: list[list[Any]] = []
        if failure is None:
            try:
                caused = state.apply_turn({seat: answer[0] for seat, answer in answers.items()})
            except GameError as exc:  # moves that passed check_move but not together: the rules' say, the first mover's
                first = min(answers)
                return Failure(first, Reason.ILLEGAL, str(exc))
        seats = sorted(answers)
        clocks = list(before)
        for i, seat in enumerate(seats):
            move, used, network_ms = answers[seat]
            clocks[seat] = round(self.clocks[seat].left_ms, 3)  # each record: the clocks after the charges so far
            record = {"kind": "move", "ply": ply, "seat": seat, "move": move, "time_ms": round(used, 3),
                      "clocks": list(clocks), **self.clocks[seat].margin_record(), **network_record(network_ms)}
            if self.log.path is not None:  # the position the whole turn reached, on its last record
                record["pos"] = position_fingerprint(state) if failure is None and i == len(seats) - 1 else None
            self.log.write(record)
        if failure is not None:
            return failure
        self._log_events(caused, ply)
        for seat in seats:
            self._deliver(state, [[seat, answers[seat][0]]], skip=seat)
        self._deliver(state, caused)
        if self.on_ply is not None:
            for seat in seats:
                self.on_ply(state, seat, answers[seat][0])
        return None
    def _write_header(self) -> None:
        # The log's clock is seat 0's; every seat's is written too when they differ (an odds match).
        first = self.seat_settings[0]
        self.log.write({
            "kind": "header", "magic": MAGIC, "format": LOG_FORMAT, "match": self.match_id,
            "bot_match": self.bot_match, "reveal_names": self.reveal_names,
            "game": self.game.name, "game_version": self.game.version, "setup": self.setup,
            "seed": self.seed, "players": len(self.players),
            "seats": [{"name": p.name, "bot": p.spec_text} for p in self.players],
            "clock": first.to_data(),
            **({"seat_clocks": [c.to_data() for c in self.seat_settings]}
               if any(c != first for c in self.seat_settings) else {}),
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        })

    def _deliver(self, state: State, events: list[list[Any]], skip: int | None = None) -> None:
        """Queue events for every seat's next request (but skip's): each seat's own view of them."""
        hidden = self.game.hidden_information
        for seat, queue in enumerate(self.events):
            if seat == skip:
                continue
            for event in events:
                seen = state.observe(event, seat) if hidden else event
                if seen is not None:
                    queue.append(seen)

    def _log_events(self, events: list[list[Any]], ply: int) -> None:
        for event in events:
            self.log.write({"kind": "event", "ply": ply, "event": event})

    def _record_move(self, state: State, ply: int, seat: int, move: Any, used_ms: float,
                     caused: list[list[Any]], network_ms: float) -> None:
        """Log a move (with the clocks after it and the position it made), its events, and show it."""
        record = {
            "kind": "move", "ply": ply, "seat": seat, "move": move,
            "time_ms": round(used_ms, 3),
            "clocks": [round(c.left_ms, 3) for c in self.clocks],
            **self.clocks[seat].margin_record(), **network_record(network_ms),
        }
        if self.log.path is not None:
            record["pos"] = position_fingerprint(state)
        self.log.write(record)
        self._log_events(caused, ply)
        if self.on_ply is not None:
            self.on_ply(state, seat, move)

    def _sent(self, seat: int, ply: int, **what: Any) -> None:
        """Log what a request showed a seat of a game of hidden information (arena verify checks it)."""
        if self.game.hidden_information:
            self.log.write({"kind": "sent", "ply": ply, "seat": seat, **what})

    def _await_hellos(self) -> Failure | None:
        """Wait (uncharged) until every seat's process said hello, within the start-up deadline."""
        startup_ms = max(c.startup_ms for c in self.seat_settings)
        deadline = time.monotonic() + startup_ms / 1000.0
        for player in self.players:
            player.link.pump()
        greeting: set[int] = set()
        while True:
            pending = [seat for seat, p in enumerate(self.players) if not p.link.connected]
            for seat in greeting.difference(pending):  # ready to play: no CPU until its init
                self._freeze(seat)
            greeting.update(pending)
            if not pending:
                return None
            failure = self._failed_start(pending)
            if failure is not None:
                return failure
            now = time.monotonic()
            if now >= deadline:
                return self._no_hello(pending, startup_ms)
            self._poll(max(1, math.ceil((deadline - now) * 1000)))

    def _failed_start(self, pending: list[int]) -> Failure | None:
        """The first seat without a hello whose bot could not start or died at start-up: its crash."""
        for seat in pending:
            player = self.players[seat]
            if player.launch_error:
                return Failure(seat, Reason.CRASH, player.launch_error)
            if player.process is not None and not player.process.alive:
                player.process.drain_output()
                return Failure(seat, Reason.CRASH, f"bot process {player.process.describe_exit()} at start-up"
                                                   f"{hello_hint(player.link, player.own_program)}")
        return None

    def _no_hello(self, pending: list[int], startup_ms: int) -> Failure:
        """The start-up deadline passed with seats still without a hello: whose failure, and why."""
        away = [seat for seat in pending if self.players[seat].link.state is LinkState.AWAY]
        if away:  # a remote seat whose bot never connected (or was refused): its failure alone
            return Failure(away[0], Reason.DISCONNECT, f"no connection within {startup_ms} ms (start-up deadline)")
        first = self.players[pending[0]]
        return Failure(pending[0], Reason.PROTOCOL, f"no valid hello within {startup_ms} ms (start-up deadline)"
                                                    f"{hello_hint(first.link, first.own_program)}")

    def _init_all(self) -> Failure | None:
        """Send init to every seat at once and wait for every ready."""
        waiting: dict[int, Waiting] = {}
        n = len(self.players)
        for seat in range(n):
            failure = self._unprompted(seat, pump=True)
            if failure is not None:
                return failure
        names = [p.name for p in self.players] if self.reveal_names else None
        hidden = self.game.hidden_information
        for seat, player in enumerate(self.players):
            self._thaw(seat)
            seq = player.next_seq()
            setup = self.game.observe_setup(self.setup, seat) if hidden else self.setup
            self._sent(seat, 0, setup=setup)
            message = init_message(seq, self.bot_match, self.game.name, seat, n, setup,
                                   self.clocks[seat].allowance_ms(), names)
            waiting[seat] = self._start_wait(seat, "ready", seq)
            player.link.send(message)
        network = {seat: w.grace_ms for seat, w in waiting.items()}
        replies, failure = self._collect(waiting)
        for seat, (_, used_ms) in sorted(replies.items()):
            self.log.write({"kind": "ready", "seat": seat, "time_ms": round(used_ms, 3),
                            "clock": round(self.clocks[seat].left_ms, 3), **self.clocks[seat].margin_record(),
                            **network_record(network[seat])})
        return failure

    def _request_move(self, seat: int, ply: int) -> Waiting:
        """Send seat its turn for ply (the events it has not seen) and start its clock."""
        player = self.players[seat]
        self._thaw(seat)
        seq = player.next_seq()
        self._sent(seat, ply, events=self.events[seat])
        message = turn_message(seq, self.bot_match, self.events[seat], self.clocks[seat].allowance_ms())
        waiting = self._start_wait(seat, "move", seq)
        player.link.send(message)
        self.events[seat] = []
        return waiting

    def _await_move(self, seat: int, waiting: Waiting) -> tuple[Failure | None, Any, float]:
        """Wait for seat's move; return (failure, move, time used)."""
        replies, failure = self._collect({seat: waiting})
        if failure is not None:
            return failure, None, 0.0
        reply, used_ms = replies[seat]
        return None, reply["move"], used_ms

    # --- strict alternation -------------------------------------------------------------

    def _freeze(self, seat: int) -> None:
        """Stop every process of seat's bot: its answer is in, the CPU belongs to the others.

        Not waited for: a running process stops at once, one waiting for a CPU as soon as it gets one.
        """
        process = self.players[seat].process
        if not self.ponder and process is not None:
            process.freeze()

    def _thaw(self, seat: int) -> None:
        """Let seat's bot run: its request is about to be sent."""
        process = self.players[seat].process
        if process is not None:
            process.thaw()

    def _unprompted(self, seat: int, pump: bool = False) -> Failure | None:
        """Just before seat's request: take in what it sent since its last one; a reply sent ahead is a violation.

        Mid-match a poll that does not wait sees it all (nothing was sent to the seat since its
        reply was pumped); before `init`, pump: whatever came with the hello is taken in.
        """
        if pump:
            self.players[seat].link.pump()
        else:
            self._poll(0, self._seat_pollers[seat])
        return self._drain_inbox(seat, Requests({}, now=time.monotonic()))

    # --- waiting ------------------------------------------------------------------------

    def _start_wait(self, seat: int, kind: str, seq: int) -> Waiting:
        """Start the clock of a request about to be sent to seat."""
        cpu = self.seat_settings[seat].mode == ClockMode.CPU
        player = self.players[seat]
        return start_wait(self.clocks[seat], kind, seq, player.process, cpu, player.link.grace_ms)

    def _charge(self, seat: int, w: Waiting, now: float, is_move: bool = False, overran: bool = False) -> float:
        """Charge what the request w has cost seat by now to its clock and its total; an overrun empties the clock."""
        used = w.used_ms(now, self.players[seat].process)
        self.time_used[seat] += used
        if overran:
            self.clocks[seat].run_out()
        else:
            self.clocks[seat].charge(used, is_move=is_move)
        return used

    def _overran(self, out: Requests, seat: int, w: Waiting, wall: bool) -> Failure:
        """Charge a seat that ran out of time (all it had) and say why it lost: on time, or its link lost."""
        self._charge(seat, w, out.now, overran=True)
        link = self.players[seat].link
        detail = time_detail(self.seat_settings[seat], w, wall) + silence_hint(link)
        if link.state is LinkState.AWAY:
            # A remote seat that lost its link and did not come back in time: its failure alone.
            return Failure(seat, Reason.DISCONNECT, "connection lost and not restored: " + detail)
        return Failure(seat, Reason.TIMEOUT, detail)

    def _collect(
        self, waiting: dict[int, Waiting]
    ) -> tuple[dict[int, tuple[dict[str, Any], float]], Failure | None]:
        """Wait until every waiting seat replied, a seat failed, or a deadline passed."""
        out = Requests(waiting)
        poller = self._seat_pollers[next(iter(waiting))] if len(waiting) == 1 else self.poller
        while True:
            out.look()
            failure = self._examine(out)
            if failure is not None or not out.waiting:
                return out.replies, failure
            late = out.overdue(self.processes)
            if late is not None:
                return out.replies, self._overran(out, *late)
            self._poll(out.wake_ms(self.processes), poller)

    def _poll(self, timeout_ms: int, poller: select.poll | None = None) -> None:
        """Sleep until a socket, a bot's output or a bot's death needs attention; take it in."""
        for fd, _ in (poller or self.poller).poll(timeout_ms):
            what, seat = self._watch[fd]
            player = self.players[seat]
            if what == "link":
                player.link.pump()
            elif what == "death":
                self._dead.add(seat)
            elif player.process is not None and not player.process.drain_output():
                # A closed pipe stays readable forever: stop watching it.
                self.poller.unregister(fd)
                self._seat_pollers[seat].unregister(fd)
                del self._watch[fd]

    def _examine(self, out: Requests) -> Failure | None:
        """Consume the waiting seats' inboxes, then look for their failures; return the first one found.

        A seat that is not waiting is examined at its next request: what it sent meanwhile
        (chatter, garbage) and its death or disconnect are found then.
        """
        waiting = out.waiting
        for seat in list(waiting):
            failure = self._drain_inbox(seat, out)
            if failure is not None:
                return failure
        for seat in waiting:  # every answer in: a death now is noticed at the next request
            if seat in self._dead:
                return self._death(seat, out)
            if self.players[seat].link.state is LinkState.GONE:
                return self._disconnect(seat, out)
        return None  # a seat AWAY may come back before its deadline

    def _disconnect(self, seat: int, out: Requests) -> Failure | None:
        """The link ended: an exiting process is a crash, a live one broke the protocol."""
        process = self.players[seat].process
        if process is not None:
            poller = select.poll()
            poller.register(process.pidfd, select.POLLIN)
            poller.poll(DISCONNECT_SETTLE_MS)  # an exiting bot closes its socket just before it dies
            if not process.alive:
                return self._death(seat, out)
        return Failure(seat, Reason.PROTOCOL, "connection closed while the bot still runs")

    def _drain_inbox(self, seat: int, out: Requests) -> Failure | None:
        """Take a seat's messages up to the awaited reply, which is kept; those before it are dropped and counted.

        A message whose seq is that of a request not sent yet (or later) is a violation: a bot
        answers only what it was asked (SPEC.md section 4).
        """
        player = self.players[seat]
        link = player.link
        while (message := link.take()) is not None:
            w = out.waiting.get(seat)
            seq = message.get("seq")
            if w is not None and seq == w.seq:
                resign = message["type"] == "resign" and w.kind == "move"  # giving up instead of moving: it loses
                if message["type"] != w.kind and not resign:
                    return Failure(seat, Reason.PROTOCOL,
                                   f"answered seq {w.seq} with {message['type']!r}, expected {w.kind!r}")
                used = self._charge(seat, w, out.now, is_move=w.kind == "move" and not resign)
                self._freeze(seat)
                del out.waiting[seat]
                if resign:
                    return Failure(seat, Reason.RESIGNED, Reason.RESIGNED.value, used)
                out.replies[seat] = (message, used)
                return None  # what came after the reply is judged at the seat's next request
            if isinstance(seq, int) and seq > player.seq:
                return Failure(seat, Reason.PROTOCOL,
                               f"{message['type']} for seq {seq} sent before that request (the last request "
                               f"sent was seq {player.seq}): a bot answers only requests it has received")
            # A late answer to an earlier request, or chatter: dropped, never obeyed.
            self.unsolicited[seat] += 1
            if self.unsolicited[seat] > self.quota:
                return Failure(seat, Reason.PROTOCOL, f"flood: more than {self.quota} unsolicited messages")
        if link.violation:
            return Failure(seat, Reason.PROTOCOL, link.violation)
        return None

    def _death(self, seat: int, out: Requests) -> Failure | None:
        """A bot process ended: let its last replies land (charged up to out.now, when it was seen); record a crash."""
        settle = time.monotonic() + DEATH_SETTLE_S
        link = self.players[seat].link
        settle_poller = select.poll()
        for fd in link.fds():
            settle_poller.register(fd, select.POLLIN)
        link.pump()
        while time.monotonic() < settle:
            if settle_poller.poll(max(1, int((settle - time.monotonic()) * 1000))):
                link.pump()
        failure = self._drain_inbox(seat, out)
        if failure is not None or not out.waiting:
            return failure
        process = self.players[seat].process
        detail = "ended"
        if process is not None:
            process.drain_output()
            detail = process.describe_exit()
        return Failure(seat, Reason.CRASH, f"bot process {detail}")

    # --- the end ------------------------------------------------------------------------

    def _result(self, state: State, failure: Failure | None, plies: int, duration: float) -> MatchResult:
        names = [p.name for p in self.players]
        reason: str
        if failure is None:
            reason = state.end_reason()
            offender = state.resigned() if reason == Reason.RESIGNED else None
            scores = [float(s) for s in state.scores()]
            ranks = state.ranks()
            detail = ""
        else:
            reason, offender, detail = str(failure.reason), failure.seat, failure.detail
            scores = [float(s) for s in state.forfeit_scores(failure.seat)]
            ranks = ranks_with_last(scores, [failure.seat])
        return MatchResult(
            match=self.match_id, game=self.game.name, names=names, scores=scores, ranks=ranks,
            reason=str(reason), offender=offender, plies=plies, detail=detail,
            log=str(self.log.path) if self.log.path else None, duration_s=duration,
            time_used_ms=[round(t, 3) for t in self.time_used],
        )

    def _send_end(self, result: MatchResult, failure: Failure | None) -> None:
        for seat, player in enumerate(self.players):
            if failure is not None and failure.seat == seat and failure.reason not in (Reason.ILLEGAL, Reason.RESIGNED):
                continue  # a crashed, hung or hostile bot gets no more messages
            self._sent(seat, result.plies, end=True, events=self.events[seat])
            player.link.send(end_message(player.next_seq(), self.bot_match, result.scores, result.ranks,
                                         result.reason, result.offender, self.events[seat]))
