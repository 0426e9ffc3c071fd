"""Fuzz target: a built folder's stream as the host receives it (arena.launch.builds.bundle.receive), as root would.

Whatever the stream says, every file and folder is created inside the fresh destination
folder (never through a link, never over anything), the counts and sizes stay within the
limits, and a refused stream is a one-line BundleError.
"""

from __future__ import annotations

import atexit
import os
import shutil
import struct
import sys
import tempfile

from harness import MAX_PEAK_BYTES, Finding, instrument, main, one_line

with instrument(__name__):
    from arena.launch.builds.bundle import MAGIC, BundleError, BundleLimits, receive

MAX_INPUT = 60 * 1024  # below a pipe's buffer
LIMITS = BundleLimits(max_entries=50, max_bytes=2**20, max_path=200, max_depth=8)
# In memory where the machine has a tmpfs: creating and removing folders on a journaled disk costs milliseconds.
BASE = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
for stale in os.listdir(BASE):  # a fuzzing run ends without Python's exit handlers: its folder stays
    pid = stale.removeprefix("fuzz-bundle-")
    if stale.startswith("fuzz-bundle-") and pid.isdigit() and not os.path.exists(f"/proc/{pid}"):
        shutil.rmtree(os.path.join(BASE, stale), ignore_errors=True)
WORK = os.path.join(BASE, f"fuzz-bundle-{os.getpid()}")
os.makedirs(WORK, exist_ok=True)
atexit.register(shutil.rmtree, WORK, True)
os.makedirs(os.path.join(WORK, "bait"), exist_ok=True)  # a folder beside the destination that must stay empty


def TestOneInput(data: bytes) -> None:
    """Receive one input as a bundle into a fresh folder, then check what exists outside it."""
    dest = os.path.join(WORK, "dest")
    data = data[:MAX_INPUT]
    fd, writer = os.pipe()  # inputs are far smaller than a pipe's buffer
    try:
        os.write(writer, data)
        os.close(writer)
        try:
            entries = receive(fd, dest, LIMITS)
        except BundleError as exc:
            one_line(exc)
            entries = -1
        if sorted(os.listdir(WORK)) not in (["bait", "dest"], ["bait"]) or os.listdir(os.path.join(WORK, "bait")):
            raise Finding(f"something was created outside the destination: {sorted(os.listdir(WORK))}")
        if entries > LIMITS.max_entries:
            raise Finding(f"{entries} entries accepted")
    finally:
        os.close(fd)
        shutil.rmtree(dest, ignore_errors=True)


def _path(path: str) -> bytes:
    encoded = path.encode()
    return struct.pack(">H", len(encoded)) + encoded


def seeds() -> list[bytes]:
    """Bundles with folders, files, an executable, an empty file; and one that tries to climb out."""
    good = (MAGIC + b"D" + _path("src") + b"F\x01" + _path("src/bot") + struct.pack(">Q", 5) + b"hello" +
            b"F\x00" + _path("empty") + struct.pack(">Q", 0) + b"E")
    climb = MAGIC + b"F\x00" + _path("../bait/x") + struct.pack(">Q", 1) + b"x" + b"E"
    return [good, climb, MAGIC + b"E"]


if __name__ == "__main__":
    main(TestOneInput, seeds, peak=MAX_PEAK_BYTES)
    sys.exit(0)
