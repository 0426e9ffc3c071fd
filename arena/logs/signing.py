"""Signed match logs: the running HMAC-SHA256 over a log's records, and the keys that sign them.

A signed log (format 3 and later, protocol/LOGS.md) follows every record with a `mac` record:
mac_i = HMAC-SHA256(key, mac_{i-1} || the exact bytes of record i), mac_{-1} empty, record 0
the header. Chaining makes every prefix that ends on a mac checkable on its own, so a log
cut by a crash is trusted up to its last mac, while any edit, insertion, removal or
reordering of records breaks the chain at the first record it touches.

Keys are 32 random bytes, stored as hex: a tournament results directory's `DIR/log.key`
(every log of `DIR/logs/`), and the user's own key for single matches and `arena play`.
Neither is ever handed to a bot (the sandbox hides both places).
"""

from __future__ import annotations

import enum
import hashlib
import hmac
import logging
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgpack

log = logging.getLogger(__name__)

KEY_FILE = "log.key"  # in a results directory, and in the user's arena config directory
KEY_BYTES = 32  # a new key's length
MIN_KEY_BYTES = 16  # a key file holding less is refused (--key files written by hand)
KEY_ID_CHARS = 16
MAC_KIND = "mac"
LOGS_DIR = "logs"  # a results directory keeps its logs here


class KeyFileError(ValueError):
    """A key file that cannot be read or does not hold a key."""


class SignatureStatus(enum.StrEnum):
    """What a log's signature shows."""

    SIGNED = "signed"  # every record, up to the writer's `end`, carries a valid mac
    TRUNCATED = "truncated"  # valid up to a record, then cut: what follows is not trusted
    UNSIGNED = "unsigned"  # format 1 or 2, a JSON dump, or written without a key
    FORGED = "forged"  # a mac that does not match, a missing mac, bytes after the end, another key
    UNKNOWN_KEY = "unknown key"  # signed, but the key is not available to check it


@dataclass(frozen=True)
class Signature:
    """The outcome of checking a log's signature."""

    status: SignatureStatus
    records: int = 0  # records (mac records not counted, the header counted) covered by valid macs
    key_id: str = ""  # the key the log names (empty when unsigned)
    detail: str = ""  # one line: why, or what
    trusted_bytes: int = 0  # the prefix of the data the valid macs cover

    @property
    def ok(self) -> bool:
        """True only for a complete log whose every record is signed by the key it was checked with."""
        return self.status is SignatureStatus.SIGNED


def key_id(key: bytes) -> str:
    """The public name of a key: the first 16 hex digits of its SHA-256 (says nothing of the key)."""
    return hashlib.sha256(key).hexdigest()[:KEY_ID_CHARS]


class MacChain:
    """The running MAC of a log: one HMAC per record, each chained to the one before."""

    def __init__(self, key: bytes) -> None:
        if len(key) < MIN_KEY_BYTES:
            raise ValueError(f"a log key must have at least {MIN_KEY_BYTES} bytes")
        self._base = hmac.new(key, digestmod=hashlib.sha256)  # copied per record: the key is hashed once
        self.last = b""

    def next(self, record: bytes) -> bytes:
        """The mac of the next record's bytes; the chain moves on to it."""
        mac = self._base.copy()
        mac.update(self.last)
        mac.update(record)
        self.last = mac.digest()
        return self.last


def mac_record(mac: bytes) -> dict[str, Any]:
    """The record that follows a record in a signed log."""
    return {"kind": MAC_KIND, "mac": mac}


# --- keys -------------------------------------------------------------------------------


def read_key_file(path: str | os.PathLike[str]) -> bytes:
    """The key a key file holds (hex digits); KeyFileError when it cannot be read or holds none."""
    key = _load(Path(path))
    if key is None:
        raise KeyFileError(f"cannot read key {path}: no such file")
    return key


