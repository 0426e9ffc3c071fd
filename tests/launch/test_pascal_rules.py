"""The 2001 contest's module rules: no other units, no directives, Pascal only, an empty initialisation
part, 50 KB of static data — checked before anything runs, and off with `rules=fpc`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.launch.pascal_source import contest_problem
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
    out = arena("match", "arrows", f"pascal:{big}", "greedy", "--seed", "3", "--json", "--log", str(tmp_path / "b.msgpack"))
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["reason"] == "crash" and result["offender"] == 0
    assert "the contest allows 50 KB of static data" in result["detail"]
    fine = arena("match", "arrows", f"pascal:{big}:rules=fpc", "greedy", "--seed", "3", "--json",
                 "--log", str(tmp_path / "f.msgpack"))
    assert json.loads(fine.stdout)["reason"] != "crash"
