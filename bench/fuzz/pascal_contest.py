"""Fuzz target: the 2001 contest's rules checked on a Pascal module's source (contest_problem).

Every input is a module's bytes, read as botspec reads them (Latin-1, byte for byte). The
answer is None (the module keeps the rules) or one line naming the rule broken and where;
the check's memory stays within a small multiple of the source.
"""

from __future__ import annotations

import harness

with harness.instrument(__name__):
    from arena.launch.specs.pascal_source import contest_problem

MEMORY_PER_BYTE = 64
MEMORY_BASE = 1 << 20


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Check one source; raise Finding (or any other exception) when the answer is wrong."""
    text = data.decode("latin-1")
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        problem = contest_problem(text, "module.pas")
    if problem is not None:
        harness.one_line(ValueError(problem))
        if not problem.startswith("module.pas("):
            raise harness.Finding(f"a problem that does not name the file and line: {problem!r}")


SEED = b"""unit seed;
{ the contest's module: TPair, TFileOfPairs, InitGame, turn }
interface
type TPair = record x, y: integer end;
     TFileOfPairs = file of TPair;
procedure InitGame(var f: TFileOfPairs; sec: longint);
procedure turn(var d: integer; sec: longint);
implementation
var board: array[1..100, 1..100] of boolean; (* static data *)
procedure InitGame(var f: TFileOfPairs; sec: longint);
var p: TPair;
begin
  reset(f); read(f, p); // the size
  case p.x of 1: ; else begin end end;
end;
procedure turn(var d: integer; sec: longint);
begin
  if d = 255 then d := 0 else d := (d + 1) mod 8; writeln('it''s {$I %HOME%} in a string');
end;
end.
"""


def seeds() -> list[bytes]:
    """A module that keeps the rules, and one breaking each rule."""
    return [
        SEED,
        SEED.replace(b"implementation\n", b"implementation\nuses crt;\n"),
        SEED.replace(b"{ the contest", b"{$I %HOME%}{ the contest"),
        SEED.replace(b"end;\nend.", b"end;\nbegin asm nop end; end."),
        SEED.replace(b"end;\nend.", b"end;\ninitialization\n  d := 1;\nfinalization\nend."),
        SEED.replace(b"var board", b"type r = record case integer of 1: (a: integer); end;\nvar board"),
    ]


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
