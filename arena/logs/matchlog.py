"""Match logs: a stream of msgpack records, appended and flushed as the match runs.

msgpack because the referee already speaks it, a record is a few dozen bytes, and a stream
of records needs no framing: a crash leaves every record written so far readable, and a cut
record at the tail is detected as truncation. `arena replay LOG --json` gives the readable
form, which read_log accepts as well. The format is described in protocol/LOGS.md; given a
key, the writer signs every record (arena/logs/signing.py), and readers skip the mac records.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, BinaryIO

import msgpack

from arena.games import GameError, State, UnknownGame, get_game
from arena.logs.signing import MAC_KIND, MacChain, key_id, mac_record

log = logging.getLogger(__name__)

LOG_FORMAT = 4  # the format this module writes
READ_FORMATS = (1, 2, 3, 4)  # the formats read_log accepts
MAGIC = "arena-match-log"
OUTPUT_LIMIT = 32 * 1024  # characters of one seat's output kept (the tail), as the process keeps bytes
MAX_LOG_BYTES = 256 * 2**20  # a log larger than this is refused rather than loaded

# Record kinds and their fields: (name, type, required). The header of a format-2 log
# carries the names (its `layout`), so a reader without protocol/LOGS.md sees the shape;
# read_log checks the types, so a hand-edited log fails with a message, not a KeyError.
NUM, INT, STR, LIST, MAP, ANY, OPT_INT = "num", "int", "str", "list", "map", "any", "int|nil"
BOOL, BIN = "bool", "bin"
FIELDS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "header": (
        ("magic", STR, True), ("format", INT, True), ("match", STR, True), ("game", STR, True),
        ("game_version", INT, True), ("setup", MAP, True), ("seed", INT, True),
        ("players", INT, True), ("seats", LIST, True), ("clock", MAP, True),
        ("started", STR, False), ("writer", STR, False), ("layout", MAP, False),
        ("seat_clocks", LIST, False), ("signed", BOOL, False), ("key_id", STR, False),
        ("bot_match", STR, False), ("reveal_names", BOOL, False),
    ),
    "event": (("ply", INT, True), ("event", LIST, True)),
    "ready": (("seat", INT, True), ("time_ms", NUM, True), ("clock", NUM, True), ("margin", NUM, False),
              ("network_ms", NUM, False)),
    "move": (
        ("ply", INT, True), ("seat", INT, True), ("move", ANY, True), ("time_ms", NUM, True),
        ("clocks", LIST, True), ("pos", INT, False), ("margin", NUM, False), ("network_ms", NUM, False),
    ),
    "illegal": (("ply", INT, True), ("seat", INT, True), ("move", ANY, True), ("detail", STR, False)),
    "resign": (("ply", INT, True), ("seat", INT, True), ("time_ms", NUM, True)),
    "result": (
        ("scores", LIST, True), ("ranks", LIST, True), ("reason", STR, True),
        ("offender", OPT_INT, True), ("plies", INT, True), ("detail", STR, False),
        ("game", STR, False), ("players", LIST, False), ("time_used_ms", LIST, False),
        ("duration_s", NUM, False), ("log", ANY, False),
    ),
    "output": (("seat", INT, True), ("text", STR, True)),
    "end": (("records", INT, True),),
    MAC_KIND: (("mac", BIN, True),),
}
LAYOUT = {kind: [name for name, _, _ in fields] for kind, fields in FIELDS.items()}


class LogError(ValueError):
    """A file is not a readable match log."""


def position_fingerprint(state: State) -> int:
    """A 32-bit fingerprint of a position: the game's own, else CRC-32 of to_data() as msgpack."""
    # Not a security checksum: it lets the verifier name the ply where a hand-edited move
    # first changes the position, even when the edited move happens to be legal.
    own = state.fingerprint()
    if own is not None:
        return own
    return zlib.crc32(msgpack.packb(state.to_data(), use_bin_type=True))


@functools.cache
def _writer_version() -> str:
    try:
        return f"arena {metadata.version('arena')}"
    except metadata.PackageNotFoundError:
        return "arena (source tree)"


