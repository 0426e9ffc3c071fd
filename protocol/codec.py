"""The msgpack codec of protocol v1: every frame is one map; untrusted bytes meet hard limits."""

from __future__ import annotations

import json
import math
import re
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
# Frames up to this size are unpacked at once: the headers they can stack claim at most
# (size / 3) * size items, under a megabyte. Longer ones are walked first (decode).
_WALK_FIRST_FROM = 512

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


def _shown(value: Any, limit: int = 60) -> str:
    """repr(value) cut to limit characters: a bot's value quoted in a one-line error."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


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
                raise ProtocolError(f"map key {_shown(key)} is not a string")
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
    size = len(data)
    if size > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {size} bytes exceeds {MAX_MESSAGE_BYTES}", size)
    # msgpack allocates the items an array or map header claims before it reads one: no header
    # may claim more items than the frame has bytes, and a frame long enough to stack many such
    # headers is first walked without building anything, so one that ends early costs nothing.
    claim = min(MAX_CONTAINER_LEN, size)
    try:
        if size > _WALK_FIRST_FROM:
            probe = msgpack.Unpacker(max_buffer_size=size, max_str_len=MAX_STR_LEN, max_bin_len=0,
                                     max_array_len=claim, max_map_len=claim, max_ext_len=0)
            probe.feed(data)
            probe.skip()
        value = msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_refuse_ext,
            max_str_len=MAX_STR_LEN,
            max_bin_len=0,
            max_array_len=claim,
            max_map_len=claim,
            max_ext_len=0,
        )
    except msgpack.OutOfData:
        raise ProtocolError("not a msgpack value: the frame ends inside a value") from None
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
        raise ProtocolError(f"unknown message type {_shown(kind)}")
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


# A line must hold what a msgpack frame can (the referee logs and forwards what it accepts):
# integers of 64 bits, finite floats, strings of Unicode characters (no lone surrogates).
_INT_RANGE = (-(1 << 63), (1 << 64) - 1)
_INT_DIGITS = 20  # the longest in range, sign included: -9223372036854775808, 18446744073709551615
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _json_int(text: str) -> int:
    value = int(text) if len(text) <= _INT_DIGITS else None
    if value is None or not _INT_RANGE[0] <= value <= _INT_RANGE[1]:
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} digits)"
        raise ProtocolError(f"integer {shown} does not fit in 64 bits")
    return value


def _json_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        shown = text if len(text) <= 24 else f"{text[:20]}… ({len(text)} characters)"
        raise ProtocolError(f"number {shown} is too large for a float (it would be Infinity)")
    return value


def _check_text(item: Any) -> None:
    """Reject a string (key or value) holding a lone surrogate, which a JSON escape can write."""
    kind = type(item)
    if kind is str:
        if _SURROGATE.search(item):
            raise ProtocolError("a string holds an unpaired surrogate escape (\\ud800-\\udfff), "
                                "not Unicode text")
    elif kind is list:
        for child in item:
            _check_text(child)
    elif kind is dict:
        for key, child in item.items():
            _check_text(key)
            _check_text(child)


# One decoder for every line: json.loads with options builds a new one per call.
_decode_json = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_json_int,
                                parse_float=_json_float).decode


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
    if _SURROGATE_ESCAPE.search(line):
        _check_text(value)
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
