"""Reading an entrant's archive with every size bounded before it is allocated: tar (plain, gzip, bzip2, xz) and zip.

Python's `tarfile` and `zipfile` do not read uploads here. `tarfile` reads a PAX or GNU
long-name header whole, whatever size it declares (a 952-byte .tar.bz2 can declare a
gigabyte), and its extraction filter has been bypassed again and again (CVE-2025-4517 and
the ones after it: `tarfile_filter_warning`). This reader is small and strict: a member is
a plain file or a folder with a checked relative name; every header, every extended header
and every decompressed byte is counted against a limit while it streams; links, devices and
other special members are reported as such and never followed; nothing is written here: the
caller gets names and bytes. The server runs it in the sandbox, as a bot uid with a memory
limit of its own (arena.server.unpack). Stdlib only.
"""

from __future__ import annotations

import bz2
import lzma
import re
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

BLOCK = 512
CHUNK = 64 * 1024
XZ_MEMORY = 96 * 2**20  # an xz stream's dictionary is allocated before any output: xz -9 needs 64 MiB
MAGIC_GZIP = b"\x1f\x8b"
MAGIC_BZ2 = b"BZh"
MAGIC_XZ = b"\xfd7zXZ\x00"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_OCTAL = re.compile(rb"[0-7]+")
_HIGH_BYTES = bytes(range(128, 256))
_DRIVE = re.compile(r"[A-Za-z]:")
_TAR_KINDS = {b"1": "a hard link", b"2": "a symbolic link", b"3": "a character device", b"4": "a block device",
              b"6": "a FIFO", b"S": "a sparse file", b"V": "a volume label", b"M": "a multi-volume part",
              b"D": "a GNU dump folder", b"N": "an old GNU long name"}


class ArchiveError(ValueError):
    """An archive that cannot be accepted; one line. too_large: over a limit (HTTP 413), else malformed (422)."""

    def __init__(self, message: str, too_large: bool = False) -> None:
        super().__init__(message)
        self.too_large = too_large


@dataclass(frozen=True)
class ArchiveLimits:
    """What one archive may hold."""

    max_files: int = 200  # members of every kind
    max_bytes: int = 20 * 2**20  # file contents unpacked, in all
    max_header: int = 16 * 1024  # the data of one PAX extended header or GNU long name
    max_path: int = 1024  # bytes of a member's path
    max_depth: int = 32  # folders in a member's path
    max_name: int = 255  # bytes of one part of a path


@dataclass(frozen=True)
class Member:
    """One member: kind "file", "dir" or "special" (then `detail` says what it is)."""

    parts: tuple[str, ...]  # its path, checked: no "", ".", ".." or control characters
    raw: str  # its name as written in the archive
    kind: str
    content: bytes = b""
    executable: bool = False
    detail: str = ""


def member_parts(raw: str, limits: ArchiveLimits) -> tuple[str, ...]:
    """The checked parts of a member's name; ArchiveError when it leaves the folder or breaks a limit."""
    text = raw.replace("\\", "/")
    if text.startswith("/") or _DRIVE.match(text):
        raise ArchiveError(f"{raw!r} points outside the archive's directory")
    parts = tuple(part for part in text.split("/") if part not in ("", "."))
    if ".." in parts:
        raise ArchiveError(f"{raw!r} points outside the archive's directory")
    if _CONTROL.search(text):
        raise ArchiveError(f"{raw!r}: control characters in a name")
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_path:
        raise ArchiveError(f"a name of more than {limits.max_path} bytes ({raw[:40]!r}...)", too_large=True)
    if len(parts) > limits.max_depth:
        raise ArchiveError(f"{raw!r} lies more than {limits.max_depth} folders deep", too_large=True)
    for part in parts:
        if len(part.encode("utf-8", "surrogatepass")) > limits.max_name:
            raise ArchiveError(f"{raw[:60]!r}: a part of its name is over {limits.max_name} bytes", too_large=True)
    return parts


def read_archive(data: bytes, zip_format: bool, limits: ArchiveLimits) -> Iterator[Member]:
    """Every member of a zip (zip_format) or a tar in any of its compressions, each checked before the next is read.

    Lazy: a caller that stops at a member it refuses reads nothing after it.
    """
    if zip_format:
        yield from _zip_members(data, limits)
    else:
        yield from _tar_members(_Source(data, limits), limits)


