"""A person at the board: the real referee in a thread, the person's seat answered at the terminal.

The bots are normal bot processes with their clocks (launched as for `arena match`). The
person's seat is an in-process DEALER socket that says hello with its seat's token, so
the referee treats it like any other seat: it sends `init` and `turn`, charges the time to
that seat's clock (a huge budget unless `--budget-ms` was given) and records every move.
The terminal UI runs in the main thread and answers the person's `turn` messages; the
referee reports every ply through `on_ply`, which the UI turns into announcements and boards.

Take-backs (`u`) end the running referee match (the person's seat answers its turn with a
move no game accepts) and start a new one, a *segment*, from the position before the
person's last move: against bots from `State.to_setup()` (the bots are initialised anew
from it, with the time they had left), in a solo game from the original setup with the
moves that stand replayed (chance draws then come out as before). arena/play/log.py
stitches the segments into one log that `arena replay --verify` accepts.
"""

from __future__ import annotations

import itertools
import logging
import queue
import threading
import time
from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import zmq

from arena.clock import ClockSettings
from arena.games import Game, GameError, Move, State
from arena.kit.terminal import Command, View
from arena.launch.processes.process import Limits
from arena.launch.specs.botspec import BotSpec
from arena.logs.matchlog import output_records, write_log
from arena.logs.signing import user_key
from arena.match.hub import Hub, ZmqLink
from arena.match.onematch import launch_player, shutdown
from arena.match.player import Player
from arena.match.referee import Referee
from arena.match.result import MatchResult
from arena.match.trace import Tracer
from arena.play.log import GameRecord, RecordingLog, check_log
from arena.play.seen import END_WAIT_S, PersonViews
from protocol.codec import ProtocolError, decode_from_referee, encode
from protocol.messages import hello_message

log = logging.getLogger(__name__)

POLL_MS = 100  # how often the UI looks at the referee thread while it waits
THINKING_NOTICE_S = 1.5  # a bot thinking longer than this is mentioned once
JOIN_S = 5.0  # how long an abandoned segment may take to end
# To leave a match (resign, or take back and start again) the person's seat answers its turn
# with a protocol `resign` (arrows resigns with its own move 255); a take-back drops that
# ending from the log, a resignation keeps it.


class UndoMode(StrEnum):
    """How a take-back restarts the game."""

    SETUP = "setup"  # a new match from the earlier position's setup (bots re-initialised)
    REPLAY = "replay"  # a new match from the original setup, standing moves replayed (solo)


def undo_mode(game: Game, bots: int) -> UndoMode | None:
    """How this game takes moves back, or None when it cannot (a game of hidden information never)."""
    if game.hidden_information:
        return None
    if bots == 0:
        return UndoMode.REPLAY
    return UndoMode.SETUP if game.exact_setups else None


class HumanClient:
    """The person's end of a seat's link: a DEALER that said hello with the seat's token."""

    def __init__(self, link: ZmqLink, name: str = "human") -> None:
        self.sock: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.sock.connect(link.endpoint)
        self.sock.send(encode(hello_message(link.token, name)))

    def receive(self, timeout_ms: int) -> dict[str, Any] | None:
        """The next message from the referee, or None after timeout_ms."""
        if not self.sock.poll(timeout_ms):
            return None
        try:
            return decode_from_referee(self.sock.recv())[1]
        except ProtocolError as exc:  # pragma: no cover - the referee is ours
            log.warning("unreadable message from the referee: %s", exc)
            return None

    def send(self, message: dict[str, Any]) -> None:
        """Send one message to the referee."""
        self.sock.send(encode(message))

    def close(self) -> None:
        """Close the socket (the referee sees the seat disconnect)."""
        self.sock.close(linger=0)


@dataclass
class SeatPlan:
    """Who sits on one seat: the person (spec None) or a bot."""

    name: str
    spec: BotSpec | None
    clock: ClockSettings


