"""Fuzz target: an archive's arena.toml (TOML, then the manifest's keys and values), as the intake reads it.

The manifest must give (run, build, protocol) strings within their bounds, or a one-line
SubmissionError.
"""

from __future__ import annotations

import sys

from harness import MAX_PEAK_BYTES, Finding, instrument, main, one_line

with instrument(__name__):
    from arena.server.uploads.sources import COMMAND_CHARS, SubmissionError, parse_manifest


def TestOneInput(data: bytes) -> None:
    """Read one input as the manifest of bot.zip."""
    try:
        run, build, protocol = parse_manifest("bot.zip", data)
    except SubmissionError as exc:
        one_line(exc)
        return
    if not run or len(run) > COMMAND_CHARS or len(build) > COMMAND_CHARS or protocol not in ("zeromq", "stdio"):
        raise Finding(f"an accepted manifest with run={run[:40]!r} build={build[:40]!r} protocol={protocol!r}")


def seeds() -> list[bytes]:
    """Manifests with every key, comments, multi-line and literal strings, and a few mistakes."""
    return [b'run = "./bot --fast"\nbuild = "make"\nprotocol = "stdio"\n',
            b"# a comment\nrun = '''python3\n-m bot'''\nbuild = 'cc -O2 -o bot bot.c'\n",
            b'run = "x"\n[table]\nkey = 1\n', b'run = ["./bot"]\n', b'run = "\\u00e9t\\u00e9"\nprotocol = "zeromq"\n']


if __name__ == "__main__":
    main(TestOneInput, seeds, peak=MAX_PEAK_BYTES)
    sys.exit(0)
