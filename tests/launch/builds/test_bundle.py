"""A built folder's stream: packed following nothing, created by the host anew, every name, count and size checked."""

from __future__ import annotations

import os
import socket
import struct
from pathlib import Path

import pytest

from arena.launch.builds.bundle import MAGIC, BundleError, BundleLimits, pack, receive

LIMITS = BundleLimits(max_entries=10, max_bytes=10_000, max_path=200, max_depth=4)


def path(text: str) -> bytes:
    encoded = text.encode()
    return struct.pack(">H", len(encoded)) + encoded


def file(name: str, data: bytes, executable: bool = False) -> bytes:
    return b"F" + bytes([executable]) + path(name) + struct.pack(">Q", len(data)) + data


def received(tmp_path: Path, stream: bytes, limits: BundleLimits = LIMITS) -> Path:
    source = tmp_path / "stream"
    source.write_bytes(stream)
    fd = os.open(source, os.O_RDONLY)
    try:
        receive(fd, str(tmp_path / "dest"), limits)
    finally:
        os.close(fd)
    return tmp_path / "dest"


def refused(tmp_path: Path, stream: bytes, limits: BundleLimits = LIMITS) -> str:
    with pytest.raises(BundleError) as caught:
        received(tmp_path, stream, limits)
    assert "\n" not in str(caught.value)
    return str(caught.value)


def test_a_folder_packed_in_the_sandbox_is_created_alike_by_the_host(tmp_path: Path) -> None:
    built = tmp_path / "built"
    (built / "src" / "deep").mkdir(parents=True)
    (built / "bot").write_bytes(b"\x7fELF" + bytes(3000))
    (built / "bot").chmod(0o700)
    (built / "src" / "deep" / "notes.txt").write_text("é")
    (built / "empty").write_bytes(b"")
    stream = tmp_path / "stream"
    with open(stream, "wb") as out:
        assert pack(str(built), out.fileno(), LIMITS) == 5
    (tmp_path / "host").mkdir()
    dest = received(tmp_path / "host", stream.read_bytes())
    assert (dest / "bot").read_bytes() == (built / "bot").read_bytes()
    assert (dest / "bot").stat().st_mode & 0o777 == 0o755 and (dest / "empty").stat().st_mode & 0o777 == 0o644
    assert (dest / "src" / "deep" / "notes.txt").read_text() == "é"
    assert dest.stat().st_mode & 0o777 == 0o755


def test_links_fifos_and_sockets_are_refused_when_packing(tmp_path: Path) -> None:
    for make in (lambda p: p.symlink_to("/etc/passwd"), lambda p: os.mkfifo(p),
                 lambda p: socket.socket(socket.AF_UNIX).bind(str(p))):
        built = tmp_path / f"built{len(os.listdir(tmp_path))}"
        built.mkdir()
        make(built / "odd")
        with open(tmp_path / "out", "wb") as out, pytest.raises(BundleError) as caught:
            pack(str(built), out.fileno(), LIMITS)
        assert "'odd' is a" in str(caught.value) and "only plain files and folders" in str(caught.value)


@pytest.mark.parametrize("stream, words", [
    (b"THIS IS NOT A BUNDLE\n" + b"E", "not a bundle"),
    (MAGIC + file("../escape", b"x") + b"E", "unusable name"),
    (MAGIC + file("/etc/cron.d/x", b"x") + b"E", "unusable name"),
    (MAGIC + file("a/./b", b"x") + b"E", "unusable name"),
    (MAGIC + file("bad\nname", b"x") + b"E", "unusable name"),
    (MAGIC + file("nodir/x", b"x") + b"E", "comes before its folder"),
    (MAGIC + file("x", b"1") + file("x", b"2") + b"E", "appears twice"),
    (MAGIC + b"D" + path("d") + b"D" + path("d") + b"E", "appears twice"),
    (MAGIC + file("x", b"1" * 10_001) + b"E", "larger than"),
    (MAGIC + b"".join(file(f"f{i}", b"") for i in range(11)) + b"E", "more than 10 files"),
    (MAGIC + b"D" + path("a/b/c/d/e") + b"E", "folders deep"),
    (MAGIC + b"F\x00" + path("x") + struct.pack(">Q", 2**62) + b"E", "larger than"),
    (MAGIC + file("x", b"abc")[:-1], "ends in the middle"),
    (MAGIC + file("x", b"abc") + b"E" + b"more", "after the end"),
    (MAGIC + b"Z", "unknown record"),
    (MAGIC + b"F\x00" + struct.pack(">H", 2) + b"\xff\xfe" + struct.pack(">Q", 0) + b"E", "not UTF-8"),
])
def test_a_stream_that_breaks_a_rule_is_refused_in_one_line(tmp_path: Path, stream: bytes, words: str) -> None:
    assert words in refused(tmp_path, stream)


def test_nothing_outside_the_new_folder_is_created_followed_or_changed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret").write_text("keep")
    os.chmod(outside / "secret", 0o600)
    # The destination cannot be a link or an existing folder: it is made anew.
    (tmp_path / "dest").symlink_to(outside)
    with pytest.raises(FileExistsError):
        received(tmp_path, MAGIC + file("secret", b"overwritten") + b"E")
    os.unlink(tmp_path / "dest")
    refused(tmp_path, MAGIC + file("secret", b"ok") + file("../outside/secret", b"overwritten") + b"E")
    assert (outside / "secret").read_text() == "keep" and (outside / "secret").stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["dest", "outside", "stream"]
