"""Strikes and forfeits: a bot that keeps failing is disqualified, its remaining matches lost.

A strike is a match the bot lost as the offender for one of the rule's reasons. The count
is rebuilt from the store in the order rows were written, so a resumed tournament knows who
is out. A disqualified bot's unplayed matches are recorded as `forfeit` rows: the bot is
scored as if it failed before its first move, ranked last, and every other seat is credited.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.games import Game, ranks_with_last
from arena.outcomes import FORFEIT
from arena.tournament.plan.config import StrikeRule
from arena.tournament.plan.schedule import MatchTask
from arena.tournament.workers.worker import MatchRecord


@dataclass
class StrikeBook:
    """Strikes per bot and who is disqualified (at which match)."""

    rule: StrikeRule
    bots: int
    strikes: list[int] = field(default_factory=list)
    disqualified: dict[int, str] = field(default_factory=dict)  # bot -> match of its last strike

    def __post_init__(self) -> None:
        self.strikes = [0] * self.bots

    def observe(self, record: MatchRecord) -> list[int]:
        """Count a recorded match; return the bots it disqualified."""
        if not record.played or record.offender is None or record.reason not in self.rule.reasons:
            return []
        bot = record.bots[record.offender]
        self.strikes[bot] += 1
        if self.rule.max_strikes and self.strikes[bot] >= self.rule.max_strikes and bot not in self.disqualified:
            self.disqualified[bot] = record.match
            return [bot]
        return []

    def out_of(self, task: MatchTask) -> list[int]:
        """The seats of task whose bot is disqualified."""
        return [seat for seat, bot in enumerate(task.bots) if bot in self.disqualified]


def forfeit_record(game: Game, setup: dict[str, Any], task: MatchTask, names: list[str], seats: list[int],
                   strikes: int) -> MatchRecord:
    """The row of a match not played because the bots in seats are disqualified."""
    state, _ = game.start(setup, len(task.bots), task.seed)
    scores = [float(s) for s in (state.forfeit_scores(seats[0]) if len(seats) == 1 else state.scores())]
    ranks = ranks_with_last(scores, seats)
    who = ", ".join(names[s] for s in seats)
    return MatchRecord(
        ord=task.ord, match=task.match, round=task.round, setup=task.setup, seed=task.seed,
        bots=list(task.bots), names=names, scores=scores, ranks=ranks, reason=FORFEIT,
        offender=seats[0], plies=0, played=False,
        detail=f"not played: {who} disqualified after {strikes} strikes",
        time_used_ms=[0.0] * len(task.bots), worker="coordinator",
    )


def forfeited_seats(record: MatchRecord) -> list[int]:
    """The seats that forfeited an unplayed match (no other seat can rank last there)."""
    if record.played:
        return []
    return [seat for seat, rank in enumerate(record.ranks) if rank == len(record.ranks)]