class LogWriter:
    """Appends records to a match log; each record is flushed so a crash loses nothing written.

    The referee hands it plain records; the writer adds what the format asks of a writer:
    the layout in the header, the position fingerprint of every move (from its own copy of
    the game, fed the same moves), a bound on bot output, and the closing `end` record.
    With a key it signs the log: the header names the key and every record is followed by
    its mac (arena/logs/signing.py).
    """

    def __init__(self, path: str | os.PathLike[str], key: bytes | None = None) -> None:
        self.path = Path(path)
        self._chain = MacChain(key) if key is not None else None  # before the file: a bad key leaves none
        self._key_id = key_id(key) if key is not None else ""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Unbuffered: every record is one write(2), so a crash keeps every record written.
        self._file: BinaryIO | None = open(self.path, "wb", buffering=0)
        self._packer = msgpack.Packer(use_bin_type=True)
        self._count = 0
        self._shadow: State | None = None

    def write(self, record: dict[str, Any]) -> None:
        """Append one record and hand it to the operating system."""
        if self._file is None:
            raise LogError(f"{self.path}: log already closed")
        kind = record.get("kind")
        if kind == "header":
            record = {**{k: v for k, v in record.items() if k != "key_id"}, "format": LOG_FORMAT,
                      "writer": _writer_version(), "layout": LAYOUT, "signed": self._chain is not None}
            if self._chain is not None:
                record["key_id"] = self._key_id
            self._shadow = self._start_shadow(record)
        elif kind == "move" and "pos" in record:
            self._shadow = None  # the writer's caller (the referee) fingerprints its own state
            if record["pos"] is None:  # a move of a simultaneous turn before the last: no position of its own
                record = {k: v for k, v in record.items() if k != "pos"}
        elif kind == "move" and self._shadow is not None:
            record = {**record, "pos": self._advance_shadow(record.get("move"))}
            if record["pos"] is None:
                del record["pos"]
        elif kind == "output" and len(str(record.get("text", ""))) > OUTPUT_LIMIT:
            text = str(record["text"])
            record = {**record, "text": f"[{len(text) - OUTPUT_LIMIT} earlier characters dropped]\n"
                                        + text[-OUTPUT_LIMIT:]}
        self._emit(self._packer.pack(record))
        self._count += 1

    def _emit(self, data: bytes) -> None:
        """Write one record's bytes, followed by its mac when signing, in one write(2)."""
        assert self._file is not None  # narrowing: callers check
        if self._chain is not None:
            # The mac goes out with its record: a crash cannot separate them (short of a short write).
            data += self._packer.pack(mac_record(self._chain.next(data)))
        view = memoryview(data)
        while view:  # a regular file takes everything at once (a full disk raises)
            written = self._file.write(view)
            if not written:
                raise OSError(f"{self.path}: nothing written")
            view = view[written:]

    def _start_shadow(self, header: Mapping[str, Any]) -> State | None:
        try:
            state, _ = get_game(header["game"]).start(header["setup"], header["players"], header["seed"])
        except (UnknownGame, GameError, KeyError, TypeError) as exc:
            log.warning("%s: no position fingerprints (%s)", self.path, exc)
            return None
        return state

    def _advance_shadow(self, move: Any) -> int | None:
        assert self._shadow is not None  # narrowing: only called with a shadow
        try:
            self._shadow.apply(move)
        except GameError as exc:
            # The referee applied this move without error, so this means a nondeterministic
            # game; fingerprints stop rather than record something the verifier would reject.
            log.warning("%s: position fingerprints stop: %s", self.path, exc)
            self._shadow = None
            return None
        return position_fingerprint(self._shadow)

    def close(self) -> None:
        """Write the closing `end` record and close the file (idempotent)."""
        if self._file is not None:
            try:
                self._emit(self._packer.pack({"kind": "end", "records": self._count}))
            finally:
                self._file.close()
                self._file = None


def output_records(outputs: Mapping[int, str]) -> list[dict[str, Any]]:
    """The `output` records of every seat that wrote anything, by seat."""
    return [{"kind": "output", "seat": seat, "text": text} for seat, text in sorted(outputs.items()) if text]


def write_log(path: str | os.PathLike[str], records: Iterable[dict[str, Any]], key: bytes | None = None) -> None:
    """Write a whole log from its records (the writer adds the `end`), signed when a key is given."""
    writer = LogWriter(path, key)
    try:
        for record in records:
            writer.write(record)
    finally:
        writer.close()


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
    truncation: str = ""  # why the log counts as truncated (empty when it does not)

    @property
    def format(self) -> int:
        """The format version the log was written in."""
        return int(self.header["format"])

    @property
    def moves(self) -> list[dict[str, Any]]:
        """The move records, in ply order."""
        return [r for r in self.records if r["kind"] == "move"]

    @property
    def plies(self) -> int:
        """The plies the move records reach (a simultaneous turn is one ply of several records)."""
        return max((int(r["ply"]) for r in self.moves), default=0)

    @property
    def names(self) -> list[str]:
        """The bot name of every seat."""
        seats = self.header.get("seats", [])
        return [str(s.get("name", f"seat {i}")) if isinstance(s, dict) else str(s) for i, s in enumerate(seats)]

    def to_json_data(self) -> dict[str, Any]:
        """The whole log as one JSON-able map (what `arena replay --json` prints)."""
        return {
            "header": self.header,
            "records": self.records,
            "result": self.result,
            "output": {str(k): v for k, v in self.output.items()},
            "truncated": self.truncated,
            "truncation": self.truncation,
        }


def _type_ok(value: Any, kind: str) -> bool:
    if kind == INT:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == OPT_INT:
        return value is None or _type_ok(value, INT)
    if kind == NUM:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == STR:
        return isinstance(value, str)
    if kind == LIST:
        return isinstance(value, (list, tuple))
    if kind == MAP:
        return isinstance(value, dict)
    if kind == BOOL:
        return isinstance(value, bool)
    if kind == BIN:
        return isinstance(value, bytes)
    return True


