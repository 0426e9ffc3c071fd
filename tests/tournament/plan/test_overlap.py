"""Entrants whose own folders overlap: refused, or (shared_dirs = true) allowed; a spy sees only its own folder."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import read_log
from arena.tournament.plan.config import ConfigError, config_from_data, load_config
from arena.tournament.plan.errors import TournamentError
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES, ROOT, require
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, needs_root
from tests.tournament.helpers import write_config

MARKER = "honest-strategy-4711"  # in the honest entrant's source only
BOARD = {"rows": 4, "cols": 5}


def contest(root: Path, own_folders: bool, **keys: Any) -> Path:
    """A class's contest: a spy and an honest entrant, with the config beside them (and the results below)."""
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    # (The spy's folder is not named "spy": a word of a command line that names an existing path is a path.)
    places = {"spy": root / "mallory" if own_folders else root, "honest": root / "honest" if own_folders else root}
    for folder in set(places.values()):
        folder.mkdir(mode=0o755, exist_ok=True)
        folder.chmod(0o755)
    (places["spy"] / "spy.py").write_text((FIXTURES / "attacker.py").read_text())
    (places["honest"] / "honest.py").write_text(f"# {MARKER}\n" + (FIXTURES / "stdiobot.py").read_text())
    for name, folder in places.items():
        (folder / f"{name}.py").chmod(0o644)
    where = {name: f"{folder.name}/" if own_folders else "" for name, folder in places.items()}
    bots: list[dict[str, Any]] = [
        # The spy also names the contest's host folder, which it may have guessed.
        {"spec": f"stdio:{SYSTEM_PYTHON} {where['spy']}spy.py spy {root}", "name": "spy"},
        {"spec": f"stdio:{SYSTEM_PYTHON} {where['honest']}honest.py", "name": "honest"},
    ]
    if own_folders:
        bots[0]["dir"], bots[1]["dir"] = "mallory", "honest"
    config = write_config(root / "class.toml", {
        "name": "class", "game": "blocking", "seed": 3, "games_per_pairing": 2, "concurrency": 1,
        "persistent": False, "sandbox": "bwrap", "setups": {"fixed": BOARD}, "clock": {"budget_ms": 5000},
        **keys, "bots": bots})
    (root / "class.toml").chmod(0o644)
    return config


def play(config: Path) -> tuple[list[Any], list[str]]:
    """Run the contest into results/ beside the config; the records and every spy report, in order."""
    out = config.parent / "results"
    coordinator = Coordinator(load_config(config), RunOptions(out=out, quiet=True))
    try:
        standings = coordinator.run()
    finally:
        coordinator.close()
    records = sorted(standings.records, key=lambda r: r.match)
    reports = []
    for record in records:
        text = read_log(out / record.log).output[record.names.index("spy")]
        reports += [line for line in text.splitlines() if line.startswith("ATTACK spy:")]
    return records, reports


def test_entrants_in_one_folder_are_refused_in_one_line(tmp_path: Path) -> None:
    config = contest(tmp_path / "class", own_folders=False)
    with pytest.raises(ConfigError) as refused:
        load_config(config)
    message = str(refused.value)
    assert "\n" not in message
    assert "bots[0] (spy) and bots[1] (honest) share the folder" in message, message
    assert "`dir` in its entry" in message and "shared_dirs = true" in message, message


def test_a_spy_sees_everything_when_shared_and_only_its_own_folder_with_dir(tmp_path: Path) -> None:
    needs_root()
    require("bwrap")
    # The control: shared_dirs = true (trusted bots) shows the spy the whole class folder.
    records, reports = play(contest(tmp_path / "shared", own_folders=False, shared_dirs=True))
    assert all(r.offender is None for r in records), [(r.reason, r.detail) for r in records]
    assert len(reports) == 2 and all("SUCCEEDED" in line for line in reports), reports
    assert "honest.py" in reports[0] and "class.toml" in reports[0], reports[0]
    assert "results.sqlite" in reports[1] and ".msgpack" in reports[1], reports[1]  # the first match's log
    spy_output = read_log(tmp_path / "shared/results" / records[0].log).output[records[0].names.index("spy")]
    assert MARKER in spy_output  # the other entrant's source, really read

    # The fix: a folder per entrant, named by `dir`; the config and results stay beside them.
    records, reports = play(contest(tmp_path / "own", own_folders=True))
    assert all(r.offender is None and r.reason == "blocked" for r in records), [(r.reason, r.detail) for r in records]
    assert len(reports) == 2 and all("blocked" in line for line in reports), reports
    for record in records:
        for text in read_log(tmp_path / "own/results" / record.log).output.values():
            assert MARKER not in text and "SPY " not in text, text[-500:]


def bots_at(root: Path, *names: str) -> list[dict[str, Any]]:
    """Stdio entrants at root/NAME (a path with a slash: a folder of that name), each a copy of the fixture bot."""
    bots = []
    for name in names:
        path = root / f"{name}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text((FIXTURES / "stdiobot.py").read_text())
        bots.append({"spec": f"stdio:{SYSTEM_PYTHON} {path}", "name": Path(name).name})
    return bots


