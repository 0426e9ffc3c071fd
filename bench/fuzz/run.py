"""Run fuzz targets and report, per target, the inputs tried and inputs per second.

    python bench/fuzz/run.py --all                    # every target, 10^6 inputs each
    python bench/fuzz/run.py wire_json pascal_module --inputs 20000
    python bench/fuzz/run.py --all --seconds 60 --jobs 2   # a minute each, two at a time

A target is a file of this folder defining `TestOneInput`; each runs in a process of its own
(atheris, libFuzzer's engine) on a fresh corpus folder, which it fills with its seeds, and
reads the inputs kept in corpus/NAME. An input the product answers wrongly (an exception other
than the one-line error it promises, a multi-line error, too much memory, a hang past
--timeout) is written to --artifacts and named in the report; the exit status is then 1.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
_EXECUTED = re.compile(r"stat::number_of_executed_units:\s*(\d+)")
_COVERAGE = re.compile(r"#\d+\s+DONE\s+cov: (\d+) ft: (\d+)")
_WRITTEN = re.compile(r"Test unit written to (\S+)")


def targets() -> list[str]:
    """The names of every fuzz target in this folder (a file defining TestOneInput), sorted."""
    return sorted(path.stem for path in HERE.glob("*.py")
                  if path.name != "run.py" and "def TestOneInput" in path.read_text())


@dataclass
class Outcome:
    """What one target's run did."""

    target: str
    inputs: int
    seconds: float
    coverage: str  # libFuzzer's `cov` (edges) / `ft` (features) at the end
    finding: str  # the file holding the input that went wrong, or "" when none did
    log: str  # the run's output, for a failure the report cannot explain

    @property
    def rate(self) -> float:
        """Inputs per second over the run's wall time (start-up included)."""
        return self.inputs / self.seconds if self.seconds > 0 else 0.0


def run_target(target: str, inputs: int, seconds: int, max_len: int, timeout: int, seed: int, rss_mb: int,
               artifacts: Path) -> Outcome:
    """Fuzz one target in a process of its own and read libFuzzer's closing statistics."""
    flags = [f"-runs={inputs}", f"-max_len={max_len}", f"-timeout={timeout}", f"-seed={seed}",
             f"-rss_limit_mb={rss_mb}", "-print_final_stats=1", f"-artifact_prefix={artifacts}/{target}-"]
    if seconds:
        flags.append(f"-max_total_time={seconds}")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    with tempfile.TemporaryDirectory(prefix=f"arena-fuzz-{target}-") as work:
        started = time.monotonic()
        done = subprocess.run([sys.executable, str(HERE / f"{target}.py"), *flags, work], env=env,
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                              check=False)
        elapsed = time.monotonic() - started
    log = done.stdout + done.stderr
    executed = _EXECUTED.search(log)
    coverage = _COVERAGE.search(log)
    written = _WRITTEN.search(log)
    finding = written.group(1) if written else ("" if done.returncode == 0 else f"exit status {done.returncode}")
    return Outcome(target, int(executed.group(1)) if executed else 0, elapsed,
                   f"{coverage.group(1)}/{coverage.group(2)}" if coverage else "-", finding, log)


def main(argv: list[str] | None = None) -> int:
    """Run the targets asked for; print one line per target; 1 when anything was found."""
    parser = argparse.ArgumentParser(description="Run the fuzz targets of bench/fuzz and report inputs per second.")
    parser.add_argument("names", nargs="*", metavar="TARGET", help="targets to run (file names without .py)")
    parser.add_argument("--all", action="store_true", help="every target (also what no TARGET means)")
    parser.add_argument("--list", action="store_true", help="print the targets and stop")
    parser.add_argument("--inputs", type=int, default=1_000_000, help="inputs per target (default 10^6)")
    parser.add_argument("--seconds", type=int, default=0, help="stop each target after this many seconds too")
    parser.add_argument("--max-len", type=int, default=4096, help="longest input in bytes (default 4096)")
    parser.add_argument("--timeout", type=int, default=10, help="seconds one input may take (default 10)")
    parser.add_argument("--rss-mb", type=int, default=2048, help="a target's memory cap (libFuzzer's rss_limit_mb)")
    parser.add_argument("--seed", type=int, default=1, help="libFuzzer's random seed (default 1)")
    parser.add_argument("--jobs", type=int, default=1, help="targets run at once (default 1)")
    parser.add_argument("--artifacts", type=Path, default=ROOT / "results" / "fuzz",
                        help="where an input that went wrong is kept (default results/fuzz)")
    args = parser.parse_args(argv)
    known = targets()
    if args.list:
        print("\n".join(known))
        return 0
    unknown = [name for name in args.names if name not in known]
    if unknown:
        parser.error(f"unknown target {unknown[0]!r} (known: {', '.join(known)})")
    try:
        import atheris  # noqa: F401 - only its presence is checked here
    except ImportError:
        print("run.py: atheris is not installed (pip install atheris: wheels for Linux x86_64 and macOS)",
              file=sys.stderr)
        return 2
    args.artifacts.mkdir(parents=True, exist_ok=True)
    chosen = known if args.all or not args.names else args.names
    print(f"{'target':16} {'inputs':>10} {'seconds':>8} {'inputs/s':>9} {'cov/ft':>10}  result", flush=True)
    failed = False
    with ThreadPoolExecutor(max(1, args.jobs)) as pool:
        runs = [pool.submit(run_target, name, args.inputs, args.seconds, args.max_len, args.timeout, args.seed,
                            args.rss_mb, args.artifacts.resolve()) for name in chosen]
        for future in runs:
            outcome = future.result()
            short = outcome.inputs < args.inputs and not args.seconds
            result = f"FOUND {outcome.finding}" if outcome.finding else ("stopped early" if short else "ok")
            failed |= bool(outcome.finding) or short
            print(f"{outcome.target:16} {outcome.inputs:>10} {outcome.seconds:>8.1f} {outcome.rate:>9.0f} "
                  f"{outcome.coverage:>10}  {result}", flush=True)
            if outcome.finding:
                tail = [line for line in outcome.log.splitlines() if line.strip()][-12:]
                print("    " + "\n    ".join(tail), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