def check_record(record: Any, index: int, source: str) -> dict[str, Any]:
    """Return record if it is a map whose known fields have the right types; else LogError."""
    if not isinstance(record, dict) or not isinstance(record.get("kind"), str):
        raise LogError(f"{source}: record {index} is not a map with a kind: {record!r:.80}")
    for name, kind, required in FIELDS.get(record["kind"], ()):
        if name not in record:
            if required:
                raise LogError(f"{source}: record {index} ({record['kind']}) has no {name}")
        elif not _type_ok(record[name], kind):
            raise LogError(f"{source}: record {index} ({record['kind']}): {name} must be {kind}, "
                           f"got {record[name]!r:.60}")
    return record


def from_records(records: Iterable[Any], source: str, cut: str = "") -> MatchLog:
    """Build a MatchLog from the records of a stream (cut: why the stream ended early, if it did)."""
    items = iter(records)
    header = next(items, None)
    if not isinstance(header, dict) or header.get("kind") != "header" or header.get("magic") != MAGIC:
        raise LogError(f"{source}: not an arena match log (no header record)")
    fmt = header.get("format")
    if fmt not in READ_FORMATS:
        raise LogError(f"{source}: log format {fmt!r} is not one this arena reads ({READ_FORMATS})")
    check_record(header, 0, source)
    log_ = MatchLog(header=header)
    ended = False
    count = 1
    for index, record in enumerate(items, start=1):
        check_record(record, index, source)
        kind = record["kind"]
        if kind == MAC_KIND:
            continue  # the signature's; arena/logs/signing.py checks them
        if ended:
            raise LogError(f"{source}: record {index} ({kind}) after the end record")
        if kind == "end":
            if record["records"] != count:
                raise LogError(f"{source}: end record counts {record['records']} records, the log holds {count}")
            ended = True
            continue
        count += 1
        if kind == "result":
            log_.result = record
        elif kind == "output":
            log_.output[record["seat"]] = record["text"]
        elif log_.result is not None and kind in ("move", "event", "illegal", "resign", "ready"):
            raise LogError(f"{source}: record {index} ({kind}) after the result")
        else:
            # Unknown kinds (from a newer writer of the same format) are kept, and ignored
            # by replay and verification.
            log_.records.append(record)
    if cut:
        log_.truncation = cut
    elif log_.result is None:
        log_.truncation = "no result record (the match did not finish: crashed referee?)"
    elif fmt >= 2 and not ended:
        log_.truncation = "no end record (the writer was stopped after the result)"
    log_.truncated = bool(log_.truncation)
    return log_


def _from_json(data: bytes, source: str) -> MatchLog:
    try:
        dump = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise LogError(f"{source}: invalid JSON: {exc}") from None
    if not isinstance(dump, dict) or "header" not in dump:
        raise LogError(f"{source}: JSON is not a match log dump")
    records = [dump["header"], *(dump.get("records") or [])]
    if dump.get("result") is not None:
        records.append(dump["result"])
    output = dump.get("output") or {}
    if not isinstance(output, dict):
        raise LogError(f"{source}: output must be a map of seat to text")
    for seat, text in output.items():
        try:
            records.append({"kind": "output", "seat": int(seat), "text": text})
        except ValueError:
            raise LogError(f"{source}: output seat {seat!r} is not a number") from None
    cut = str(dump.get("truncation") or ("truncated" if dump.get("truncated") else ""))
    if isinstance(dump["header"], dict) and dump["header"].get("format", 0) >= 2 and not cut:
        records.append({"kind": "end", "records": len(records)})  # the dump is a complete document
    return from_records(records, source, cut)


def _from_msgpack(data: bytes, source: str) -> MatchLog:
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    records = []
    try:
        for record in unpacker:
            records.append(record)
    except (msgpack.ExtraData, msgpack.FormatError, msgpack.StackError, ValueError) as exc:
        raise LogError(f"{source}: corrupt log: {exc}") from None
    if not records:
        raise LogError(f"{source}: empty log")
    cut = ""
    if unpacker.tell() < len(data):
        cut = f"the last record is cut short at byte {unpacker.tell()} of {len(data)} (crashed writer?)"
    return from_records(records, source, cut)


def parse_log(data: bytes, source: str = "<log>") -> MatchLog:
    """Parse log bytes: the msgpack stream, or the JSON dump of `arena replay --json`."""
    if data.lstrip()[:1] == b"{":
        return _from_json(data, source)
    return _from_msgpack(data, source)


def read_log_bytes(path: str | os.PathLike[str]) -> bytes:
    """A log file's bytes (for parse_log and the signature check); LogError when unreadable or too large."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_LOG_BYTES:
            raise LogError(f"{path}: larger than {MAX_LOG_BYTES >> 20} MiB")
        return path.read_bytes()
    except OSError as exc:
        raise LogError(f"cannot read {path}: {exc.strerror}") from None


def read_log(path: str | os.PathLike[str]) -> MatchLog:
    """Read a log file: the msgpack stream, or the JSON dump of `arena replay --json`."""
    return parse_log(read_log_bytes(path), str(path))
