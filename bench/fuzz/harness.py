"""What the fuzz targets share: instrumenting the product, the checks on its answers, the entry point.

A target is a file `bench/fuzz/NAME.py` that defines `TestOneInput(data: bytes) -> None` (raising
only when the product answered wrongly), `seeds() -> list[bytes]` (valid inputs to start from)
and ends with `if __name__ == "__main__": harness.main(TestOneInput, seeds)`. Run as a script it
is an atheris fuzzer taking libFuzzer's flags; `run.py` drives the targets and reports.
"""

from __future__ import annotations

import contextlib
import resource
import sys
import tempfile
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus"  # per target: inputs kept for good (regressions first of all), replayed by the tests
PACKAGES = ["protocol", "arena"]  # what atheris instruments: the product, not the standard library
MAX_ERROR_CHARS = 2000  # an error is one line a person reads, not a dump of the input


class Finding(AssertionError):
    """The product answered an input wrongly (a multi-line error, too much memory, an unusable value)."""


def instrument(module_name: str) -> contextlib.AbstractContextManager[Any]:
    """Instrument the product's modules imported in the block, when the target runs as the fuzzer.

    Imported by the tests (module_name is not "__main__"), nothing is instrumented and atheris is
    not needed.
    """
    if module_name != "__main__":
        return contextlib.nullcontext()
    import atheris

    return atheris.instrument_imports(include=PACKAGES)


def one_line(error: BaseException) -> str:
    """The error's text; Finding when it is empty, spans lines or is longer than MAX_ERROR_CHARS."""
    text = str(error)
    if not text.strip() or "\n" in text or "\r" in text:
        raise Finding(f"{type(error).__name__} is not one line: {text[:300]!r}")
    if len(text) > MAX_ERROR_CHARS:
        raise Finding(f"{type(error).__name__} of {len(text)} characters: {text[:300]!r}…")
    return text


_inputs = 0
TRACE_EVERY = 1  # main() traces one input in TRACE_EVERY: starting tracemalloc costs ~0.2 ms
RSS_JUMP_KB = 64 * 1024  # no input of a fuzz run's size should need this much more memory


def _max_rss_kb() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@contextlib.contextmanager
def bounded_memory(limit: int) -> Iterator[None]:
    """Finding when the block's allocations peak above limit bytes, or the process's RSS jumps.

    Python's allocations (tracemalloc: what msgpack and json allocate too) are traced in one
    block out of TRACE_EVERY; the resident size's high-water mark is checked in every block.
    """
    global _inputs
    _inputs += 1
    traced = _inputs % TRACE_EVERY == 0
    rss = _max_rss_kb()
    if traced:
        tracemalloc.start(1)
    try:
        yield
        if traced and (peak := tracemalloc.get_traced_memory()[1]) > limit:
            raise Finding(f"allocated {peak} bytes at peak, more than the {limit} allowed")
    finally:
        if traced:
            tracemalloc.stop()
    if (jump := _max_rss_kb() - rss) > RSS_JUMP_KB:
        raise Finding(f"the resident size grew by {jump} kB during one input")


MAX_PEAK_BYTES = 48 * 2**20  # what one upload's reading may allocate: far above any honest upload's


def bounded(test: Callable[[bytes], None], data: bytes, limit: int = MAX_PEAK_BYTES) -> None:
    """test(data) under bounded_memory(limit): the wrapper of targets whose parse is the whole input."""
    with bounded_memory(limit):
        test(data)


def main(test_one_input: Callable[[bytes], None], seeds: Callable[[], list[bytes]],
         peak: int | None = None) -> None:
    """Fuzz test_one_input with atheris; libFuzzer flags and corpus folders come from sys.argv.

    The first corpus folder (a new temporary one when none is given) gets the seeds when empty;
    the target's kept inputs (corpus/NAME) are read too. With peak, every input runs under
    bounded_memory(peak).
    """
    import atheris

    global TRACE_EVERY
    TRACE_EVERY = 32
    argv = list(sys.argv)
    folders = [arg for arg in argv[1:] if not arg.startswith("-")]
    if not folders:
        folders = [tempfile.mkdtemp(prefix="arena-fuzz-")]
        argv.append(folders[0])
    first = Path(folders[0])
    first.mkdir(parents=True, exist_ok=True)
    if not any(first.iterdir()):
        for i, seed in enumerate(seeds()):
            (first / f"seed-{i:03d}").write_bytes(seed)
    kept = CORPUS / Path(argv[0]).stem
    if kept.is_dir() and str(kept) not in folders:
        argv.append(str(kept))
    atheris.Setup(argv, test_one_input if peak is None else (lambda data: bounded(test_one_input, data, peak)))
    atheris.Fuzz()