def _load(path: Path) -> bytes | None:
    """The key at path, None when there is no such file."""
    try:
        text = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise KeyFileError(f"cannot read key {path}: {exc.strerror}") from None
    try:
        key = bytes.fromhex(text.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        raise KeyFileError(f"{path}: not a key (hex digits expected)") from None
    if len(key) < MIN_KEY_BYTES:
        raise KeyFileError(f"{path}: a key needs at least {MIN_KEY_BYTES} bytes ({2 * MIN_KEY_BYTES} hex digits)")
    return key


def _create(path: Path) -> bytes:
    """A new random key at path (mode 0600); the key already there if another process was first."""
    key = secrets.token_bytes(KEY_BYTES)
    # Written whole to a private temporary file, then linked to its name: link(2) fails when
    # the name exists (the guarantee of O_EXCL), and no reader ever sees a half-written key.
    fd, tmp = tempfile.mkstemp(prefix=f".{KEY_FILE}.", dir=path.parent)
    try:
        os.fchmod(fd, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as file:
            file.write(key.hex() + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return read_key_file(path)
        except OSError:  # a file system without hard links: O_EXCL itself
            try:
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return read_key_file(path)
            with os.fdopen(out, "w", encoding="ascii") as file:
                file.write(key.hex() + "\n")
    finally:
        os.unlink(tmp)
    return key


def results_key(directory: str | os.PathLike[str], create: bool = False) -> bytes | None:
    """A results directory's key (DIR/log.key), created (0600) when asked and missing; else None.

    Raises KeyFileError when the file exists but cannot be read or holds no key, and OSError
    when it cannot be created: a tournament must not sign with nothing.
    """
    path = Path(directory) / KEY_FILE
    key = _load(path)
    if key is None and create:
        key = _create(path)
    return key


def user_key_path() -> Path:
    """Where the user's key lives: $XDG_CONFIG_HOME/arena/log.key (default ~/.config/arena/log.key)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".config"  # XDG: relative values are ignored
    return root / "arena" / KEY_FILE


def user_key(create: bool = False) -> bytes | None:
    """The user's key for single matches and `arena play`, created (0600 in a 0700 directory) when asked.

    Never raises: a key that cannot be read or created is a warning, and logs are written unsigned.
    """
    try:
        path = user_key_path()
        key = _load(path)
        if key is None and create:
            path.parent.mkdir(parents=True, exist_ok=True)
            os.chmod(path.parent, 0o700)  # arena's own directory: nobody else lists or reads it
            key = _create(path)
        return key
    except (OSError, KeyFileError, RuntimeError) as exc:  # RuntimeError: no home directory
        log.warning("the user's log key is not usable (%s): logs are not signed", exc)
        return None


def results_dir_of(log_path: str | os.PathLike[str]) -> Path | None:
    """The results directory a log belongs to: DIR when the log is DIR/logs/NAME and DIR/log.key exists."""
    path = Path(os.path.abspath(log_path))
    directory = path.parent.parent
    if path.parent.name == LOGS_DIR and (directory / KEY_FILE).exists():
        return directory
    return None


def logged_key_id(log_path: str | os.PathLike[str]) -> str:
    """The key id a log's header names ("" when it names none or is not a msgpack log)."""
    try:
        with open(log_path, "rb") as file:
            header = msgpack.Unpacker(file, raw=False, strict_map_key=False).unpack()
    except Exception:  # noqa: BLE001 - any unreadable start means: no key named
        return ""
    value = header.get("key_id") if isinstance(header, dict) else None
    return value if isinstance(value, str) else ""


def find_key(log_path: str | os.PathLike[str], explicit: str | os.PathLike[str] | None = None
             ) -> tuple[bytes | None, str]:
    """The key to check a log with, and where it came from: --key, the results directory, or the user's.

    An explicit key and a results directory's key are used whatever key the log names (a
    log in DIR/logs/ signed by another key is forged there); the user's key only when its
    id is the one the log names. KeyFileError only for an explicit key file.
    """
    if explicit is not None:
        return read_key_file(explicit), f"--key {explicit}"
    directory = results_dir_of(log_path)
    if directory is not None:
        path = directory / KEY_FILE
        try:
            return read_key_file(path), f"results directory {path}"
        except KeyFileError as exc:
            return None, str(exc)
    wanted = logged_key_id(log_path)
    if wanted:
        key = user_key(create=False)
        if key is not None and key_id(key) == wanted:
            return key, f"user key {user_key_path()}"
    return None, ""


# --- checking ---------------------------------------------------------------------------


def check_signature(data: bytes, key: bytes | None) -> Signature:
    """Check the mac chain of a log's bytes with key (None: no key available)."""
    if data.lstrip()[:1] == b"{":
        return Signature(SignatureStatus.UNSIGNED, detail="a JSON dump (signatures are kept in the msgpack log)")
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=len(data) + 1)
    unpacker.feed(data)
    try:
        header = unpacker.unpack()
    except Exception:  # noqa: BLE001 - OutOfData, FormatError, StackError, ValueError: no log at all
        header = None
    if not isinstance(header, dict) or header.get("kind") != "header":
        return Signature(SignatureStatus.UNSIGNED, detail="no header record: not a match log")
    named = header.get("key_id")
    if named is None:
        return _unsigned(header, unpacker)
    if not isinstance(named, str) or not named:
        return Signature(SignatureStatus.FORGED, detail=f"the header's key_id {named!r} is not a key id")
    if key is None:
        return Signature(SignatureStatus.UNKNOWN_KEY, key_id=named,
                         detail=f"signed by key {named}, which is not available here")
    if key_id(key) != named:
        return Signature(SignatureStatus.FORGED, key_id=named,
                         detail=f"signed by key {named}, not by the key it was checked with ({key_id(key)})")
    return _walk(data, unpacker, MacChain(key), named)


def _unsigned(header: dict[str, Any], unpacker: msgpack.Unpacker) -> Signature:
    """The verdict on a log whose header names no key."""
    fmt = header.get("format")
    if header.get("signed"):
        return Signature(SignatureStatus.FORGED, detail="the header says signed but names no key")
    try:
        if any(isinstance(r, dict) and r.get("kind") == MAC_KIND for r in unpacker):
            return Signature(SignatureStatus.FORGED, detail="mac records in a log whose header names no key "
                                                            "(its key id was removed)")
    except Exception:  # noqa: BLE001 - corrupt bytes are for the reader to report
        pass
    if isinstance(fmt, int) and fmt >= 3:
        return Signature(SignatureStatus.UNSIGNED, detail=f"format {fmt}, written without a key")
    return Signature(SignatureStatus.UNSIGNED, detail=f"format {fmt}")


def _describe(record: Any) -> str:
    """A record's kind, with its ply when it has one: "move of ply 12"."""
    if not isinstance(record, dict):
        return type(record).__name__
    kind, ply = record.get("kind"), record.get("ply")
    return f"{kind} of ply {ply}" if isinstance(ply, int) and kind in ("move", "illegal", "resign") else f"{kind}"


def _walk(data: bytes, unpacker: msgpack.Unpacker, chain: MacChain, named: str) -> Signature:
    """Follow the mac chain of a signed log from its header to where it ends.

    Records are numbered from 0 (the header), mac records not counted.
    """
    pending: tuple[int, int, str] | None = (0, unpacker.tell(), "header")  # a record awaiting its mac
    records = trusted = 0  # records covered by valid macs; the bytes they and their macs take
    last = ""  # the last signed record, described
    ended = False
    end = unpacker.tell()  # where the last complete msgpack value ends

    def forged(detail: str) -> Signature:
        return Signature(SignatureStatus.FORGED, records, named, detail, trusted)

    while True:
        start = end
        try:
            record = unpacker.unpack()
        except msgpack.OutOfData:
            break
        except Exception:  # noqa: BLE001 - FormatError, StackError, ValueError: not what a writer writes
            return forged(f"the bytes at offset {start} are not a msgpack record")
        end = unpacker.tell()
        if not (isinstance(record, dict) and record.get("kind") == MAC_KIND):
            if ended:
                return forged(f"{len(data) - trusted} bytes after the signed end record")
            if pending is not None:
                return forged(f"record {records} ({pending[2]}) has no mac: records were inserted or a mac removed")
            pending = (start, end, _describe(record))
            continue
        if pending is None:
            return forged(f"a mac at offset {start} follows no record: record {records} was removed")
        want = chain.next(data[pending[0]:pending[1]])
        got = record.get("mac")
        if not isinstance(got, bytes) or not hmac.compare_digest(got, want):
            return forged(f"record {records} ({pending[2]}) does not match its mac: it was changed, "
                          f"or a record before it was removed")
        records, trusted, last, ended = records + 1, end, pending[2], pending[2] == "end"
        pending = None
    cut = end < len(data)  # the bytes of a value cut short
    if ended and pending is None and not cut:
        return Signature(SignatureStatus.SIGNED, records, named, f"all {records} records", trusted)
    if ended:
        return forged(f"{len(data) - trusted} bytes after the signed end record")
    then = " and ".join(([f"record {records} ({pending[2]}) without its mac"] if pending is not None else [])
                        + (["a record cut short"] if cut else [])) or "no end record"
    if not records:
        return Signature(SignatureStatus.TRUNCATED, 0, named, f"cut before the header's mac ({then}): nothing "
                                                              f"is trusted")
    return Signature(SignatureStatus.TRUNCATED, records, named,
                     f"signed up to record {records - 1} ({last}), then {then}: nothing after it is trusted",
                     trusted)