class _Counter:
    """The file bytes and members read so far, against the limits."""

    def __init__(self, limits: ArchiveLimits) -> None:
        self.limits = limits
        self.members = 0
        self.bytes = 0

    def member(self) -> None:
        self.members += 1
        if self.members > self.limits.max_files:
            raise ArchiveError(f"more than {self.limits.max_files} entries", too_large=True)

    def content(self, size: int) -> None:
        if size < 0:
            raise ArchiveError("a member declares a negative size")
        self.bytes += size
        if self.bytes > self.limits.max_bytes:
            raise ArchiveError(f"more than {self.limits.max_bytes} bytes unpacked", too_large=True)


# --- tar --------------------------------------------------------------------------------


class _Source:
    """A tar's bytes, decompressed only as far as they are read (gzip, bzip2, xz or none, told by their magic)."""

    def __init__(self, data: bytes, limits: ArchiveLimits) -> None:
        self.data = memoryview(data)
        self.pos = 0
        self.buffer = bytearray()
        self.codec = ("gzip" if data.startswith(MAGIC_GZIP) else "bzip2" if data.startswith(MAGIC_BZ2) else
                      "xz" if data.startswith(MAGIC_XZ) else "")
        self.decoder: Any = self._decoder() if self.codec else None
        self.ended = False

    def _decoder(self) -> Any:
        if self.codec == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        if self.codec == "bzip2":
            return bz2.BZ2Decompressor()
        return lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=XZ_MEMORY)

    def read(self, size: int) -> bytes:
        """Exactly size bytes; ArchiveError when the archive ends first."""
        while len(self.buffer) < size:
            if not self._more(size - len(self.buffer)):
                raise ArchiveError("the archive is truncated")
        chunk = bytes(self.buffer[:size])
        del self.buffer[:size]
        return chunk

    def at_end(self) -> bool:
        """True when nothing is left (checked at a block boundary)."""
        return not self.buffer and not self._more(1)

    def _more(self, wanted: int) -> bool:
        """Add some bytes to the buffer (at most CHUNK more than wanted); False at the end."""
        if self.ended:
            return False
        if not self.codec:
            taken = self.data[self.pos:self.pos + max(wanted, CHUNK)]
            self.pos += len(taken)
            self.buffer += taken
            self.ended = not taken
            return bool(taken)
        try:
            return self._decompress(min(max(wanted, BLOCK), CHUNK))
        except (zlib.error, OSError, EOFError, lzma.LZMAError, ValueError) as exc:
            if isinstance(exc, lzma.LZMAError) and "emory" in str(exc):
                raise ArchiveError(f"its xz stream needs more than {XZ_MEMORY >> 20} MiB to unpack",
                                   too_large=True) from None
            raise ArchiveError(f"its {self.codec} stream is corrupt ({exc})") from None

    def _decompress(self, room: int) -> bool:
        for _ in range(64):  # each pass consumes input, gives output or starts the next stream
            decoder: Any = self.decoder
            if decoder.eof:
                rest = bytes(decoder.unused_data) + bytes(self.data[self.pos:])
                magic = {"gzip": MAGIC_GZIP, "bzip2": MAGIC_BZ2, "xz": MAGIC_XZ}[self.codec]
                if not rest.startswith(magic):  # the end (trailing zeros or padding are not read)
                    self.ended = True
                    return False
                self.data, self.pos = memoryview(rest), 0  # another stream follows (pigz, pbzip2, xz -T)
                self.decoder = self._decoder()
                continue
            if self.codec == "gzip":
                feed = decoder.unconsumed_tail or self._input()
                out = decoder.decompress(feed, room)
                starved = not feed and not out
            else:
                feed = self._input() if decoder.needs_input else b""
                out = decoder.decompress(feed, room)
                starved = not feed and not out and decoder.needs_input
            if out:
                self.buffer += out
                return True
            if starved and not decoder.eof:
                raise ArchiveError(f"its {self.codec} stream is truncated")
        raise ArchiveError(f"its {self.codec} stream gives nothing")

    def _input(self) -> bytes:
        taken = bytes(self.data[self.pos:self.pos + CHUNK])
        self.pos += len(taken)
        return taken


