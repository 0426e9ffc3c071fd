"""How a match ended: a bot's failure, and the result recorded in the log and the results store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.messages import Reason


@dataclass
class Failure:
    """A bot failure that ends the match."""

    seat: int
    reason: Reason
    detail: str
    time_ms: float = 0.0  # time charged for the answer that ended the match (a resignation)


@dataclass
class MatchResult:
    """The outcome of one match, as recorded in the log and the results store."""

    match: str
    game: str
    names: list[str]
    scores: list[float]
    ranks: list[int]
    reason: str
    offender: int | None
    plies: int
    detail: str = ""
    log: str | None = None
    duration_s: float = 0.0
    time_used_ms: list[float] = field(default_factory=list)

    @property
    def players(self) -> int:
        """The number of seats."""
        return len(self.names)

    def summary(self) -> dict[str, Any]:
        """The keys `arena match --json` prints."""
        return {
            "game": self.game,
            "players": self.names,
            "scores": self.scores,
            "ranks": self.ranks,
            "reason": self.reason,
            "offender": self.offender,
            "detail": self.detail,
            "plies": self.plies,
            "log": self.log,
        }
