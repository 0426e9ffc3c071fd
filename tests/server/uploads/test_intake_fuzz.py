"""The intake's fuzz targets (bench/fuzz/intake_*.py): each seed answered rightly in process; a short fuzz run each."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

FUZZ = Path(__file__).resolve().parents[3] / "bench" / "fuzz"
TARGETS = sorted(path.stem for path in FUZZ.glob("intake_*.py") if "def TestOneInput" in path.read_text())


def test_every_intake_parser_has_a_target() -> None:
    assert TARGETS == ["intake_bundle", "intake_manifest", "intake_tar", "intake_zip"]


@pytest.mark.parametrize("name", TARGETS)
def test_each_seed_and_kept_input_is_answered_rightly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(FUZZ))
    target = importlib.import_module(name)
    harness = importlib.import_module("harness")
    kept = FUZZ / "corpus" / name  # inputs a fuzzing run once found wrong answers with: regressions
    inputs = target.seeds() + [path.read_bytes() for path in sorted(kept.glob("*"))]
    for data in inputs:
        harness.bounded(target.TestOneInput, data)


@pytest.mark.parametrize("name", TARGETS)
def test_a_short_fuzzing_run_finds_nothing(name: str, tmp_path: Path) -> None:
    try:
        import atheris  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("atheris is missing under CI (the test extra installs it)")
        pytest.skip("atheris is not installed")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    done = subprocess.run([sys.executable, str(FUZZ / f"{name}.py"), "-runs=2000", "-max_total_time=1",
                           "-rss_limit_mb=1024", "-print_final_stats=1", f"-artifact_prefix={tmp_path}/", str(corpus)],
                          capture_output=True, text=True, errors="replace", timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "stat::number_of_executed_units" in done.stderr and any(corpus.iterdir())
