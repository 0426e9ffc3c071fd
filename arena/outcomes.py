"""How a match ends, in one place: the wire reasons, the tournament's forfeit, the derived sets.

The reasons a match ends with are protocol's `Reason` (the contract, SPEC.md §6); a
tournament adds one outcome of its own, `forfeit`: a match not played because a bot is
disqualified. Everything that asks "was this a failure?" or "does it strike?" uses the
names below, so the vocabulary is written once.
"""

from __future__ import annotations

from typing import Final

from protocol.messages import Reason

__all__ = ["DEFAULT_STRIKE_REASONS", "FAILURES", "FORFEIT", "REPLACE_REASONS", "Reason", "public_detail"]

# A tournament's row for a match not played (its bot disqualified): never on the wire.
FORFEIT: Final = "forfeit"
# The reasons that name an offender who failed (resigning is not a failure), in SPEC.md's order.
FAILURES: Final[tuple[Reason, ...]] = tuple(reason for reason in Reason if reason.is_failure)
# The failures that count as strikes unless a config's `strikes.reasons` says otherwise.
DEFAULT_STRIKE_REASONS: Final[tuple[Reason, ...]] = (Reason.TIMEOUT, Reason.CRASH, Reason.PROTOCOL)
# A failure by one of these leaves the offender's process suspect: it is killed, and a worker
# starts a fresh one for the bot's next match.
REPLACE_REASONS: Final[frozenset[Reason]] = frozenset(FAILURES)

# How the public is told of a failure: the reason in words, never the detail, which may quote
# what the bot wrote (a crash's last output line, the bytes of a broken frame, an illegal move).
_PUBLIC_VERBS: Final[dict[str, str]] = {
    Reason.TIMEOUT: "ran out of time", Reason.ILLEGAL: "played an illegal move", Reason.CRASH: "crashed",
    Reason.PROTOCOL: "broke the protocol", Reason.RESIGNED: "resigned", FORFEIT: "forfeited",
    Reason.DISCONNECT: "lost its connection",
}


def public_detail(reason: str, plies: int) -> str:
    """A failure's detail as anyone may read it: what happened and when ("crashed after 12 plies"), no quotes."""
    verb = _PUBLIC_VERBS.get(reason)
    if verb is None:
        return ""
    if plies <= 0:
        return f"{verb} before the first move"
    return f"{verb} after {plies} {'ply' if plies == 1 else 'plies'}"
