"""One verifiable match log for a game played at the terminal, take-backs included.

A game with take-backs is played as *segments*: each is a real referee match (the first
from the original setup, each later one from the position a take-back returned to), whose
records a RecordingLog keeps in memory. GameRecord stitches them together, after the game,
into the log of the match that actually stood: the original setup and seed, the `ready`
records of the first segment, every move that was not taken back (with the time the
referee charged for it), the referee events those moves caused, and the final result.
Every take-back is an `undo` record (a kind the verifier keeps but ignores) naming the ply
it returned to and the moves it took back, so the log still tells the whole story.

Clocks are recomputed from the moves that stood (`clock − time_ms + increment`, as the
verifier does), and so are the margins left (what a move took past its allowance comes out
of its seat's margin): a bot's re-initialisation after a take-back is charged live but does
not appear in the stitched log. README.md, "Playing against a bot", says what a person sees.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from typing import Any

from arena.clock import ClockError, ClockSettings, SeatClock
from arena.games import get_game
from arena.games.seats import play_turn
from arena.logs.matchlog import LogError, LogWriter, NullLog, position_fingerprint, read_log
from arena.logs.replay import Verdict, header_clocks, margin_left, verify

log = logging.getLogger(__name__)

# Records that end a segment early: an illegal move, or (protocol `resign`) a resignation.
ENDING_KINDS = ("illegal", "resign")


class RecordingLog(NullLog):
    """A log writer that keeps the referee's records in memory (one segment of a game)."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def write(self, record: dict[str, Any]) -> None:
        """Keep a copy of the record."""
        self.records.append(dict(record))


@dataclass
class StandingPly:
    """One move that stands, the referee events it caused and the notes written after it."""

    move: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any]] = field(default_factory=list)


class GameRecord:
    """The moves that stand in a game played in segments, and the log they make.

    verbatim: the game is played in one segment (no take-backs: a game of hidden information,
    whose log says in order what each seat was sent), and its log is the referee's own records.
    A segment holding a simultaneous turn is kept so as well (take-backs stop at one).
    """

    def __init__(self, verbatim: bool = False) -> None:
        self.verbatim = verbatim
        self.segment: list[dict[str, Any]] = []  # the referee's records, when kept verbatim
        self.header: dict[str, Any] | None = None
        self.opening: list[dict[str, Any]] = []  # ply-0 events, ready records, notes at ply 0
        self.plies: list[StandingPly] = []
        self.ending: list[dict[str, Any]] = []  # the illegal/resign record that ended the game
        self.result: dict[str, Any] | None = None
        self.time_used = [0.0]
        self.duration_s = 0.0

    @property
    def standing(self) -> int:
        """How many moves (turns: a simultaneous turn's moves count once) stand."""
        if self.verbatim:  # the referee counted them (a turn a refusal ended is not one)
            if self.result is not None:
                return int(self.result["plies"])
            return len({r["ply"] for r in self.segment if r["kind"] == "move"})
        return len(self.plies)

    def add_segment(self, records: list[dict[str, Any]], offset: int) -> None:
        """Take in one segment's records; its ply p is ply offset + p of the whole game.

        Moves and events at plies that already stand are a replay of them (a solo game
        replays its moves after a take-back) and are skipped.
        """
        first = self.header is None
        plies = [r["ply"] for r in records if r["kind"] == "move"]
        if first and (self.verbatim or len(plies) != len(set(plies))):  # one segment, or a simultaneous turn
            self.verbatim, self.segment = True, [dict(r) for r in records]
        standing = self.standing
        self.ending, self.result = [], None
        for record in records:
            kind = record["kind"]
            whole = offset + int(record.get("ply", 0))
            if kind == "header":
                if first:
                    self.header = record
                    self.time_used = [0.0] * int(record["players"])
            elif kind == "ready":
                if first:
                    self.opening.append(record)
            elif kind == "event":
                if first and whole == 0:
                    self.opening.append(record)
                elif whole > standing:
                    self.plies[whole - 1].events.append({**record, "ply": whole})
            elif kind == "move":
                if whole > standing:
                    if whole != self.standing + 1:
                        raise LogError(f"segment move numbered ply {whole}, expected {self.standing + 1}")
                    self.plies.append(StandingPly({**record, "ply": whole}))
            elif kind in ENDING_KINDS:
                self.ending = [{**record, "ply": whole}]
            elif kind == "result":
                self.result = record
                for seat, used in enumerate(record.get("time_used_ms", [])[: len(self.time_used)]):
                    self.time_used[seat] += float(used)
                self.duration_s += float(record.get("duration_s", 0.0))

    def take_back(self, to_ply: int, seat: int) -> None:
        """Drop every move after ply to_ply (a take-back by seat) and note it."""
        removed = self.plies[to_ply:]
        del self.plies[to_ply:]
        self.ending, self.result = [], None
        note = {
            "kind": "undo", "ply": to_ply, "seat": seat,
            "taken_back": [{"ply": p.move["ply"], "seat": p.move["seat"], "move": p.move["move"],
                            "time_ms": p.move["time_ms"]} for p in removed],
        }
        # Notes of the moves taken back (earlier take-backs) move along, so none is lost.
        carried = [n for p in removed for n in p.notes]
        target = self.plies[-1].notes if self.plies else self.opening
        target.extend([*carried, note])

    def clocks(self) -> list[float]:
        """Every seat's clock after the moves that stand (as the stitched log states it)."""
        return self._moves_with_clocks()[1]

    def _moves_with_clocks(self) -> tuple[list[dict[str, Any]], list[float], list[float]]:
        """The standing move records with recomputed clocks and margins, and the clocks and margins after the last."""
        if self.header is None:
            return [], [], []
        settings = header_clocks(self.header)
        left = [float(s.budget_ms) for s in settings]
        margins = [float(s.margin_ms) for s in settings]
        for record in self.opening:
            if record["kind"] == "ready":
                left[record["seat"]] = float(record["clock"])
                margins[record["seat"]] = margin_left(record, settings[record["seat"]])
        moves = []
        for ply in self.plies:
            seat = ply.move["seat"]
            clock = SeatClock(settings[seat], left[seat], margins[seat])
            clock.charge(float(ply.move["time_ms"]), is_move=True)  # the overrun comes out of the margin
            margins[seat] = clock.margin_ms
            left[seat] = round(max(0.0, left[seat] - float(ply.move["time_ms"])) + settings[seat].increment_ms, 3)
            move = {k: v for k, v in ply.move.items() if k != "margin"} | {"clocks": list(left)}
            if margins[seat] < settings[seat].margin_ms:
                move["margin"] = margins[seat]
            moves.append(move)
        return moves, left, margins

    def carried_clocks(self) -> list[ClockSettings]:
        """Per-seat clock settings for a segment starting now: each seat keeps the time and margin it has left."""
        if self.header is None:
            raise LogError("no segment recorded yet")
        _, left, margins = self._moves_with_clocks()
        return [ClockSettings(**{**s.to_data(), "budget_ms": max(1, round(t)), "margin_ms": max(0, round(m))})
                for s, t, m in zip(header_clocks(self.header), left, margins)]

    def records(self) -> list[dict[str, Any]]:
        """The stitched log's records in order (without the writer's closing `end`)."""
        if self.header is None:
            return []
        if self.verbatim:
            return fingerprinted(self.segment)
        moves, _, _ = self._moves_with_clocks()
        out: list[dict[str, Any]] = [self.header, *self.opening]
        for ply, move in zip(self.plies, moves):
            # A segment fingerprinted positions reached from its own setup: the writer
            # fingerprints the stitched game afresh.
            out += [{k: v for k, v in move.items() if k != "pos"}, *ply.events, *ply.notes]
        out += [{**r, "ply": self.standing + 1} for r in self.ending]
        if self.result is not None:
            result = {k: v for k, v in self.result.items() if k != "log"}
            result.update(plies=self.standing, time_used_ms=[round(t, 3) for t in self.time_used],
                          duration_s=round(self.duration_s, 4))
            out.append(result)
        return out

    def write(self, path: str | os.PathLike[str], outputs: dict[int, str] | None = None) -> None:
        """Write the stitched log (a game cut short has no result and reads as truncated)."""
        writer = LogWriter(path)
        try:
            for record in self.records():
                writer.write(record)
            for seat, text in sorted((outputs or {}).items()):
                if text:
                    writer.write({"kind": "output", "seat": seat, "text": text})
        finally:
            writer.close()


