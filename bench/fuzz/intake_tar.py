"""Fuzz target: an uploaded tar in every compression (none, gzip, bzip2, xz), read as the server's intake reads it.

The first byte of an input picks how the rest reaches the reader: compressed by the target
(so that the tar parser behind each decompressor is explored), or as raw bytes (so that
broken compressed streams are). The reader must answer with the sources or a one-line
SubmissionError with status 413 or 422, within MAX_PEAK_BYTES of allocation.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import sys
import tarfile

from harness import MAX_PEAK_BYTES, instrument, main

with instrument(__name__):
    import _uploads
XZ_FILTERS = [{"id": lzma.FILTER_LZMA2, "dict_size": 64 * 1024, "preset": 0}]  # small: cheap to set up per input
WRAPS = (lambda data: data, lambda data: gzip.compress(data, 1), lambda data: bz2.compress(data, 1),
         lambda data: lzma.compress(data, format=lzma.FORMAT_XZ, filters=XZ_FILTERS))


def TestOneInput(data: bytes) -> None:
    """Read one input as an upload named bot.tar.gz (the reader tells the compression by its magic)."""
    if not data:
        return
    choice, body = data[0], data[1:]
    upload = body if choice >= 0x80 else WRAPS[choice % len(WRAPS)](body)
    _uploads.check("bot.tar.gz", upload)


def _tar(members: list[tuple[str, bytes, bytes]], fmt: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as out:
        for name, kind, content in members:
            info = tarfile.TarInfo(name)
            info.type = kind
            if kind == tarfile.SYMTYPE:
                info.linkname = "target"
            info.size = len(content) if kind == tarfile.REGTYPE else 0
            info.mode = 0o755
            out.addfile(info, io.BytesIO(content) if kind == tarfile.REGTYPE else None)
    return buffer.getvalue()


def seeds() -> list[bytes]:
    """Tars of each format (ustar, GNU with long names, PAX), each compression, with links and folders."""
    manifest = ("bot/arena.toml", tarfile.REGTYPE, b'run = "./bot"\nbuild = "make"\n')
    plain = [manifest, ("bot/", tarfile.DIRTYPE, b""), ("bot/bot.c", tarfile.REGTYPE, b"int main(){}\n")]
    long = [manifest, ("bot/" + "d" * 120 + "/x", tarfile.REGTYPE, b"x" * 700)]
    linked = [manifest, ("bot/link", tarfile.SYMTYPE, b"")]
    found = []
    for fmt in (tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT, tarfile.PAX_FORMAT):
        for members in (plain, long, linked):
            try:
                body = _tar(members, fmt)
            except ValueError:  # a long name in ustar
                continue
            found += [bytes([wrap]) + body for wrap in range(len(WRAPS))]
    return found


if __name__ == "__main__":
    main(TestOneInput, seeds, peak=MAX_PEAK_BYTES)
    sys.exit(0)