def _number(field: bytes, what: str) -> int:
    """A header's number: octal text, or base-256 when the first byte has its high bit set."""
    if field and field[0] & 0x80:
        if field[0] == 0xFF:
            raise ArchiveError(f"a negative {what} in a tar header")
        value = int.from_bytes(bytes([field[0] & 0x7F]) + field[1:], "big")
    else:
        text = field.split(b"\0", 1)[0].strip(b" ")
        if not text:
            return 0
        if not _OCTAL.fullmatch(text):
            raise ArchiveError(f"a bad {what} in a tar header ({text[:16]!r})")
        value = int(text, 8)
    return value


def _checksum_ok(block: bytes) -> bool:
    text = block[148:156].split(b"\0", 1)[0].strip(b" ")
    if not _OCTAL.fullmatch(text) or len(text) > 8:
        return False
    stored = int(text, 8)
    blanked = block[:148] + b" " * 8 + block[156:]
    unsigned = sum(blanked)
    if stored == unsigned:
        return True
    high = len(blanked) - len(blanked.translate(None, _HIGH_BYTES))
    return stored == unsigned - 256 * high  # some old tars summed signed chars


def _pax(data: bytes) -> dict[str, bytes]:
    """The records of a PAX extended header ("LENGTH key=value\\n" each), checked strictly."""
    records: dict[str, bytes] = {}
    pos = 0
    while pos < len(data) and data[pos] != 0:
        space = data.find(b" ", pos, pos + 12)
        digits = data[pos:space] if space > pos else b""
        if not digits.isdigit():
            raise ArchiveError("a malformed PAX header")
        length = int(digits)
        end = pos + length
        if length < len(digits) + 4 or end > len(data) or data[end - 1:end] != b"\n":
            raise ArchiveError("a malformed PAX header")
        key, equals, value = data[space + 1:end - 1].partition(b"=")
        if not equals or not key:
            raise ArchiveError("a malformed PAX header")
        records[key.decode("utf-8", "replace")] = value
        pos = end
    return records


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"{what} {raw[:40]!r} is not UTF-8") from None


def _tar_members(source: _Source, limits: ArchiveLimits) -> Iterator[Member]:
    counter = _Counter(limits)
    extensions = 0  # extended headers so far: at most two per member, and a few global ones
    long_name: str | None = None
    pax: dict[str, bytes] = {}
    first = True
    while True:
        block = b"" if source.at_end() else source.read(BLOCK)
        if not any(block):  # no end-of-archive blocks (tolerated, as tar does), or the marker
            if long_name is not None or pax:
                raise ArchiveError("the archive ends after an extended header")
            return  # whatever follows the marker is not read
        if not _checksum_ok(block):
            raise ArchiveError("not a readable tar archive (a header's checksum is wrong)" if not first else
                               "not a readable tar archive")
        first = False
        kind = block[156:157]
        size = _number(block[124:136], "size")
        if kind in (b"x", b"g", b"L", b"K"):
            extensions += 1
            if extensions > 2 * limits.max_files + 8:
                raise ArchiveError("too many extended headers", too_large=True)
            data = _extension_data(source, kind, size, limits)
            if kind == b"L":
                long_name = _text(data.split(b"\0", 1)[0], "a long name")
            elif kind == b"x":
                pax = _pax(data)
            else:
                _pax(data)  # a global header: checked, and ignored (it names no member)
            continue
        counter.member()
        name = _member_name(block, long_name, pax)
        if "size" in pax:
            if not pax["size"].isdigit() or len(pax["size"]) > 20:  # int() refuses thousands of digits
                raise ArchiveError("a bad size in a PAX header")
            size = int(pax["size"])
        sparse = any(key.startswith("GNU.sparse.") for key in pax)
        long_name, pax = None, {}
        yield _tar_member(source, counter, block, name, size, sparse, limits)


