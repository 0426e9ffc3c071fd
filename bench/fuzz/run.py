"""Run fuzz targets of bench/fuzz and report, per target, the inputs run and inputs per second.

    python bench/fuzz/run.py intake_tar intake_zip --inputs 1000000
    python bench/fuzz/run.py --all --seconds 60

Each target `NAME.py` is run as its own atheris fuzzer (libFuzzer's flags) on a fresh corpus
folder (which a target may seed), with a memory cap; a crash stops that target, leaves the
input that caused it in the folder given by --artifacts, and makes the run fail.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def targets() -> list[str]:
    """Every target of this folder (a file with a TestOneInput)."""
    return sorted(path.stem for path in HERE.glob("*.py") if "def TestOneInput" in path.read_text())


def run_target(name: str, inputs: int, seconds: float, rss_mb: int, artifacts: Path) -> tuple[int, float, str]:
    """(inputs run, seconds, "" or what went wrong) of one target."""
    artifacts.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{name}-") as corpus:
        argv = [sys.executable, str(HERE / f"{name}.py"), f"-runs={inputs}", f"-rss_limit_mb={rss_mb}",
                "-print_final_stats=1", f"-artifact_prefix={artifacts}/{name}-", corpus]
        if seconds:
            argv.insert(2, f"-max_total_time={int(seconds)}")
        started = time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, errors="replace", check=False)
        took = time.monotonic() - started
    found = re.search(r"stat::number_of_executed_units:\s*(\d+)", done.stderr)
    count = int(found.group(1)) if found else 0
    problem = ""
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        crash = next((line for line in lines if "Finding" in line or "Error" in line or "ERROR" in line), "")
        problem = f"exit status {done.returncode}: {crash or (lines[-1] if lines else '')}"
    return count, took, problem


def main() -> int:
    """Run the targets asked for; one line each; status 1 if any found something."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="targets (file names without .py); see --list")
    parser.add_argument("--all", action="store_true", help="every target of bench/fuzz")
    parser.add_argument("--list", action="store_true", help="print the targets and stop")
    parser.add_argument("--inputs", type=int, default=100_000, help="inputs per target (default 100000)")
    parser.add_argument("--seconds", type=float, default=0, help="stop each target after this long as well")
    parser.add_argument("--rss-mb", type=int, default=1024, help="a target's memory cap (libFuzzer's rss_limit_mb)")
    parser.add_argument("--artifacts", type=Path, default=Path(tempfile.gettempdir()) / "fuzz-artifacts",
                        help="where a crashing input is kept")
    args = parser.parse_args()
    known = targets()
    if args.list:
        print("\n".join(known))
        return 0
    names = known if args.all else args.names
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}" if unknown else "name targets or give --all")
    failed = False
    for name in names:
        count, took, problem = run_target(name, args.inputs, args.seconds, args.rss_mb, args.artifacts)
        rate = count / took if took else 0.0
        print(f"{name}: {count} inputs in {took:.1f} s, {rate:,.0f} inputs/s" + (f" — {problem}" if problem else ""),
              flush=True)
        failed |= bool(problem)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