def check_log(path: str | os.PathLike[str]) -> Verdict:
    """Verify a written log as `arena replay --verify` would."""
    try:
        return verify(read_log(path))
    except (LogError, ClockError) as exc:
        return Verdict(False, str(exc), None, False, 0)


def fingerprinted(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A match's records with the position each turn reached on its last move record (as the referee logs it).

    The referee fingerprints positions only when it writes a file; the records of a game played at
    the terminal are fingerprinted here, a simultaneous turn's on its last record (None on the others).
    """
    header = records[0]
    state = get_game(header["game"]).start(header["setup"], header["players"], header["seed"])[0]
    out: list[dict[str, Any]] = []
    turn: list[dict[str, Any]] = []
    for record in _refusals_last(records):
        if record["kind"] == "result":
            record = {k: v for k, v in record.items() if k != "log"}  # a log need not name itself
        out.append(record)
        if record["kind"] != "move":
            continue
        record["pos"] = None
        turn.append(record)
        if {r["seat"] for r in turn} >= set(state.movers()):
            play_turn(state, {r["seat"]: r["move"] for r in turn})
            record["pos"] = position_fingerprint(state)
            turn = []
    return out


def _refusals_last(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with a refusal that ended a simultaneous turn after the turn's other moves.

    The referee logs an illegal move (or a resignation) when it comes, and the moves the other
    movers had made in that turn after it, which `arena verify` reads as moves after the end:
    here they come first, as the turn was played (same records, a turn's order).
    """
    out: list[dict[str, Any]] = []
    held: list[dict[str, Any]] = []
    for record in records:
        if record["kind"] in ENDING_KINDS:
            held.append(record)
            continue
        if held and not (record["kind"] == "move" and record["ply"] == held[0]["ply"]):
            out += held
            held = []
        out.append(record)
    return out + held