def _extension_data(source: _Source, kind: bytes, size: int, limits: ArchiveLimits) -> bytes:
    """The data of an extended header (PAX, global PAX, GNU long name), its size bounded first."""
    if kind == b"K":
        raise ArchiveError("a GNU long link name: links are not accepted")
    cap = limits.max_header if kind != b"L" else limits.max_path + 1
    if size > cap:
        what = "a PAX header" if kind != b"L" else "a GNU long name"
        raise ArchiveError(f"{what} of {size} bytes (the limit is {cap})", too_large=True)
    return source.read(-(-size // BLOCK) * BLOCK)[:size]


def _member_name(block: bytes, long_name: str | None, pax: dict[str, bytes]) -> str:
    """A member's name: the PAX path, else the GNU long name, else the header's (with ustar's prefix)."""
    if "path" in pax:
        return _text(pax["path"], "a PAX path")
    if long_name is not None:
        return long_name
    name = _text(block[0:100].split(b"\0", 1)[0], "a name")
    prefix = block[345:500].split(b"\0", 1)[0]
    if block[257:263] == b"ustar\0" and prefix:  # POSIX ustar: the name's leading part
        name = _text(prefix, "a name") + "/" + name
    return name


def _tar_member(source: _Source, counter: _Counter, block: bytes, name: str, size: int, sparse: bool,
                limits: ArchiveLimits) -> Member:
    """The member a header starts: a file with its content, a folder, or a special entry (its data skipped)."""
    kind = block[156:157]
    parts = member_parts(name, limits)
    executable = bool(_number(block[100:108], "mode") & 0o111)
    padded = -(-size // BLOCK) * BLOCK
    if kind in (b"0", b"\0", b"7") and not sparse and not (kind == b"\0" and name.endswith("/")):
        counter.content(size)
        content = source.read(padded)[:size]
        return Member(parts, name, "file", content, executable)
    if kind == b"5" or (kind == b"\0" and name.endswith("/")):
        counter.content(size)  # a folder's data means nothing, but it is read all the same
        source.read(padded)
        return Member(parts, name, "dir")
    # the caller refuses it (unless it drops it: litter such as __MACOSX); its data is skipped
    counter.content(size)
    source.read(padded)
    detail = "a sparse file" if sparse else _TAR_KINDS.get(kind, f"an entry of type {kind!r}")
    return Member(parts, name, "special", detail=detail)


# --- zip --------------------------------------------------------------------------------


_EOCD = struct.Struct("<4s4H2LH")  # end of central directory
_EOCD64_LOCATOR = struct.Struct("<4sLQL")
_EOCD64 = struct.Struct("<4sQ2H2L4Q")
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")  # a central directory entry
_LOCAL = struct.Struct("<4s2B4HL2L2H")  # a member's local header
_EXTRA_ZIP64 = 0x0001


@dataclass
class _ZipEntry:
    name: str
    raw_name: bytes
    method: int
    crc: int
    compressed: int
    size: int
    offset: int
    system: int
    attributes: int
    start: int = 0  # where its data begins (after its local header)


def _zip_eocd(data: bytes, limits: ArchiveLimits) -> tuple[int, int, int]:
    """(entries, where the central directory starts, its offsets' shift); refuses too many entries at once."""
    where = data.rfind(b"PK\x05\x06", max(0, len(data) - _EOCD.size - 65535))
    if where < 0 or where + _EOCD.size > len(data):
        raise ArchiveError("not a readable zip archive (no end of central directory)")
    _, disk, cd_disk, _, entries, cd_size, cd_offset, _ = _EOCD.unpack_from(data, where)
    if disk or cd_disk:
        raise ArchiveError("a zip archive spanning several disks")
    start = where
    if entries == 0xFFFF or 0xFFFFFFFF in (cd_size, cd_offset):
        locator = where - _EOCD64_LOCATOR.size
        if locator < 0 or data[locator:locator + 4] != b"PK\x06\x07":
            raise ArchiveError("not a readable zip archive (a zip64 locator is missing)")
        record_at = locator - _EOCD64.size  # where it must be (data may precede the archive)
        if record_at < 0 or data[record_at:record_at + 4] != b"PK\x06\x06":
            raise ArchiveError("not a readable zip archive (a zip64 end record is missing)")
        _, _, _, _, _, _, _, entries, cd_size, cd_offset = _EOCD64.unpack_from(data, record_at)
        start = record_at
    if entries > limits.max_files:
        raise ArchiveError(f"{entries} entries, over the limit of {limits.max_files}", too_large=True)
    if cd_size > start or cd_offset > start - cd_size:
        raise ArchiveError("not a readable zip archive (its central directory lies outside the file)")
    cd_start = start - cd_size
    return entries, cd_start, cd_start - cd_offset  # a self-extractor's stub before the archive shifts offsets


def _zip64_sizes(extra: bytes, entry: _ZipEntry) -> None:
    """Fill the fields a zip64 extra field holds (those set to 0xFFFFFFFF in the directory)."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack_from("<2H", extra, pos)
        body = extra[pos + 4:pos + 4 + length]
        pos += 4 + length
        if tag != _EXTRA_ZIP64:
            continue
        values = [value for (value,) in struct.iter_unpack("<Q", body[:len(body) // 8 * 8])]
        for field in ("size", "compressed", "offset"):
            if getattr(entry, field) == 0xFFFFFFFF:
                if not values:
                    raise ArchiveError("not a readable zip archive (a zip64 field is missing)")
                setattr(entry, field, values.pop(0))
        return


def _zip_entries(data: bytes, limits: ArchiveLimits) -> tuple[list[_ZipEntry], int]:
    """The central directory's entries (sizes, offsets) and where it starts."""
    count, cd_start, shift = _zip_eocd(data, limits)
    entries = []
    pos = cd_start
    for _ in range(count):
        if pos + _CENTRAL.size > len(data) or data[pos:pos + 4] != b"PK\x01\x02":
            raise ArchiveError("not a readable zip archive (a central directory entry is damaged)")
        (_, _, system, _, _, flags, method, _, _, crc, compressed, size, name_length, extra_length,
         comment_length, _, _, attributes, offset) = _CENTRAL.unpack_from(data, pos)
        if name_length > limits.max_path:
            raise ArchiveError(f"a name of {name_length} bytes (the limit is {limits.max_path})", too_large=True)
        raw_name = data[pos + _CENTRAL.size:pos + _CENTRAL.size + name_length]
        extra = data[pos + _CENTRAL.size + name_length:pos + _CENTRAL.size + name_length + extra_length]
        pos += _CENTRAL.size + name_length + extra_length + comment_length
        if flags & 0x1:
            raise ArchiveError(f"{raw_name[:60]!r} is encrypted; send it unencrypted")
        name = raw_name.decode("utf-8", "replace") if flags & 0x800 else raw_name.decode("cp437")
        entry = _ZipEntry(name, raw_name, method, crc, compressed, size, offset, system, attributes)
        _zip64_sizes(extra, entry)
        entry.offset += shift
        entries.append(entry)
    return entries, cd_start


def _zip_check_layout(data: bytes, entries: list[_ZipEntry], cd_start: int) -> None:
    """Local headers where the directory says, names matching, no two members sharing bytes (overlap bombs)."""
    spans = []
    for entry in entries:
        at = entry.offset
        if at + _LOCAL.size > cd_start or data[at:at + 4] != b"PK\x03\x04":
            raise ArchiveError("not a readable zip archive (a member's local header is missing)")
        fields = _LOCAL.unpack_from(data, at)
        name_length, extra_length = fields[-2], fields[-1]
        if data[at + _LOCAL.size:at + _LOCAL.size + name_length] != entry.raw_name:
            raise ArchiveError(f"{entry.name[:60]!r}: its name differs between the directory and its header")
        entry.start = at + _LOCAL.size + name_length + extra_length
        spans.append((at, entry.start + entry.compressed))
    spans.sort()
    for (_, end), (next_start, _) in zip(spans, spans[1:], strict=False):
        if end > next_start:
            raise ArchiveError("two members share their bytes (an overlapping zip)", too_large=True)
    if spans and spans[-1][1] > cd_start:
        raise ArchiveError("not a readable zip archive (a member runs into the central directory)")


def _zip_inflate(data: bytes, entry: _ZipEntry) -> bytes:
    """A member's bytes, never more than it declares."""
    if entry.method == 0 and entry.compressed != entry.size:
        raise ArchiveError(f"{entry.name[:60]!r}: stored with {entry.compressed} bytes but declaring {entry.size}",
                           too_large=entry.compressed > entry.size)
    raw = data[entry.start:entry.start + entry.compressed]
    if entry.method == 0:
        out = raw
    elif entry.method in (8, 12):
        decoder = zlib.decompressobj(-zlib.MAX_WBITS) if entry.method == 8 else bz2.BZ2Decompressor()
        try:
            out = decoder.decompress(raw, entry.size + 1)
        except (zlib.error, OSError, EOFError, ValueError) as exc:
            raise ArchiveError(f"{entry.name[:60]!r}: its compressed data is corrupt ({exc})") from None
    else:
        raise ArchiveError(f"{entry.name[:60]!r}: compression method {entry.method} is not accepted "
                           "(use deflate, bzip2 or none)")
    if len(out) > entry.size:
        raise ArchiveError(f"{entry.name[:60]!r} unpacks to more than the {entry.size} bytes it declares",
                           too_large=True)
    if len(out) != entry.size or zlib.crc32(out) != entry.crc:
        raise ArchiveError(f"{entry.name[:60]!r}: its data is damaged (size or CRC)")
    return out


def _zip_members(data: bytes, limits: ArchiveLimits) -> Iterator[Member]:
    entries, cd_start = _zip_entries(data, limits)
    counter = _Counter(limits)
    for entry in entries:
        counter.content(entry.size)  # the declared sizes, all of them, before any is unpacked
    _zip_check_layout(data, entries, cd_start)
    for entry in entries:
        counter.member()
        parts = member_parts(entry.name, limits)
        mode = entry.attributes >> 16 if entry.system == 3 else 0  # Unix modes, as Info-ZIP stores them
        kind = mode & 0o170000
        if entry.name.endswith("/") or kind == 0o040000:
            yield Member(parts, entry.name, "dir")
        elif kind in (0, 0o100000):
            yield Member(parts, entry.name, "file", _zip_inflate(data, entry), bool(mode & 0o111))
        else:
            detail = {0o120000: "a symbolic link", 0o020000: "a character device", 0o060000: "a block device",
                      0o010000: "a FIFO", 0o140000: "a socket"}.get(kind, "a special file")
            yield Member(parts, entry.name, "special", detail=detail)


# --- the Python running the arena -------------------------------------------------------

# Releases of each branch from which `tarfile`'s extraction filters hold against the bypasses
# published so far (CVE records of the PSF): CVE-2025-4517 and its family (CVE-2025-4138,
# -4330, -4435, CVE-2024-12718; a symlink chain longer than PATH_MAX, hard links through links),
# fixed in 3.9.23, 3.10.18, 3.11.13, 3.12.11, 3.13.4 and 3.14.0b3; CVE-2026-82049 (a hard
# link to a symlink), fixed in 3.10.22, 3.11.17, 3.12.15, 3.13.16 and 3.14.0b1. Branches
# before 3.10 have no fixed release of the latter.
TARFILE_FIXED = {(3, 10): (3, 10, 22), (3, 11): (3, 11, 17), (3, 12): (3, 12, 15), (3, 13): (3, 13, 16)}
TARFILE_CVES = "CVE-2025-4517, CVE-2026-82049"


def tarfile_filter_warning(version: tuple[int, ...] | None = None) -> str:
    """One line when this Python's `tarfile` has an extraction filter with a known bypass, else ""."""
    version = tuple(version or sys.version_info[:3])
    release = ".".join(str(part) for part in version[:3])
    branch = version[:2]
    if branch >= (3, 14):
        return ""  # 3.14.0 shipped with both fixes
    fixed = TARFILE_FIXED.get(branch)
    if fixed is not None and version >= fixed:
        return ""
    advice = (f"{'.'.join(map(str, fixed))} or later" if fixed is not None else "3.10.22, 3.11.17, 3.12.15, "
              "3.13.16 or 3.14")
    return (f"Python {release}: tarfile's extraction filter has known bypasses ({TARFILE_CVES}); the arena never "
            f"unpacks an upload with it, but update to Python {advice}")
