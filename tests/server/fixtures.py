"""Bots and archives the server tests upload."""

from __future__ import annotations

import io
import re
import tarfile
import zipfile

from tests.helpers import ROOT

# The README's example bot: what a student would upload first.
FEWEST = re.search(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1).encode()  # type: ignore[union-attr]

def slow() -> bytes:
    """The README's bot thinking 0.3 s a move (its games last long enough to be caught in flight), with a diary."""
    return talker("slow diary").replace(
        b"from protocol import Bot", b"import time\n\nfrom protocol import Bot").replace(
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
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as out:
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


def spy(state: str, url: str) -> bytes:
    """A legal Blocking bot that first tries to read the server's secrets and reach its port.

    It crashes, naming what it got, when any attempt succeeds; so it passes validation only
    if the sandbox stopped every one.
    """
    return FEWEST.replace(b"from protocol import Bot", f'''import glob
import os
import socket
import urllib.parse

from protocol import Bot

STATE = {state!r}
URL = urllib.parse.urlparse({url!r})
leaks = []
for path in ("admin.token", "server.db", "ladder/log.key", "submissions"):
    try:
        with open(os.path.join(STATE, path), "rb") as secret:
            leaks.append(path + ": " + repr(secret.read(40)))
    except OSError:
        pass
leaks += [found for found in glob.glob(os.path.join(STATE, "submissions", "*", "*", "upload", "*"))]
try:
    socket.create_connection((URL.hostname, URL.port), timeout=2).close()
    leaks.append("the server's port")
except OSError:
    pass
if leaks:
    raise SystemExit("LEAKED " + "; ".join(leaks))
'''.encode())


# The README's bot, crashing at every init once a file `crash` lies beside it: the test puts it
# there after validation and restarts the server, so the ladder's fresh processes find it (a bot
# cannot tell validation from the ladder: both send opaque ids, and names of neither).
LADDER_CRASHER = FEWEST.replace(
    b"        rows, cols = setup[\"rows\"], setup[\"cols\"]",
    b"        import os\n"
    b"        if os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), \"crash\")):\n"
    b"            raise SystemExit(3)\n"
    b"        rows, cols = setup[\"rows\"], setup[\"cols\"]")


def talker(words: str) -> bytes:
    """The README's bot, writing words to its stderr in every game, then what it was told: `seen MATCH NAMES`."""
    return FEWEST.replace(b"        rows, cols = setup[\"rows\"], setup[\"cols\"]",
                          f"        import sys\n        print({words!r}, file=sys.stderr, flush=True)\n"
                          f"        print('seen', match, self.names, file=sys.stderr, flush=True)\n"
                          f"        rows, cols = setup[\"rows\"], setup[\"cols\"]".encode())
