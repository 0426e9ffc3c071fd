"""The fuzz targets of the wire, the Pascal checks and setup files (bench/fuzz): every seed and kept
input answered rightly in process, a short atheris run of each, and a planted bug found."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.helpers import ROOT

FUZZ = ROOT / "bench" / "fuzz"
TARGETS = sorted(path.stem for path in FUZZ.glob("*.py")
                 if path.name != "run.py" and "def TestOneInput" in path.read_text()
                 and path.stem.startswith(("wire_", "pascal_", "setup_")))


def target(name: str, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(FUZZ))
    return importlib.import_module(name)


def require_atheris() -> None:
    try:
        import atheris  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("atheris is missing under CI (the test extra installs it on Linux x86_64)")
        pytest.skip("atheris is not installed")


def test_every_parser_a_bot_or_an_entrant_reaches_has_a_target() -> None:
    assert TARGETS == ["pascal_contest", "pascal_module", "pascal_object", "setup_arrows", "setup_json",
                       "setup_tiles", "setup_toml", "wire_json", "wire_moves", "wire_msgpack", "wire_stdio",
                       "wire_zmtp"]


@pytest.mark.parametrize("name", TARGETS)
def test_each_seed_and_kept_input_is_answered_rightly(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    module = target(name, monkeypatch)
    seeds = module.seeds()
    assert seeds, name
    kept = FUZZ / "corpus" / name  # inputs a fuzzing run found the product answering wrongly: regressions
    for data in seeds + [path.read_bytes() for path in sorted(kept.glob("*"))]:
        module.TestOneInput(data)  # the harness traces every input's memory here


def test_the_harness_catches_a_multi_line_error_and_an_allocation(monkeypatch: pytest.MonkeyPatch) -> None:
    harness = target("harness", monkeypatch)
    assert harness.one_line(ValueError("x: one line")) == "x: one line"
    for error in (ValueError("two\nlines"), ValueError(""), ValueError("x" * 5000)):
        with pytest.raises(harness.Finding):
            harness.one_line(error)
    with pytest.raises(harness.Finding, match="allocated"):
        with harness.bounded_memory(1 << 20):
            ballast = bytearray(8 << 20)
    assert len(ballast) == 8 << 20
    with harness.bounded_memory(1 << 20):
        bytearray(1 << 10)


@pytest.mark.parametrize("name", TARGETS)
def test_a_short_fuzzing_run_finds_nothing(name: str, tmp_path: Path) -> None:
    require_atheris()
    corpus = tmp_path / "corpus"
    done = subprocess.run([sys.executable, str(FUZZ / f"{name}.py"), "-runs=500", "-max_total_time=2",
                           "-print_final_stats=1", f"-artifact_prefix={tmp_path}/", str(corpus)],
                          capture_output=True, text=True, errors="replace", timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "stat::number_of_executed_units" in done.stderr and any(corpus.iterdir())


PLANTED = '''
import atheris
import harness


@atheris.instrument_func  # coverage of the target itself: one byte at a time, 256**3 inputs become ~1000
def TestOneInput(data):
    if len(data) > 3 and data[0] == 0x42 and data[1] == 0x55 and data[2] == 0x47:
        raise ValueError("a planted bug")


if __name__ == "__main__":
    harness.main(TestOneInput, lambda: [b"seed"])
'''


def test_a_fuzzing_run_finds_a_planted_bug_and_keeps_the_input(tmp_path: Path) -> None:
    require_atheris()
    planted = tmp_path / "planted.py"
    planted.write_text(PLANTED)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(FUZZ), str(ROOT)]))
    done = subprocess.run([sys.executable, str(planted), "-runs=200000", "-seed=1", f"-artifact_prefix={tmp_path}/",
                           str(tmp_path / "corpus")], env=env, capture_output=True, text=True, errors="replace",
                          timeout=120, check=False)
    assert done.returncode != 0 and "a planted bug" in done.stdout + done.stderr
    crashes = list(tmp_path.glob("crash-*"))
    assert len(crashes) == 1 and crashes[0].read_bytes()[:3] == b"BUG"


def test_the_runner_reports_inputs_per_second(tmp_path: Path) -> None:
    require_atheris()
    done = subprocess.run([sys.executable, str(FUZZ / "run.py"), "pascal_object", "--inputs", "300",
                           "--artifacts", str(tmp_path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "pascal_object" in done.stdout and "inputs/s" in done.stdout
