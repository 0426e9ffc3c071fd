"""The msgpack codec of protocol v1: every frame is one map; untrusted bytes meet hard limits."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

import msgpack

from protocol.messages import (
    BOT_TYPES,
    MAX_CONTAINER_LEN,
    MAX_DEPTH,
    MAX_MESSAGE_BYTES,
    MAX_STR_LEN,
    REFEREE_TYPES,
)

_PLAIN_SCALARS = (str, int, float, bool, type(None))

# Fields each message must carry, with the Python types they decode to.
_REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    "hello": {"protocol": int, "token": str},
    "ready": {"seq": int},
    "move": {"seq": int},
    "resign": {"seq": int},
    "welcome": {"protocol": int},
    "init": {
        "seq": int,
        "match": str,
        "game": str,
        "seat": int,
        "players": int,
        "setup": dict,
        "time_left_ms": int,
    },
    "turn": {"seq": int, "match": str, "events": list, "time_left_ms": int},
    "end": {"seq": int, "match": str, "scores": list, "ranks": list, "reason": str},
    "bye": {},
}


class ProtocolError(ValueError):
    """A frame breaks protocol v1 (malformed, oversized, too deep, unknown type, bad field)."""

    def __init__(self, message: str, size: int | None = None) -> None:
        super().__init__(message)
        self.size = size


def _refuse_ext(code: int, data: bytes) -> Any:
    raise ProtocolError(f"msgpack ext type {code} is not allowed")


def encode(message: dict[str, Any]) -> bytes:
    """Pack one message map into one frame."""
    return msgpack.packb(message, use_bin_type=True)


def check_plain(value: Any) -> None:
    """Reject nesting deeper than MAX_DEPTH and any type JSON could not hold (bytes, ext)."""
    _check_plain(value, 1)


def _check_plain(item: Any, depth: int) -> None:
    # Recursive, with exact type tests: a decoder yields only exact types, and a move frame
    # (a map of scalars and one short list) costs two calls on the referee's hot path.
    kind = type(item)
    if kind is list:
        children: Any = item
    elif kind is dict:
        for key in item:
            if type(key) is not str:
                raise ProtocolError(f"map key {key!r} is not a string")
        children = item.values()
    elif kind in _PLAIN_SCALARS:
        return
    else:
        raise ProtocolError(f"value of type {kind.__name__} is not allowed")
    if depth > MAX_DEPTH:
        raise ProtocolError(f"message nested deeper than {MAX_DEPTH} levels")
    for child in children:
        if type(child) not in _PLAIN_SCALARS:
            _check_plain(child, depth + 1)


def decode(data: bytes, walk: bool = True) -> dict[str, Any]:
    """Unpack one untrusted frame into a map; any malformed input raises ProtocolError.

    walk=False skips the nesting and type walk (msgpack's own limits still apply): for
    frames from the referee, which a bot has no reason to distrust, on its hot path.
    """
    if len(data) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(data)} bytes exceeds {MAX_MESSAGE_BYTES}", len(data))
    try:
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_refuse_ext,
            max_str_len=MAX_STR_LEN,
            max_bin_len=0,
            max_array_len=MAX_CONTAINER_LEN,
            max_map_len=MAX_CONTAINER_LEN,
            max_ext_len=0,
        )
    except ProtocolError:
        raise
    except Exception as exc:  # msgpack raises several unrelated types for bad bytes
        raise ProtocolError(f"not a msgpack value: {type(exc).__name__}: {exc}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"frame holds a {type(value).__name__}, not a map")
    if walk:
        check_plain(value)
    return value


def check_message(message: dict[str, Any], allowed: Collection[str]) -> str:
    """Check type and required fields of a decoded message; return its type."""
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in allowed:
        raise ProtocolError(f"unknown message type {kind!r}")
    for name, typ in _REQUIRED[kind].items():
        value = message.get(name)
        if not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
            raise ProtocolError(f"{kind}: field {name!r} missing or not {getattr(typ, '__name__', typ)}")
    if kind == "move" and "move" not in message:
        raise ProtocolError("move: field 'move' missing")
    return kind


def decode_from_bot(data: bytes) -> tuple[str, dict[str, Any]]:
    """Decode and check a frame a bot sent; return (type, message)."""
    message = decode(data)
    return check_message(message, BOT_TYPES), message


def _refuse_constant(name: str) -> Any:
    raise ProtocolError(f"JSON constant {name} is not allowed")


# One decoder for every line: json.loads with options builds a new one per call.
_decode_json = json.JSONDecoder(parse_constant=_refuse_constant).decode


def decode_json_line(line: bytes) -> dict[str, Any]:
    """Decode one untrusted JSON line (stdio bots) under the same limits as a msgpack frame."""
    if len(line) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"line of {len(line)} bytes exceeds {MAX_MESSAGE_BYTES}", len(line))
    try:
        value = _decode_json(line.decode("utf-8-sig"))  # a BOM, as some runtimes write first, is skipped
    except ProtocolError:
        raise
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise ProtocolError(f"not a JSON object: {type(exc).__name__}: {exc}") from None
    if not isinstance(value, dict):
        raise ProtocolError(f"line holds a {type(value).__name__}, not a JSON object")
    check_plain(value)
    return value


# One encoder for every line: json.dumps with options builds a new one per call.
_encode_json = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode


def encode_json_line(message: dict[str, Any]) -> bytes:
    """One message as one JSON line (stdio bots)."""
    return (_encode_json(message) + "\n").encode()


def decode_from_referee(data: bytes) -> tuple[str, dict[str, Any]]:
    """Decode and check a frame the referee sent; return (type, message)."""
    message = decode(data, walk=False)
    return check_message(message, REFEREE_TYPES), message


def decode_line_from_referee(line: bytes) -> tuple[str, dict[str, Any]]:
    """Decode and check a JSON line the referee wrote to a stdio bot; return (type, message)."""
    try:
        message = _decode_json(line.decode())
    except (ValueError, RecursionError) as exc:
        raise ProtocolError(f"not a JSON object: {type(exc).__name__}: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"line holds a {type(message).__name__}, not a JSON object")
    return check_message(message, REFEREE_TYPES), message
