"""A student's first commands, run as the student runs them (a real `arena` in the student's folder).

Each mistake is answered in one line that names the fix in the student's own paths, with exit
status 2 and before any match starts (no log, no results); each has its control that plays.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

TILES_V2 = '''from protocol import Bot


class TilesV2(Bot):
    """Tiles: the first legal move, with the README's options pattern."""

    def __init__(self, depth=2, **options):
        super().__init__(**options)
        self.depth = depth

    def init_game(self, game, seat, players, setup, time_left_ms, match):
        from arena.games import get_game

        self.state, _ = get_game(game).start(setup, players, 0)

    def turn(self, events, time_left_ms):
        for _, move in events:
            self.state.apply(move)
        move = self.state.legal_moves()[0]
        self.state.apply(move)
        return move
'''
NO_CLASS = '''def turn(events, time_left_ms):
    return [0, "g"]
'''


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`arena ARGS…` in the student's folder cwd."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=180, check=False)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """The student's folder, readable by the bots' own uids."""
    tmp_path.chmod(0o755)
    return tmp_path


def write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.parent.chmod(0o755)
    path.write_text(text)
    path.chmod(mode)
    return path


def one_line(out: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a usage error (exit 2, nothing else on stderr but the sandbox notice)."""
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    lines = [line for line in out.stderr.splitlines() if not line.startswith("arena: sandbox")]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""
    return lines[0]


def test_an_executable_in_the_current_folder_is_named_with_its_fix(folder: Path) -> None:
    program = write(folder / "rawbot", f"#!{sys.executable}\n" + (ROOT / "bots/examples/raw_blocking.py").read_text(),
                    0o755)
    line = one_line(arena("match", "blocking", "exec:rawbot", "random", "--set", "rows=4", "--set", "cols=4",
                          cwd=folder))
    assert "exec:./rawbot" in line and "PATH" in line, line
    program.chmod(0o644)  # there, but not a program: the fix is its mode
    line = one_line(arena("match", "blocking", "exec:./rawbot", "random", cwd=folder))
    assert "not executable: ./rawbot (chmod +x ./rawbot" in line, line
    program.chmod(0o755)
    played = arena("match", "blocking", "exec:./rawbot", "random", "--set", "rows=4", "--set", "cols=4",
                   "--log", "m.msgpack", cwd=folder)
    assert played.returncode == 0 and "reason blocked" in played.stdout, played.stderr


def test_a_misspelt_option_of_ones_own_bot_is_refused_before_the_match(folder: Path) -> None:
    write(folder / "tiles_v2.py", TILES_V2)
    line = one_line(arena("match", "tiles", "tiles_v2.py:TilesV2:dept=5", "greedy", cwd=folder))
    assert line.endswith("unknown option 'dept' (options of TilesV2: depth=2, seed=0)"), line
    assert "tiles_v2.py:TilesV2:dept=5" in line
    assert not (folder / "logs").exists()
    played = arena("match", "tiles", "tiles_v2.py:TilesV2:depth=5", "greedy", "--log", "m.msgpack", cwd=folder)
    assert played.returncode == 0 and "plies" in played.stdout, played.stderr


@pytest.mark.parametrize("where", ["noclass.py", "mine/noclass.py"])
def test_a_file_without_a_bot_class_is_a_usage_error_in_the_students_own_path(folder: Path, where: str) -> None:
    write(folder / where, NO_CLASS)
    for series in ([], ["--games", "2"]):
        line = one_line(arena("match", "tiles", where, "greedy", *series, cwd=folder))
        assert f"{where} defines no subclass of protocol.Bot" in line and f"exec:python3 {where}" in line, line
        assert "/bot/" not in line and str(folder) not in line, line
        assert not (folder / "logs").exists() and not (folder / "results").exists()


def test_a_file_with_two_bot_classes_names_one_in_the_students_own_path(folder: Path) -> None:
    write(folder / "mine/two.py", TILES_V2 + "\n\nclass Other(TilesV2):\n    pass\n")
    line = one_line(arena("match", "tiles", "mine/two.py", "greedy", cwd=folder))
    assert line.endswith("mine/two.py defines 2 Bot subclasses (TilesV2, Other): name one, mine/two.py:TilesV2"), line
    played = arena("match", "tiles", "mine/two.py:Other", "greedy", "--log", "m.msgpack", cwd=folder)
    assert played.returncode == 0, played.stderr


def boards(text: str) -> list[str]:
    """The tiles boards of a match's text, each from its `pot:` line to the blank line after it."""
    found, current = [], []
    for line in text.splitlines():
        if line.startswith("pot:") or current:
            current.append(line)
        if current and not line.strip():
            found.append("\n".join(current[:-1]))
            current = []
    return found + (["\n".join(current)] if current else [])


def test_show_and_replay_draw_tiles_alike_and_the_sandbox_notice_comes_first(folder: Path) -> None:
    shown = subprocess.run([sys.executable, "-m", "arena.cli", "match", "tiles", "greedy", "random", "--seed", "3",
                            "--show", "--log", "m.msgpack"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, cwd=folder, timeout=180, check=False)
    assert shown.returncode == 0, shown.stdout
    lines = shown.stdout.splitlines()
    notices = [i for i, line in enumerate(lines) if line.startswith("arena: sandbox")]
    assert notices and notices[0] < lines.index(next(line for line in lines if line.startswith("pot:")))
    replayed = arena("replay", "m.msgpack", cwd=folder)
    assert replayed.returncode == 0, replayed.stderr
    plies = int(lines[-2].rsplit(";", 1)[1].split()[0])  # "...; N plies", then "log: …"
    assert len(boards(shown.stdout)) == plies + 1 and boards(replayed.stdout) == boards(shown.stdout)
    assert "row 0" in boards(replayed.stdout)[0]  # the game's terminal view, not the position's render()


CRASHER = TILES_V2.replace("        move = self.state.legal_moves()[0]",
                           "        if self.state.ply >= 2:\n            raise RuntimeError('out of ideas')\n"
                           "        move = self.state.legal_moves()[0]")


def test_a_crash_says_first_who_crashed_and_why(folder: Path) -> None:
    write(folder / "crasher.py", CRASHER)
    done = arena("match", "tiles", "crasher.py", "greedy", "--seed", "3", "--log", "m.msgpack", cwd=folder)
    assert done.returncode == 0, done.stderr
    line = done.stdout.splitlines()[0]
    assert line.startswith("tiles seed 3: crasher (seat 0) crashed after 2 plies: "), line
    assert "RuntimeError: out of ideas" in line and "; greedy (seat 1) wins; scores" in line, line
    assert line.index("crashed") < line.index("wins")


def test_a_series_and_a_tournament_name_the_report_page_alike(folder: Path) -> None:
    hints = []
    for command, out in (("match", "series"), ("tournament", "league")):
        done = arena(command, "tiles", "greedy", "random", "--games", "2", "--out", out, cwd=folder)
        assert done.returncode == 0, done.stderr
        results = [line for line in done.stdout.splitlines() if line.startswith("results: ")]
        hints.append(results[-1].partition("  ")[2].replace(out, "DIR"))
        viewed = arena("view", out, cwd=folder)
        assert viewed.returncode == 0 and (folder / out / "report.html").is_file(), viewed.stderr
    assert hints[0] == hints[1] == "(arena verify DIR; arena view DIR: the report page with every match)", hints
