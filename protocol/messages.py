"""The messages of protocol v1 (SPEC.md) as typed wire maps, and the limits that bind them."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal, NotRequired, TypedDict

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


class Hello(TypedDict):
    """bot -> referee, first message: presents the token of a seat."""

    type: Literal["hello"]
    protocol: int
    token: str
    name: str


class Welcome(TypedDict):
    """referee -> bot: the token was accepted."""

    type: Literal["welcome"]
    protocol: int


class Init(TypedDict):
    """referee -> bot: a new match starts; answer `ready` with the same seq."""

    type: Literal["init"]
    seq: int
    match: str
    game: str
    seat: int
    players: int
    setup: dict[str, Any]
    time_left_ms: int


class Ready(TypedDict):
    """bot -> referee: initialised for the match."""

    type: Literal["ready"]
    seq: int


class Turn(TypedDict):
    """referee -> bot: your move; events are everything since your previous turn."""

    type: Literal["turn"]
    seq: int
    match: str
    events: list[list[Any]]
    time_left_ms: int


class MoveMsg(TypedDict):
    """bot -> referee: the move answering the turn with the same seq."""

    type: Literal["move"]
    seq: int
    move: Any


class Resign(TypedDict):
    """bot -> referee: gives up instead of answering the turn with the same seq (reason `resigned`)."""

    type: Literal["resign"]
    seq: int


class End(TypedDict):
    """referee -> bot: the match is over (no reply)."""

    type: Literal["end"]
    seq: int
    match: str
    scores: list[float]
    ranks: list[int]
    reason: str
    offender: int | None
    events: NotRequired[list[list[Any]]]


class Bye(TypedDict):
    """referee -> bot: no more matches; exit with status 0."""

    type: Literal["bye"]