def test_each_kind_of_overlap_is_named_with_both_sides(tmp_path: Path) -> None:
    base = {"game": "blocking", "setups": {"fixed": BOARD}}

    def refusal(data: dict[str, Any], **where: Any) -> str:
        with pytest.raises(ConfigError) as refused:
            config_from_data({**base, **data}, base=tmp_path, **where)
        return str(refused.value)

    nested = bots_at(tmp_path / "n", "alice", "bob/bob")
    assert "the folder of bots[1] (bob)" in refusal({"bots": nested}) and "is inside that of bots[0] (alice)" \
        in refusal({"bots": nested})
    own = bots_at(tmp_path / "o", "alice/alice")
    config = tmp_path / "o" / "alice" / "t.toml"
    config.write_text("")
    message = refusal({"bots": [*own, "random"]}, config_file=config)
    assert f"the folder of bots[0] (alice), {tmp_path}/o/alice, holds the config {config}" in message, message
    named = bots_at(tmp_path / "f", "alice/alice", "bob/bob")
    named[1]["spec"] += f" {tmp_path}/f/alice/alice.py"  # bob's command line names a file in alice's folder
    assert f"holds {tmp_path}/f/alice/alice.py, a file of bots[1] (bob)" in refusal({"bots": named})
    # The same program twice (other options, another name) is one entrant; registered bots have no folder.
    same = bots_at(tmp_path / "s", "alice/alice")
    config_from_data({**base, "bots": [same[0], {**same[0], "name": "alice-2"}, "random", "sequential"]},
                     base=tmp_path)
    # Allowed for trusted bots.
    config_from_data({**base, "bots": nested, "shared_dirs": True}, base=tmp_path)
    assert "shared_dirs: must be true or false" in refusal({"bots": nested, "shared_dirs": "yes"})


def test_a_dir_must_hold_the_bots_own_files(tmp_path: Path) -> None:
    bots = bots_at(tmp_path, "alice/alice")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(ConfigError, match=r"bots\[0\]\.dir: .*elsewhere does not hold the bot's own files"):
        config_from_data({"game": "blocking", "bots": [{**bots[0], "dir": "elsewhere"}, "random"]}, base=tmp_path)
    config = config_from_data({"game": "blocking", "bots": [{**bots[0], "dir": "."}, "random"]}, base=tmp_path)
    assert config.bots[0].spec.files == str(tmp_path.resolve())


def test_results_inside_a_bots_folder_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    bots = bots_at(tmp_path, "alice/alice")
    config = config_from_data({"game": "blocking", "bots": [*bots, "random"]}, base=tmp_path)
    out = tmp_path / "alice" / "results"
    with pytest.raises(TournamentError, match=r"the folder of bots\[0\] \(alice\), .*alice, and the results "
                                              r"directory .*alice/results overlap; give each bot"):
        Coordinator(config, RunOptions(out=out, quiet=True))
    assert not out.exists()


def test_the_demo_configs_load() -> None:
    for path in sorted((ROOT / "configs" / "tournaments").glob("*.toml")):
        assert load_config(path).bots, path


VERSION = """from protocol import Bot


class Version(Bot):
    \"\"\"Blocking: the first free cell.\"\"\"

    def init_game(self, game, seat, players, setup, time_left_ms, match):
        from arena.games import get_game

        self.state, _ = get_game(game).start(setup, players, 0)

    def turn(self, events, time_left_ms):
        for _, move in events:
            self.state.apply(move)
        move = self.state.legal_moves()[0]
        self.state.apply(move)
        return move
"""


def match_warnings(cwd: Path, *args: str) -> tuple[list[str], bool]:
    """The warnings of `arena match ARGS` in cwd (a run that must succeed), and whether its bots were contained."""
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=180, check=False)
    assert done.returncode == 0, done.stderr
    return [line for line in done.stderr.splitlines() if "warning" in line], "sandbox none" not in done.stderr


def test_two_versions_side_by_side_play_a_series_without_a_warning(tmp_path: Path) -> None:
    # The README's SPRT example: v7.py beside v6.py, both shown the same folder, neither gains.
    tmp_path.chmod(0o755)
    (tmp_path / "bots" / "mine").mkdir(parents=True, mode=0o755)
    for folder in (tmp_path / "bots", tmp_path / "bots" / "mine"):
        folder.chmod(0o755)
    for version in ("v7", "v6"):
        (tmp_path / "bots" / "mine" / f"{version}.py").write_text(VERSION)
        (tmp_path / "bots" / "mine" / f"{version}.py").chmod(0o644)
    warnings, contained = match_warnings(tmp_path, "blocking", "bots/mine/v7.py", "bots/mine/v6.py", "--games", "2",
                                         "--set", "rows=4", "--set", "cols=4")
    assert warnings == []
    if not contained:  # sandbox none warns of nothing: the rule was not put to the test here
        require("bwrap")


def test_arena_match_warns_when_one_bots_folder_holds_the_others(tmp_path: Path) -> None:
    tmp_path.chmod(0o755)
    alice, bob = (b["spec"] for b in bots_at(tmp_path, "alice", "bob/bob"))
    for path in (tmp_path / "alice.py", tmp_path / "bob" / "bob.py"):
        path.chmod(0o644)
    (tmp_path / "bob").chmod(0o755)
    warnings, contained = match_warnings(tmp_path, "blocking", alice, bob, "--set", "rows=4", "--set", "cols=4",
                                         "--log", str(tmp_path / "m.msgpack"))
    if not contained:  # sandbox none: nothing is hidden from trusted bots anyway
        assert warnings == []
        return
    # alice, at the top, is shown bob's folder; bob is not shown alice's file
    assert len(warnings) == 1 and f"the folder of seat 1 (bob.py), {tmp_path / 'bob'}, is inside that of seat 0 " \
        f"(alice.py), {tmp_path}" in warnings[0], warnings
