"""Protocol v1's vocabulary (SPEC.md): message types, end reasons, the limits that bind messages."""

from __future__ import annotations

from enum import StrEnum

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 1 << 20  # one frame, encoded
MAX_DEPTH = 32  # nesting of arrays and maps inside one message
MAX_STR_LEN = 1 << 16
MAX_CONTAINER_LEN = 1 << 16  # items of one array or pairs of one map
ENV_ENDPOINT = "ARENA_ENDPOINT"
ENV_TOKEN = "ARENA_TOKEN"

# Requests the referee sends carry `seq`; these are the replies a bot may send.
BOT_TYPES = frozenset({"hello", "ready", "move", "resign"})
REFEREE_TYPES = frozenset({"welcome", "init", "turn", "end", "bye"})


class Reason(StrEnum):
    """Why a match ended (the `reason` of `end` and of every result)."""

    NORMAL = "normal"
    BLOCKED = "blocked"
    RESIGNED = "resigned"
    TIMEOUT = "timeout"
    ILLEGAL = "illegal"
    CRASH = "crash"
    PROTOCOL = "protocol"

    @property
    def is_failure(self) -> bool:
        """True for the reasons that name an offender who failed (not resigned)."""
        return self in (Reason.TIMEOUT, Reason.ILLEGAL, Reason.CRASH, Reason.PROTOCOL)

