"""How a Pascal module should speak ZeroMQ, measured: a library the SDK serves, or a native host on libzmq.

The two ways issue 29 named, each with an instant bot on Blocking 50 x 50 under the same
referee (bench/overhead.py's measurement, start-up excluded):

- "library_us_per_ply": the Python SDK over the default wire, calling a Free Pascal
  library's exported function through ctypes every turn (what `pascal:` modules do);
- "libzmq_host_us_per_ply": a native program linked with libzmq and msgpack-c (the C
  example's instant mode, `cbot --sequential`), which is what a host linked against them
  would be.

One JSON line. Needs fpc, a C compiler, libzmq and msgpack-c.

    python bench/pascal_wire.py [--matches N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import overhead  # noqa: E402

NOOP = """library arenanoop;
{$mode objfpc}
function arena_turn(d: LongInt; sec: LongInt): LongInt; cdecl;
begin
  Result := d;
end;
exports arena_turn;
end.
"""


def build_library(directory: str) -> str:
    """A Free Pascal library exporting arena_turn, as the arena builds a module's."""
    source = Path(directory) / "arenanoop.pas"
    source.write_text(NOOP)
    subprocess.run(["fpc", "-O2", "-Xs", "-XX", f"-FE{directory}", str(source)], check=True, capture_output=True)
    return str(Path(directory) / "libarenanoop.so")


def main() -> None:
    """Measure both ways and print the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as build:
        library = build_library(build)
        sdk = f"{overhead.INSTANT}:LibraryInstantBot:library={library}"
        native = overhead.native_spec(build)
        if native is None:
            raise SystemExit("the C example does not build here (a C compiler, libzmq and msgpack-c are needed)")
        library_us, plies = overhead.referee_us_per_ply(args.matches, 50, sdk)
        native_us, _ = overhead.referee_us_per_ply(args.matches, 50, native)
        print(json.dumps({"library_us_per_ply": round(library_us, 1), "libzmq_host_us_per_ply": round(native_us, 1),
                          "plies": plies}))


if __name__ == "__main__":
    main()
