"""Fuzz target: an uploaded zip, read as the server's intake does (central directory, zip64, local headers, inflate).

The reader must answer with the sources or a one-line SubmissionError with status 413 or
422, never unpack more than a member declares nor more than the limit, within
MAX_PEAK_BYTES of allocation.
"""

from __future__ import annotations

import io
import sys
import zipfile

from harness import MAX_PEAK_BYTES, instrument, main

with instrument(__name__):
    import _uploads


def TestOneInput(data: bytes) -> None:
    """Read one input as an upload named bot.zip."""
    _uploads.check("bot.zip", data)


def seeds() -> list[bytes]:
    """Zips stored, deflated and bzip2-compressed, with folders, an executable, a link, zip64 fields and a stub."""
    found = []
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2):
        for force64 in (False, True):
            buffer = io.BytesIO()
            with zipfile.ZipFile(buffer, "w", compression=method) as out:
                out.writestr("bot/arena.toml", 'run = "./bot"\n')
                out.writestr("bot/src/", "")
                info = zipfile.ZipInfo("bot/run.sh")
                info.external_attr = 0o100755 << 16
                info.create_system = 3
                with out.open(info, "w", force_zip64=force64) as member:
                    member.write(b"#!/bin/sh\n" * 20)
                link = zipfile.ZipInfo("bot/link")
                link.external_attr = 0o120777 << 16
                link.create_system = 3
                out.writestr(link, "target")
            found.append(buffer.getvalue())
    found.append(b"#!/bin/sh stub\n" + found[1])  # a self-extractor's stub before the archive
    return found


if __name__ == "__main__":
    main(TestOneInput, seeds, peak=MAX_PEAK_BYTES)
    sys.exit(0)
