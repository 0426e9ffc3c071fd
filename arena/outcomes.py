"""How a match ends, in one place: the wire reasons, the tournament's forfeit, the derived sets.

The reasons a match ends with are protocol's `Reason` (the contract, SPEC.md §6); a
tournament adds one outcome of its own, `forfeit`: a match not played because a bot is
disqualified. Everything that asks "was this a failure?" or "does it strike?" uses the
names below, so the vocabulary is written once.
"""

from __future__ import annotations

from typing import Final

from protocol.messages import Reason

__all__ = ["DEFAULT_STRIKE_REASONS", "FAILURES", "FORFEIT", "REPLACE_REASONS", "Reason"]

# A tournament's row for a match not played (its bot disqualified): never on the wire.
FORFEIT: Final = "forfeit"
# The reasons that name an offender who failed (resigning is not a failure), in SPEC.md's order.
FAILURES: Final[tuple[Reason, ...]] = tuple(reason for reason in Reason if reason.is_failure)
# The failures that count as strikes unless a config's `strikes.reasons` says otherwise.
DEFAULT_STRIKE_REASONS: Final[tuple[Reason, ...]] = (Reason.TIMEOUT, Reason.CRASH, Reason.PROTOCOL)
# A failure by one of these leaves the offender's process suspect: it is killed, and a worker
# starts a fresh one for the bot's next match.
REPLACE_REASONS: Final[frozenset[Reason]] = frozenset(FAILURES)
