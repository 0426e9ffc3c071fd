"""The 2001 contest's module rules: no other units, no directives, Pascal only, an empty initialisation
part, 50 KB of static data — checked before anything runs, and off with `rules=fpc`."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from arena.launch.pascal.pascal import _check_static_data
from arena.launch.processes.process import LaunchError
from arena.launch.specs.pascal_source import ObjectFileError, contest_problem, static_data_size
from tests.helpers import ROOT, require

EXAMPLE = ROOT / "bots" / "examples" / "territory.pas"


def arena(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, check=False)


def with_uses(tmp_path: Path) -> Path:
    """The example module with `uses sysutils;` in its implementation part (line 2 of it)."""
    text = EXAMPLE.read_text(encoding="latin-1")
    module = tmp_path / "territory.pas"
    module.write_text(text.replace("implementation\n", "implementation\n\nuses sysutils;\n", 1), encoding="latin-1")
    return module


def test_a_module_using_another_unit_is_refused_and_plays_with_rules_fpc(tmp_path: Path) -> None:
    require("fpc")
    module = with_uses(tmp_path)
    line = module.read_text(encoding="latin-1").splitlines().index("uses sysutils;") + 1
    refused = arena("match", "arrows", f"pascal:{module}", "greedy", "--seed", "3")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1
    assert f"territory.pas({line}): the contest allows no other units: `uses`" in refused.stderr
    played = arena("match", "arrows", f"pascal:{module}:rules=fpc", "greedy", "--seed", "3", "--json",
                   "--log", str(tmp_path / "m.msgpack"))
    assert played.returncode == 0, played.stderr
    assert json.loads(played.stdout)["reason"] in ("blocked", "normal")


def test_the_example_keeps_the_rules() -> None:
    assert contest_problem(EXAMPLE.read_text(encoding="latin-1"), EXAMPLE.name) is None


UNIT = "unit m;\ninterface\nprocedure p;\nimplementation\nprocedure p;\nbegin\nend;\n{TAIL}"


@pytest.mark.parametrize(("tail", "rule"), [
    ("begin\n  x := 1;\nend.", "m.pas(9): the contest wants an empty initialisation part"),
    ("initialization\n  x := 1;\nend.", "m.pas(9): the contest wants an empty initialisation part"),
    ("{$R+}\nend.", "m.pas(8): the contest allows no compiler directives: {$R+}"),
    ("(*$Q+*)\nend.", "m.pas(8): the contest allows no compiler directives: (*$Q+*)"),
    ("procedure q;\nbegin\n  asm nop end;\nend;\nend.", "m.pas(10): the contest allows Pascal only: `asm`"),
])
def test_each_rule_is_named_with_its_line(tail: str, rule: str) -> None:
    problem = contest_problem(UNIT.replace("{TAIL}", tail), "m.pas")
    assert problem is not None and problem.startswith(rule), problem


@pytest.mark.parametrize("tail", ["end.", "begin\nend.", "initialization\nend.", "begin\n;\nend.",
                                  "type r = record case k: integer of 0: (a: integer); end;\nend.",
                                  "const s = '{$R+} uses x';\nend."])
def test_modules_within_the_rules_pass(tail: str) -> None:
    assert contest_problem(UNIT.replace("{TAIL}", tail), "m.pas") is None


def test_more_than_50_kb_of_static_data_is_refused_at_launch(tmp_path: Path) -> None:
    require("fpc")
    text = EXAMPLE.read_text(encoding="latin-1")
    big = tmp_path / "territory.pas"
    big.write_text(text.replace("implementation\n", "implementation\n\nvar ballast: array[0..30000] of integer;\n", 1),
                   encoding="latin-1")
    out = arena("match", "arrows", f"pascal:{big}", "greedy", "--seed", "3", "--json",
                "--log", str(tmp_path / "b.msgpack"))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["reason"] == "crash" and result["offender"] == 0
    assert "the contest allows 50 KB of static data" in result["detail"]
    fine = arena("match", "arrows", f"pascal:{big}:rules=fpc", "greedy", "--seed", "3", "--json",
                 "--log", str(tmp_path / "f.msgpack"))
    assert json.loads(fine.stdout)["reason"] != "crash"


# --- found by bench/fuzz/pascal_*.py (inputs kept in bench/fuzz/corpus) ----------------------


@pytest.mark.parametrize("source", [";" * 100_000, "a;" * 50_000, "'' " * 33_000, "{$A+" + ",A+" * 33_000 + "}"])
def test_the_rules_check_takes_little_memory_and_time(source: str) -> None:
    tracemalloc.start()
    try:
        contest_problem(UNIT.replace("{TAIL}", source + "\nend."), "m.pas")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 32 * len(source), peak  # a tuple and two ints per token once took 135 bytes a byte


def test_a_long_directive_is_named_in_one_short_line() -> None:
    problem = contest_problem(UNIT.replace("{TAIL}", "{$A+" + ",A+" * 33_000 + "}\nend."), "m.pas")
    assert problem is not None and problem.startswith("m.pas(") and len(problem) < 250, problem


def test_a_broken_object_file_is_one_line_error_and_refuses_the_module(tmp_path: Path) -> None:
    kept = ROOT / "bench" / "fuzz" / "corpus" / "pascal_object"
    assert static_data_size(b"not an object") is None
    assert static_data_size(b"\x7fELF\x01" + bytes(60)) is None  # 32-bit: not what fpc makes here
    assert static_data_size((kept / "elf-magic-only").read_bytes()) is None  # once an IndexError
    for name in ("section-table-cut", "name-offset-outside"):  # once a struct.error, and a silent 0
        with pytest.raises(ObjectFileError) as caught:
            static_data_size((kept / name).read_bytes())
        assert "\n" not in str(caught.value)
    (tmp_path / "units").mkdir()
    (tmp_path / "units" / "m.o").write_bytes((kept / "section-table-cut").read_bytes())
    with pytest.raises(LaunchError,
                       match=r"^m\.pas: the compiled module's object file cannot be read \(.*\); refused$"):
        _check_static_data(tmp_path, "m", "m.pas")
