"""What anyone may read of a game or a version, and what only its owner and the admin may.

A failure's detail may quote what the bot wrote (a crash's last output line, the bytes of a
broken frame, an illegal move), and a version's detail may quote its build or the host's
paths: the public gets the reason in words ("crashed after 12 plies") and details the
server wrote itself from fixed words and numbers.
"""

from __future__ import annotations

import re

from arena.outcomes import public_detail
from arena.server.state.db import GameStatus, Status

# Details of a version made of the server's own words and numbers only: shown as they are.
_PUBLIC_VERSION_DETAIL = re.compile(
    r"reference bot|on the ladder|replaced by version \d+|disqualified by the admin"
    r"|disabled: \d+ failures in \d+ games \(last: [a-z]+\)"
    r"|rejected: it failed validation games \(see the validation log\)"
    r"|build failed: (it ran longer than the limit of \d+ s|its result was larger than \d+ MiB"
    r"|the command exited with status -?\d+)")
_GENERIC_VERSION_DETAIL = {
    Status.QUEUED: "waiting for its build", Status.BUILDING: "being built",
    Status.VALIDATING: "playing its validation games", Status.ACTIVE: "on the ladder",
    Status.FAILED: "the build failed", Status.REJECTED: "rejected in validation", Status.RETIRED: "replaced",
    Status.DISABLED: "disabled",
}
# A void game's detail is the server's; after the first ": " it may name a machine's error.
_VOID_HEAD = re.compile(r"(system fault, \d+ tries):")


def version_detail(status: str, detail: str, private: bool) -> str:
    """A version's detail for its owner and the admin (private), or for anyone else."""
    if private or not detail or _PUBLIC_VERSION_DETAIL.fullmatch(detail):
        return detail
    return _GENERIC_VERSION_DETAIL.get(status, "")  # type: ignore[call-overload]


def game_detail(status: str, reason: str, offender: int | None, plies: int, detail: str,
                seats: set[int] | None) -> str:
    """A game's detail as a viewer may read it; seats: the seats the viewer owns (None: every seat, the admin)."""
    if not detail or seats is None:
        return detail
    if status == GameStatus.VOID:
        head = _VOID_HEAD.match(detail)
        return head.group(1) if head else detail
    if offender is not None and offender in seats:
        return detail
    return public_detail(reason, plies) if offender is not None else ""
