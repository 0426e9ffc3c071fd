"""The upload reader: tar in every compression and zip, every size bounded before allocation, links never followed."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import struct
import subprocess
import sys
import tarfile
import time
import tracemalloc
import zipfile
import zlib

import pytest

from arena.launch.builds.archive import (
    ArchiveError,
    ArchiveLimits,
    Member,
    member_parts,
    read_archive,
    tarfile_filter_warning,
)

LIMITS = ArchiveLimits(max_files=20, max_bytes=2**20)
COMPRESS = {"none": lambda data: data, "gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}


def tar(members: list[tarfile.TarInfo | tuple[str, bytes]], fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as out:
        for member in members:
            if isinstance(member, tuple):
                info = tarfile.TarInfo(member[0])
                info.size = len(member[1])
                info.mode = 0o755 if member[0].endswith(".sh") else 0o644
                out.addfile(info, io.BytesIO(member[1]))
            else:
                out.addfile(member)
    return buffer.getvalue()


def header(name: bytes, kind: bytes, size: int, size_field: bytes = b"") -> bytes:
    """One ustar header block with a right checksum, declaring size (octal, or base-256 when it does not fit)."""
    block = bytearray(512)
    block[:len(name)] = name
    block[100:108] = b"0000644\0"
    block[124:136] = size_field or (b"%011o\0" % size if size < 8**11 else b"\x80" + size.to_bytes(11, "big"))
    block[156:157] = kind
    block[257:265] = b"ustar\x0000"
    block[148:156] = b" " * 8
    block[148:156] = b"%06o\0 " % sum(block)
    return bytes(block)


def read(data: bytes, zip_format: bool = False, limits: ArchiveLimits = LIMITS) -> list[Member]:
    return list(read_archive(data, zip_format, limits))


def refused(data: bytes, zip_format: bool = False, limits: ArchiveLimits = LIMITS) -> ArchiveError:
    with pytest.raises(ArchiveError) as caught:
        read(data, zip_format, limits)
    assert "\n" not in str(caught.value)
    return caught.value


@pytest.mark.parametrize("codec", sorted(COMPRESS))
def test_a_tar_reads_alike_in_every_compression_and_in_several_streams(codec: str) -> None:
    body = tar([("bot/arena.toml", b'run = "./bot"\n'), ("bot/run.sh", b"#!/bin/sh\n"), ("bot/é/ü.txt", b"x" * 5000)])
    members = read(COMPRESS[codec](body))
    assert [(m.parts, m.kind, len(m.content), m.executable) for m in members] == [
        (("bot", "arena.toml"), "file", 14, False), (("bot", "run.sh"), "file", 10, True),
        (("bot", "é", "ü.txt"), "file", 5000, False)]
    if codec in ("gzip", "bzip2"):  # pigz and pbzip2 write several streams
        half = len(body) // 1024 * 512
        assert read(COMPRESS[codec](body[:half]) + COMPRESS[codec](body[half:])) == members


def test_long_names_come_from_pax_gnu_and_ustar_prefixes() -> None:
    deep = "d" * 90 + "/" + "e" * 90 + "/file"
    for fmt in (tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT):
        assert read(tar([(deep, b"x")], fmt))[0].parts == ("d" * 90, "e" * 90, "file")


def test_a_pax_header_over_its_limit_is_refused_before_it_is_read() -> None:
    # It declares a terabyte and holds nothing: reading it would end in "truncated", not in this.
    error = refused(header(b"././@PaxHeader", b"x", 10**12))
    assert error.too_large and "a PAX header of 1000000000000 bytes (the limit is 16384)" in str(error)
    gnu = refused(header(b"././@LongLink", b"L", 5000))
    assert gnu.too_large and "a GNU long name of 5000 bytes" in str(gnu)


def test_a_member_over_the_byte_limit_is_refused_before_its_data_is_read() -> None:
    error = refused(header(b"big", b"0", 2**40))
    assert error.too_large and "more than 1048576 bytes unpacked" in str(error)


def test_a_gzip_bomb_stops_at_the_limit_with_little_memory_and_time() -> None:
    bomb = gzip.compress(tar([("zeros", bytes(60 * 2**20))]), 9)  # 60 MiB of zeros in about 60 KiB
    assert len(bomb) < 200_000
    tracemalloc.start()
    started = time.monotonic()
    try:
        error = refused(bomb)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.too_large and time.monotonic() - started < 1.0 and peak < 4 * 2**20


def test_an_xz_stream_that_needs_a_huge_dictionary_is_refused_before_it_is_allocated() -> None:
    stream = bytearray(lzma.compress(tar([("a", b"x")])))
    # The block header after the 12-byte stream header: size, flags, filter id 0x21, 1 byte of
    # properties (the dictionary size), padding, CRC32. 40 is the largest: 4 GiB.
    size = (stream[12] + 1) * 4
    block = stream[12:12 + size]
    assert block[2:4] == b"\x21\x01"
    block[4] = 40
    block[-4:] = struct.pack("<I", zlib.crc32(bytes(block[:-4])))
    stream[12:12 + size] = block
    error = refused(bytes(stream))
    assert error.too_large and "needs more than 96 MiB" in str(error)


@pytest.mark.parametrize("kind, what", [(tarfile.SYMTYPE, "a symbolic link"), (tarfile.LNKTYPE, "a hard link"),
                                        (tarfile.CHRTYPE, "a character device"), (tarfile.FIFOTYPE, "a FIFO")])
def test_links_and_devices_are_reported_and_nothing_after_them_is_read(kind: bytes, what: str) -> None:
    info = tarfile.TarInfo("bot/escape")
    info.type = kind
    info.linkname = "../../../etc/passwd"
    members = []
    for member in read_archive(tar([("bot/a", b"x"), info])[:-1024] + b"garbage that is never read" * 40, False,
                               LIMITS):
        members.append(member)
        if member.kind == "special":
            break  # as the intake does: it refuses the archive there
    assert [m.kind for m in members] == ["file", "special"] and members[1].detail == what


def test_links_in_litter_that_is_dropped_do_not_hide_what_follows() -> None:
    link = tarfile.TarInfo("__MACOSX/._link")
    link.type = tarfile.SYMTYPE
    link.linkname = "/etc/passwd"
    members = read(tar([link, ("bot/arena.toml", b"x")]))
    assert [(m.kind, m.parts[-1]) for m in members] == [("special", "._link"), ("file", "arena.toml")]


def test_a_pax_size_of_thousands_of_digits_is_refused_in_one_line() -> None:
    info = tarfile.TarInfo("a")
    info.pax_headers = {"size": "9" * 5000}
    assert "a bad size in a PAX header" in str(refused(tar([info])))


def test_a_gnu_sparse_file_and_a_long_link_name_are_refused() -> None:
    sparse = tarfile.TarInfo("sparse")
    sparse.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0"}
    assert read(tar([sparse]))[0].detail == "a sparse file"
    long_link = tarfile.TarInfo("l")
    long_link.type = tarfile.SYMTYPE
    long_link.linkname = "t" * 200
    assert "links are not accepted" in str(refused(tar([long_link], tarfile.GNU_FORMAT)))


@pytest.mark.parametrize("data, words", [
    (header(b"a", b"0", 0)[:148] + b"0000000\0" + header(b"a", b"0", 0)[156:], "not a readable tar archive"),
    (header(b"a", b"0", 100), "truncated"),
    (header(b"././@PaxHeader", b"x", 12) + b"99 path=abc\n".ljust(512, b"\0"), "malformed PAX header"),
    (header(b"a", b"0", 0, size_field=b"\xff" * 12), "a negative size"),
    (gzip.compress(tar([("a", bytes(range(256)) * 40)]), 0)[:6000], "truncated"),
    (b"BZh9" + b"\x00" * 40, "bzip2 stream"),
])
def test_damaged_tars_are_refused_with_one_line(data: bytes, words: str) -> None:
    assert words in str(refused(data))


def test_too_many_entries_are_refused_at_the_first_one_too_many() -> None:
    error = refused(tar([(f"f{i}", b"") for i in range(21)]) + b"never read")
    assert error.too_large and "more than 20 entries" in str(error)


@pytest.mark.parametrize("name, words", [
    ("/etc/passwd", "outside"), ("C:\\windows", "outside"), ("a/../../b", "outside"), ("a\\..\\..\\b", "outside"),
    ("bad\x1bname", "control characters"), ("x" * 256, "part of its name"), ("/".join("d" * 33), "folders deep"),
    ("/".join(["y" * 200] * 6), "a name of more than 1024 bytes"),
])
def test_member_names_that_leave_the_folder_or_break_a_limit_are_refused(name: str, words: str) -> None:
    with pytest.raises(ArchiveError) as caught:
        member_parts(name, ArchiveLimits())
    assert words in str(caught.value)
    assert member_parts("./a//b/./c", ArchiveLimits()) == ("a", "b", "c")


def zip_of(files: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED, force64: bool = False) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as out:
        for name, data in files.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = method
            with out.open(info, "w", force_zip64=force64) as member:
                member.write(data)
    return buffer.getvalue()


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2])
def test_zips_of_each_method_with_zip64_fields_and_a_stub_before_them_read_alike(method: int) -> None:
    files = {"bot/arena.toml": b'run = "x"\n', "bot/data": b"abc" * 3000}
    plain = read(zip_of(files, method), zip_format=True)
    assert [(m.parts, m.content) for m in plain] == [(("bot", "arena.toml"), files["bot/arena.toml"]),
                                                     (("bot", "data"), files["bot/data"])]
    assert read(zip_of(files, method, force64=True), zip_format=True) == plain
    assert read(b"#!/bin/sh\nexit 0\n" + zip_of(files, method), zip_format=True) == plain


def test_a_zip_declaring_too_many_entries_is_refused_from_its_end_record_alone() -> None:
    end = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 60000, 60000, 0, 0, 0)
    error = refused(end, zip_format=True)
    assert error.too_large and "60000 entries, over the limit of 20" in str(error)


def test_zip_bombs_are_refused_without_unpacking_them() -> None:
    zeros = zip_of({"zeros": bytes(30 * 2**20)})  # 30 MiB, honestly declared
    assert "more than 1048576 bytes unpacked" in str(refused(zeros, zip_format=True))
    # The same data declaring 100 bytes (sizes patched in the directory and the local header):
    # inflated no further than 101 bytes, then refused.
    liar = bytearray(zeros)
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = liar.find(signature)
        liar[at + offset:at + offset + 4] = struct.pack("<L", 100)
    tracemalloc.start()
    try:
        error = refused(bytes(liar), zip_format=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.too_large and "unpacks to more than the 100 bytes it declares" in str(error) and peak < 4 * 2**20


def test_members_sharing_their_bytes_are_refused() -> None:
    """The overlapping zip bomb (many directory entries pointing at one compressed member)."""
    one = zip_of({"a": b"x" * 1000})
    directory = one.find(b"PK\x01\x02")
    end = one.find(b"PK\x05\x06")
    entry = one[directory:end]
    copies = 5
    central = entry * copies
    record = struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, copies, copies, len(central), directory, 0)
    assert "share their bytes" in str(refused(one[:directory] + central + record, zip_format=True))


def test_encrypted_damaged_and_unknown_zip_members_are_refused() -> None:
    data = bytearray(zip_of({"a": b"hello" * 100}))
    encrypted = bytearray(data)
    at = encrypted.find(b"PK\x01\x02")
    encrypted[at + 8] |= 1
    assert "encrypted" in str(refused(bytes(encrypted), zip_format=True))
    damaged = bytearray(data)
    damaged[damaged.find(b"PK\x01\x02") + 16] ^= 0xFF  # its CRC
    assert "damaged" in str(refused(bytes(damaged), zip_format=True))
    lzma_zip = zip_of({"a": b"x"}, zipfile.ZIP_LZMA)
    assert "compression method 14 is not accepted" in str(refused(lzma_zip, zip_format=True))
    assert "not a readable zip archive" in str(refused(b"PK\x03\x04 not really a zip", zip_format=True))


def test_zip_links_and_special_files_are_reported() -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        out.writestr("a", "x")
        link = zipfile.ZipInfo("link")
        link.create_system = 3
        link.external_attr = 0o120777 << 16
        out.writestr(link, "/etc/shadow")
    members = read(buffer.getvalue(), zip_format=True)
    assert [m.kind for m in members] == ["file", "special"] and members[1].detail == "a symbolic link"


@pytest.mark.parametrize("version, warned", [
    ((3, 11, 7), True), ((3, 11, 13), True), ((3, 11, 17), False), ((3, 12, 14), True), ((3, 12, 15), False),
    ((3, 13, 4), True), ((3, 13, 16), False), ((3, 10, 22), False), ((3, 9, 23), True), ((3, 14, 0), False),
])
def test_pythons_with_a_known_tarfile_filter_bypass_are_named_in_one_line(version: tuple[int, int, int],
                                                                           warned: bool) -> None:
    warning = tarfile_filter_warning(version)
    assert bool(warning) == warned and "\n" not in warning
    if warned:
        assert "CVE-2025-4517" in warning and ".".join(map(str, version)) in warning


def test_doctor_says_so_in_one_line_about_this_python() -> None:
    done = subprocess.run([sys.executable, "-m", "arena.cli", "doctor"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "tarfile" in line]
    expected = tarfile_filter_warning()
    assert lines == ([f"warning: {expected}"] if expected else [])
