"""What the upload intake's fuzz targets share: instrumenting the product, checking each answer, the entry point.

A target `intake_NAME.py` defines `TestOneInput(data)` (raising `Finding` when the product
answered wrongly) and `seeds()` (valid inputs to start from), and ends with
`if __name__ == "__main__": main(TestOneInput, seeds)`. Run as a script it is an atheris
fuzzer taking libFuzzer's flags; given an empty corpus folder it first fills it with its seeds.
Imported (by the tests), nothing is instrumented and atheris is not needed.
"""

from __future__ import annotations

import contextlib
import sys
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ["arena"]  # what atheris instruments: the product, not the standard library
MAX_ERROR_CHARS = 2000
MAX_PEAK_BYTES = 48 * 2**20  # what one input may allocate (traced): far above any honest upload's reading
TRACE_EVERY = 16  # tracing costs; one input in TRACE_EVERY is traced (every input in the tests)

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


class Finding(AssertionError):
    """The product answered an input wrongly: an unexpected exception, a multi-line error, too much memory."""


def instrumented(module_name: str) -> contextlib.AbstractContextManager[Any]:
    """Instrument the product's modules imported in the block when the target runs as the fuzzer."""
    if module_name != "__main__":
        return contextlib.nullcontext()
    import atheris

    return atheris.instrument_imports(include=PACKAGES)


def one_line(error: BaseException) -> str:
    """The error's text; Finding unless it is one line a person can read."""
    text = str(error)
    if not text.strip() or "\n" in text or "\r" in text or len(text) > MAX_ERROR_CHARS:
        raise Finding(f"{type(error).__name__} is not one short line: {text[:300]!r}")
    return text


_count = 0


def bounded(test: Callable[[bytes], None], data: bytes, every: int = TRACE_EVERY) -> None:
    """Run test(data), tracing its allocations one input in `every`: Finding past MAX_PEAK_BYTES."""
    global _count
    _count += 1
    if _count % every:
        test(data)
        return
    tracemalloc.start()
    try:
        test(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    if peak > MAX_PEAK_BYTES:
        raise Finding(f"an input of {len(data)} bytes allocated {peak >> 20} MiB")


def main(test: Callable[[bytes], None], seeds: Callable[[], list[bytes]]) -> None:
    """The fuzzer: libFuzzer's flags from the command line; an empty corpus folder is seeded first."""
    import atheris

    for arg in sys.argv[1:]:
        folder = Path(arg)
        if not arg.startswith("-") and folder.is_dir() and not any(folder.iterdir()):
            for number, seed in enumerate(seeds()):
                (folder / f"seed-{number:03d}").write_bytes(seed)
    atheris.Setup(sys.argv, lambda data: bounded(test, data))
    atheris.Fuzz()
