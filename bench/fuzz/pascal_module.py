"""Fuzz target: the checks on a Pascal module compiled with Free Pascal's rules (unit_name, module_includes).

Every input is a module's bytes, in a folder holding two include files (one in a sub-folder)
and a link pointing out of it. The answer is the unit's name and the include files the
module reads, every one inside the folder, or a one-line LaunchError: a directive that reads
the environment or a file outside the folder, links or loads files, or defines a macro.
"""

from __future__ import annotations

import os
import posixpath
import tempfile
from pathlib import Path

import harness

with harness.instrument(__name__):
    from arena.launch.pascal.pascal import module_includes, unit_name
    from arena.launch.processes.process import LaunchError

MEMORY_PER_BYTE = 64
MEMORY_BASE = 1 << 20
FOLDER = Path(tempfile.mkdtemp(prefix="arena-fuzz-pascal-")) / "module"
FOLDER.mkdir()
(FOLDER / "moves.inc").write_bytes(b"const moves = 8;\n")
(FOLDER / "sub").mkdir()
(FOLDER / "sub" / "deeper.inc").write_bytes(b"{$I ../moves.inc}\n")
(FOLDER.parent / "secret.inc").write_bytes(b"const secret = 42;\n")
os.symlink("../secret.inc", FOLDER / "out.inc")


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Check one module; raise Finding (or any other exception) when the answer is wrong."""
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            unit = unit_name(data, "module.pas")
            found = module_includes(FOLDER / "module.pas", data, unit)
        except LaunchError as exc:
            harness.one_line(exc)
            return
    for rel, content in found.items():
        if posixpath.isabs(rel) or posixpath.normpath(rel).startswith("..") or rel == "out.inc":
            raise harness.Finding(f"an include from outside the folder was taken: {rel!r}")
        if (FOLDER / rel).read_bytes() != content:
            raise harness.Finding(f"an include's bytes are not the file's: {rel!r}")


def seeds() -> list[bytes]:
    """Modules including files in every way fpc finds them, and each refused directive."""
    head = b"unit seed; interface implementation\n"
    tails = [
        b"{$I moves.inc} {$I sub/deeper} {$INCLUDE 'moves'} {$R+,I-} end.",
        b"(*$I MOVES.INC*) {$ifdef x}{$endif} {$mode tp} end.",
        b"{$I %HOME%} end.",
        b"{$I %DATE%} {$I ../secret.inc} end.",
        b"{$I out.inc} end.",
        b"{$L foo.o} {$LINKLIB c} {$DEFINE x:=1} end.",
        b"uses sysutils in 'sysutils.pas'; end.",
        b"{ comment (* nested *) } {$I moves.inc} 'it''s {$I %HOME%}' end.",
    ]
    return [head + tail for tail in tails]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
