"""What the upload targets share: reading one input as the contest server reads an upload.

A target imports this module inside its `harness.instrument` block, so the product's modules
it imports are instrumented with the target's own.
"""

from __future__ import annotations

from harness import Finding, one_line

from arena.server.uploads.sources import SubmissionError, read_upload
from arena.server.uploads.unpack import UploadBounds

LIMITS = UploadBounds(max_bytes=2 * 2**20, max_files=40, max_unpacked_bytes=2**20)


def check(name: str, upload: bytes) -> None:
    """Read upload as the file name; Finding unless it is read within the limits or refused in one line (413, 422)."""
    try:
        sources = read_upload(name, upload, LIMITS, "blocking")
    except SubmissionError as exc:
        one_line(exc)
        if exc.status not in (413, 422):
            raise Finding(f"status {exc.status}") from None
        return
    if sum(len(content) for content in sources.files.values()) > LIMITS.max_unpacked_bytes:
        raise Finding("more bytes unpacked than the limit")
