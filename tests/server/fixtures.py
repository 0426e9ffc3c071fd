"""Bots and archives the server tests upload."""

from __future__ import annotations

import io
import tarfile
import zipfile

FEWEST = b'''from protocol import Bot


class FewestBot(Bot):
    """Blocking: take the free cell that blocks the fewest free cells."""

    def init_game(self, game, seat, players, setup, time_left_ms, match):
        rows, cols = setup["rows"], setup["cols"]
        self.free = {(r, c) for r in range(rows) for c in range(cols)}
        self.free -= {tuple(cell) for cell in setup["blocked"]}

    def area(self, r, c):
        return {(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)} & self.free

    def turn(self, events, time_left_ms):
        for seat, (r, c) in events:
            self.free -= self.area(r, c)
        r, c = min(self.free, key=lambda cell: (len(self.area(*cell)), cell))
        self.free -= self.area(r, c)
        return [r, c]
'''

# The same bot, thinking 0.3 s a move: its games last long enough to be caught in flight.
SLOW = FEWEST.replace(b"from protocol import Bot", b"import time\n\nfrom protocol import Bot").replace(
    b"        for seat, (r, c) in events:", b"        time.sleep(0.3)\n        for seat, (r, c) in events:")

BROKEN_C = b"int main(void) { this is not C; }\n"


def tar_of(files: dict[str, bytes], links: dict[str, str] | None = None, mode: str = "w:gz") -> bytes:
    """A tar archive of files (and symlinks name -> target)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode=mode) as out:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mode = 0o755 if name.endswith(".sh") else 0o644
            out.addfile(info, io.BytesIO(data))
        for name, target in (links or {}).items():
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = target
            out.addfile(info)
    return buffer.getvalue()


def zip_of(files: dict[str, bytes], links: dict[str, str] | None = None) -> bytes:
    """A zip archive of files (and symlinks, stored the way Info-ZIP stores them)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as out:
        for name, data in files.items():
            out.writestr(name, data)
        for name, target in (links or {}).items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (0o120777 << 16)
            out.writestr(info, target)
    return buffer.getvalue()


def archive_bot(build: str, run: str = "python3 -m protocol.run bot.py") -> bytes:
    """A tar.gz of the Python bot with a manifest."""
    manifest = f'run = "{run}"\nbuild = "{build}"\n'.encode()
    return tar_of({"bot/arena.toml": manifest, "bot/bot.py": FEWEST})