class PlaySession:
    """One game of a person against bots (or alone), in segments, with one stitched log."""

    def __init__(self, game: Game, setup: dict[str, Any], seed: int, seats: list[SeatPlan], view: View,
                 log_path: Path, match_id: str, limits: Limits | None = None,
                 trace_path: str | None = None) -> None:
        self.game = game
        self.setup = setup
        self.seed = seed
        self.seats = seats
        self.view = view
        self.term = view.term
        self.log_path = log_path
        self.match_id = match_id
        self.limits = limits or Limits()
        self.trace_path = trace_path  # --trace: every message both ways
        self.humans = [i for i, s in enumerate(seats) if s.spec is None]
        self.mode = undo_mode(game, len(seats) - len(self.humans))
        self.record = GameRecord(verbatim=game.hidden_information)
        # A game of hidden information shows each person their own seat's view (seen.py), never self.state.
        self.seen = PersonViews(game, view, len(seats), self.humans) if game.hidden_information else None
        self.state, _ = game.start(setup, len(seats), seed)  # the referee's position, followed from its plies
        self.pending: dict[int, Move] = {}  # the moves of a simultaneous turn reported so far
        self.simultaneous = False  # a simultaneous turn was played: no take-backs (its moves are played at once)
        self.positions: list[State] = [self.state.copy()]  # positions[i]: after i moves that stand
        self.moves: list[tuple[int, Move]] = []
        self.plies: queue.Queue[tuple[int, Move]] = queue.Queue()
        self.skip = 0  # plies of the running segment that replay moves already shown
        self.players: list[Player] = []
        self.clients: dict[int, HumanClient] = {}  # the people's seats (hot seat: more than one)
        self.undo_to: int | None = None
        self.resign_pending = False
        self.resigned = False  # the person gave up (q, Ctrl-D, Ctrl-C)

    # --- the game -----------------------------------------------------------------------

    def run(self) -> MatchResult:
        """Play the game to its end; the log is written whatever happens."""
        hub = Hub()
        self.tracer = Tracer(self.trace_path) if self.trace_path else None
        try:
            self._launch(hub)
            if self.seen is not None:  # the board comes with each person's turn, as their seat sees it
                self.term.say(self.view.intro(self.seen.opening(self.setup)))
                self.term.say(self.view.commands)
            else:
                self.term.say(self.view.intro(self.state))
                self.term.say(self.view.commands)
                self.term.say()
                self.term.say(self.view.board(self.state))
            replay: list[Move] = []
            setup, offset, clocks = self.setup, 0, [s.clock for s in self.seats]
            for segment in itertools.count():
                match_id = self.match_id if segment == 0 else f"{self.match_id}-u{segment}"
                result, undone = self._segment(setup, clocks, offset, replay, match_id)
                if not undone:
                    break
                setup, offset, replay, clocks = self._take_back()
            return result
        finally:
            for client in self.clients.values():
                client.close()
            outputs = {seat: p.process.output_text() for seat, p in enumerate(self.players)
                       if p.process is not None and p.process.output_text()}
            shutdown(hub, self.players)
            hub.close()
            if self.tracer is not None:
                self.tracer.close()
            if self.record.header is not None:  # a game cut short leaves a truncated log (signed: LOGS.md)
                write_log(self.log_path, [*self.record.records(), *output_records(outputs)], user_key(create=True))

    def verify_log(self) -> str | None:
        """None when the written log verifies, else why it does not."""
        verdict = check_log(self.log_path)
        return None if verdict.ok else verdict.message

    def _launch(self, hub: Hub) -> None:
        for number, seat in enumerate(self.seats):
            if seat.spec is None:
                link = hub.expect()
                self.clients[number] = HumanClient(link, seat.name)
                self.players.append(Player(seat.name, link, None, spec_text="human (terminal)"))
            else:
                self.players.append(launch_player(hub, seat.spec, self.limits))

    def _segment(self, setup: dict[str, Any], clocks: list[ClockSettings], offset: int, replay: list[Move],
                 match_id: str) -> tuple[MatchResult, bool]:
        """Referee one segment in a thread while the UI serves the person; (result, taken back?)."""
        recorder = RecordingLog()
        box: dict[str, Any] = {}

        def referee() -> None:
            try:
                box["result"] = Referee(self.players, self.game, setup, self.seed, clocks, match_id, recorder,
                                        on_ply=lambda _state, seat, move: self.plies.put((seat, move)),
                                        tracer=self.tracer).run()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, raised there
                box["error"] = exc

        thread = threading.Thread(target=referee, name="arena-referee", daemon=True)
        self.skip = len(replay)
        self.undo_to = None
        thread.start()
        try:
            self._serve(thread, deque(replay))
        finally:
            if thread.is_alive() and self.clients:
                for client in self.clients.values():
                    client.close()  # the referee sees the seats drop and ends the segment
                self.clients = {}
            thread.join(JOIN_S)
            if not thread.is_alive() and "error" not in box:
                self.record.add_segment(recorder.records, offset)
        if "error" in box:
            raise box["error"]
        return box["result"], self.undo_to is not None

    def _serve(self, thread: threading.Thread, replay: deque[Move]) -> None:
        """Answer the person's seat until the segment's referee is done."""
        poller = zmq.Poller()
        seat_of = {}
        for seat, client in self.clients.items():
            poller.register(client.sock, zmq.POLLIN)
            seat_of[client.sock] = seat
        quiet_since, told = time.monotonic(), False
        while True:
            if self._show_plies():
                quiet_since, told = time.monotonic(), False
            if not thread.is_alive():
                self._show_plies()
                if self.seen is not None:
                    self._ends()
                return
            try:
                ready = poller.poll(POLL_MS)
                seat = seat_of[ready[0][0]] if ready else None
                message = self.clients[seat].receive(0) if seat is not None else None
            except KeyboardInterrupt:
                if self.resign_pending:
                    raise
                self.resign_pending = True
                self.term.say("\nYou resign at your next turn (Ctrl-C again to leave at once).")
                continue
            if message is None:
                bots = [m for m in self.shown_state().movers() if m not in self.humans]
                if not told and bots and time.monotonic() - quiet_since > THINKING_NOTICE_S:
                    self.term.say(f"({' and '.join(self.view.name(m) for m in bots)} "
                                  f"{'is' if len(bots) == 1 else 'are'} thinking...)")
                    told = True
                continue
            assert seat is not None  # a message came from one of the people's seats
            kind = message.get("type")
            if kind == "init":
                if self.seen is not None:
                    self.seen.start(seat, message["setup"])
                self.clients[seat].send({"type": "ready", "seq": message["seq"]})
            elif kind == "turn":
                self._show_plies()
                quiet_since, told = time.monotonic(), False
                self._answer(seat, message, replay)
            elif kind == "end" and self.seen is not None:
                self.seen.end(seat, message.get("events", []))

    def _ends(self) -> None:
        """The end messages of the people's seats (the events they had not been sent), then their last views."""
        assert self.seen is not None  # narrowing: a game of hidden information
        deadline = time.monotonic() + END_WAIT_S
        for seat, client in self.clients.items():
            while seat not in self.seen.ended and (left := deadline - time.monotonic()) > 0:
                message = client.receive(max(1, int(left * 1000)))
                if message is not None and message.get("type") == "end":
                    self.seen.end(seat, message.get("events", []))
                    break
        self.seen.finish()

    def shown_state(self, seat: int | None = None) -> State:
        """The position as the person of seat (default: the first person) is shown it."""
        if self.seen is None:
            return self.state
        seat = self.humans[0] if seat is None else seat
        return self.seen.state(seat) if seat in self.seen.views else self.seen.opening(self.setup)

    def _answer(self, seat: int, message: dict[str, Any], replay: deque[Move]) -> None:
        """Answer one turn of a person's seat: a replayed move, the person's move, or leaving."""
        client = self.clients[seat]
        seq = message["seq"]
        if replay:
            client.send({"type": "move", "seq": seq, "move": replay.popleft()})
            return
        present = True
        if self.seen is not None:  # their own view, after the keyboard was handed over in the hot seat
            present = self.seen.turn(seat, message.get("events", []))
        elif len(self.humans) > 1:  # the hot seat: say whose turn it is
            self.term.say(f"{self.view.name(seat)} to move.")
        self.view.mover = seat
        answer = Command.RESIGN if self.resign_pending or not present else self._ask(self.shown_state(seat))
        if answer is Command.RESIGN:
            self.resigned = True
        if answer is Command.UNDO or answer is Command.RESIGN:
            own = self.view.resign_move() if answer is Command.RESIGN else None
            if own is not None:
                client.send({"type": "move", "seq": seq, "move": own})
            else:
                client.send({"type": "resign", "seq": seq})
            return
        client.send({"type": "move", "seq": seq, "move": answer})
        if self.seen is not None:
            self.seen.played(seat, answer)

    def _ask(self, state: State) -> Move | Command:
        """The person's move or command in state as they are shown it (help handled here; a take-back checked first)."""
        while True:
            got = self.view.ask_move(state)
            if got is Command.HELP:
                self.term.say(self.view.help(state))
                self.term.say(self.view.board(state))
                continue
            if got is Command.UNDO:
                reason = self._cannot_take_back()
                if reason:
                    self.view.refuse(reason)
                    continue
            return got

    def _show_plies(self) -> bool:
        """Show every ply the referee reported since the last look; True if there was one."""
        shown = False
        while True:
            try:
                seat, move = self.plies.get_nowait()
            except queue.Empty:
                return shown
            if self.skip:
                self.skip -= 1  # a replayed move: the position on screen already holds it
                continue
            shown = True
            before = self.state.copy()
            turn = self._follow(seat, move)
            self.moves.append((seat, move))
            self.positions.append(self.state.copy())
            if self.seen is not None or not turn:
                continue  # each person sees their own view (seen.py); a simultaneous turn once all its moves are in
            if all(mover in self.humans and played == self.view.resign_move() for mover, played in turn.items()):
                continue  # the result says it
            self.term.say()
            for mover, played in turn.items():
                line = self.view.announce(mover, played, before, self.state)
                if line:
                    self.term.say(line)
            self.term.say(self.view.board(self.state, (seat, move)))

    def _follow(self, seat: int, move: Move) -> dict[int, Move]:
        """Play a reported move on the referee's position: the turn's moves once it is played, else {}."""
        if len(self.state.movers()) <= 1:
            self.state.apply(move)
            return {seat: move}
        self.pending[seat] = move
        if set(self.pending) < set(self.state.movers()):
            return {}
        turn, self.pending = self.pending, {}
        self.state.apply_turn(turn)
        self.simultaneous = True
        return dict(sorted(turn.items()))

    # --- take-backs ---------------------------------------------------------------------

    def _target(self) -> int | None:
        """The number of moves that stand after taking back the person's last move pair."""
        for ply in range(len(self.moves) - 1, -1, -1):
            if self.moves[ply][0] in self.humans:
                return ply
        return None

    def _cannot_take_back(self) -> str | None:
        """Why `u` cannot be obeyed now (None: it can, and self.undo_to is set)."""
        if self.mode is None and self.game.hidden_information:
            return (f"Taking back is not possible in {self.game.name}: a move played again would be played "
                    "knowing what the one taken back revealed.")
        if self.simultaneous:
            return "Taking back is not possible once a simultaneous turn was played: its moves stand together."
        if self.mode is None:
            return (f"Taking back is not possible in {self.game.name} against bots: a position's "
                    "penalties and chance draws cannot be written into a setup.")
        target = self._target()
        if target is None:
            return "Nothing to take back yet."
        if self.mode is UndoMode.SETUP:
            try:
                self.game.validate_setup(self.positions[target].to_setup(), len(self.seats))
            except (GameError, NotImplementedError) as exc:
                return f"This position cannot be restored: {exc}"
        self.undo_to = target
        return None

    def _take_back(self) -> tuple[dict[str, Any], int, list[Move], list[ClockSettings]]:
        """Return to the position before the person's last move; the next segment's start."""
        assert self.undo_to is not None  # narrowing: called after a take-back was accepted
        target = self.undo_to
        human = self.moves[target][0]  # the person whose move is taken back
        taken = [f"{self.view.name(seat)} {self.game.render_move(m)}" for seat, m in self.moves[target:]]
        self.record.take_back(target, human)
        del self.moves[target:]
        del self.positions[target + 1:]
        self.state = self.positions[target].copy()
        self.pending = {}
        self.term.say(f"\nTaken back: {', '.join(taken)}.")
        self.term.say(self.view.board(self.state))
        if self.mode is UndoMode.REPLAY:
            return self.setup, 0, [m for _, m in self.moves], [s.clock for s in self.seats]
        return self.state.to_setup(), target, [], self.record.carried_clocks()
