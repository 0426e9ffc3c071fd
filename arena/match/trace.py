"""The bot I/O trace (`--trace FILE`): every message both ways, with time, match and seat.

Like cutechess-cli's `-debug` and fastchess's `-log`: one JSON object per line, appended
with O_APPEND one line per write(2), so the workers of a tournament can share one file.
Lines: `{"t": epoch seconds, "match": id, "seat": n, "dir": "to"|"from", "via": "zmq"|"stdio",
"message": {...}}`; bytes a bot sent that were not a message appear as `"raw"` (escaped,
bounded) with the `"error"` they caused.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

RAW_LIMIT = 4096  # bytes of an undecodable frame kept in the trace
QUOTE_LIMIT = 120  # bytes of an offending frame quoted in a failure's detail


class TraceError(OSError):
    """The trace file cannot be written."""


def quote_bytes(data: bytes, limit: int = QUOTE_LIMIT) -> str:
    """Bytes a bot sent, for a one-line detail: escaped, cut at limit, with the full length."""
    text = json.dumps(data[:limit].decode("utf-8", errors="backslashreplace"), ensure_ascii=True)
    return text if len(data) <= limit else f"{text}… ({len(data)} bytes)"


def _plain(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    return repr(value)


class Tracer:
    """Appends trace lines to one file."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        try:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise TraceError(exc.errno, f"cannot write the trace {self.path}: {exc.strerror}") from None

    def write(self, entry: dict[str, Any]) -> None:
        """Append one line (best effort: a full disk must not stop the match)."""
        if self.fd < 0:
            return
        line = json.dumps({"t": round(time.time(), 6), **entry}, default=_plain, ensure_ascii=False)
        try:
            os.write(self.fd, line.encode() + b"\n")
        except OSError:
            pass

    def close(self) -> None:
        """Close the file."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


@dataclass
class TraceTap:
    """One seat's end of a trace: what its link reports, labelled with match and seat."""

    tracer: Tracer
    match: str
    seat: int
    via: str

    def sent(self, message: dict[str, Any]) -> None:
        """A message the referee sent to the bot."""
        self.tracer.write({"match": self.match, "seat": self.seat, "dir": "to", "via": self.via, "message": message})

    def received(self, message: dict[str, Any]) -> None:
        """A message the bot sent."""
        self.tracer.write({"match": self.match, "seat": self.seat, "dir": "from", "via": self.via,
                           "message": message})

    def garbage(self, data: bytes, error: str) -> None:
        """Bytes the bot sent that were not a message."""
        self.tracer.write({"match": self.match, "seat": self.seat, "dir": "from", "via": self.via,
                           "raw": quote_bytes(data, RAW_LIMIT), "error": error})
