"""Protocol v1's vocabulary (SPEC.md): message types, end reasons, the limits that bind messages."""

from __future__ import annotations

from enum import StrEnum
from typing import Any

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
    DISCONNECT = "disconnect"  # a seat whose link was lost (a bot on another machine) was not back in time

    @property
    def is_failure(self) -> bool:
        """True for the reasons that name an offender who failed (not resigned)."""
        return self in (Reason.TIMEOUT, Reason.ILLEGAL, Reason.CRASH, Reason.PROTOCOL, Reason.DISCONNECT)


# --- the referee's messages, built in one place (the referee and `arena replay --bot` both send them)


def welcome_message() -> dict[str, Any]:
    """The answer to an accepted hello."""
    return {"type": "welcome", "protocol": PROTOCOL_VERSION}


def init_message(seq: int, match: str, game: str, seat: int, players: int, setup: dict[str, Any],
                 time_left_ms: int, names: list[str] | None = None) -> dict[str, Any]:
    """A match starts: the seat, the setup and the time the seat has left (and the players' names, when revealed)."""
    message = {"type": "init", "seq": seq, "match": match, "game": game, "seat": seat, "players": players,
               "setup": setup, "time_left_ms": time_left_ms}
    if names is not None:
        message["names"] = names
    return message


def turn_message(seq: int, match: str, events: list[list[Any]], time_left_ms: int) -> dict[str, Any]:
    """The seat is to move: what happened since its last turn, and its time left."""
    return {"type": "turn", "seq": seq, "match": match, "events": events, "time_left_ms": time_left_ms}


def end_message(seq: int, match: str, scores: list[float], ranks: list[int], reason: str,
                offender: int | None, events: list[list[Any]]) -> dict[str, Any]:
    """The match is over: scores, ranks, why, and the events the seat had not seen."""
    return {"type": "end", "seq": seq, "match": match, "scores": scores, "ranks": ranks, "reason": reason,
            "offender": offender, "events": events}


def bye_message() -> dict[str, Any]:
    """The bot may exit."""
    return {"type": "bye"}


# --- a bot's first message (the SDK and a person at the terminal both send it)


def hello_message(token: str, name: str) -> dict[str, Any]:
    """A bot's first message: the protocol it speaks, its seat's token ("" on pipes) and its name."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "token": token, "name": name}
