"""Match logs: a stream of msgpack records, appended and flushed as the match runs.

msgpack because the referee already speaks it, a record is a few dozen bytes, and a stream
of records needs no framing: a crash leaves every record written so far readable, and a cut
record at the tail is detected as truncation. `arena replay LOG --json` gives the readable
form. The format is described in protocol/LOGS.md.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

LOG_FORMAT = 1
MAGIC = "arena-match-log"


class LogError(ValueError):
    """A file is not a readable match log."""


class LogWriter:
    """Appends records to a match log; each record is flushed so a crash loses nothing written."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: BinaryIO | None = open(self.path, "wb")
        self._packer = msgpack.Packer(use_bin_type=True)

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and hand it to the operating system."""
        if self._file is None:
            raise LogError(f"{self.path}: log already closed")
        self._file.write(self._packer.pack(record))
        self._file.flush()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._file is not None:
            self._file.close()
            self._file = None


class NullLog:
    """A log that keeps nothing (matches run without --log)."""

    path = None

    def write(self, record: dict[str, Any]) -> None:
        """Discard the record."""

    def close(self) -> None:
        """Nothing to close."""


@dataclass
class MatchLog:
    """A match log as read back: header, moves and events in order, result (if complete)."""

    header: dict[str, Any]
    records: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    output: dict[int, str] = field(default_factory=dict)
    truncated: bool = False

    @property
    def moves(self) -> list[dict[str, Any]]:
        """The move records, in ply order."""
        return [r for r in self.records if r["kind"] == "move"]

    def to_json_data(self) -> dict[str, Any]:
        """The whole log as one JSON-able map (what `arena replay --json` prints)."""
        return {
            "header": self.header,
            "records": self.records,
            "result": self.result,
            "output": {str(k): v for k, v in self.output.items()},
            "truncated": self.truncated,
        }


def _from_records(records: Iterable[dict[str, Any]], source: str, truncated: bool) -> MatchLog:
    records = iter(records)
    header = next(records, None)
    if not isinstance(header, dict) or header.get("kind") != "header" or header.get("magic") != MAGIC:
        raise LogError(f"{source}: not an arena match log (no header record)")
    if not isinstance(header.get("format"), int) or header["format"] > LOG_FORMAT:
        raise LogError(f"{source}: log format {header.get('format')!r} is newer than {LOG_FORMAT}")
    log = MatchLog(header=header, truncated=truncated)
    for record in records:
        if not isinstance(record, dict) or "kind" not in record:
            raise LogError(f"{source}: malformed record {record!r:.80}")
        kind = record["kind"]
        if kind == "result":
            log.result = record
        elif kind == "output":
            log.output[int(record["seat"])] = str(record["text"])
        else:
            log.records.append(record)
    if log.result is None:
        log.truncated = True
    return log


def read_log(path: str | os.PathLike[str]) -> MatchLog:
    """Read a log file: the msgpack stream, or the JSON dump of `arena replay --json`."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from None
    if data[:1] == b"{":
        try:
            dump = json.loads(data)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise LogError(f"{path}: invalid JSON: {exc}") from None
        if not isinstance(dump, dict) or "header" not in dump:
            raise LogError(f"{path}: JSON is not a match log dump")
        records = [dump["header"], *dump.get("records", [])]
        if dump.get("result") is not None:
            records.append(dump["result"])
        records += [{"kind": "output", "seat": int(k), "text": v} for k, v in dump.get("output", {}).items()]
        return _from_records(records, str(path), bool(dump.get("truncated", False)))
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    records = []
    truncated = False
    try:
        for record in unpacker:
            records.append(record)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as exc:
        raise LogError(f"{path}: corrupt log: {exc}") from None
    if unpacker.tell() < len(data):
        truncated = True  # a record cut short by a crash
    if not records:
        raise LogError(f"{path}: empty log")
    return _from_records(records, str(path), truncated)
