"""A bot's own folder: staged as a copy, shown at a neutral path, with real bots, files and uids."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.processes.process import PROJECT_ROOT, BotProcess, LaunchError, preflight
from arena.launch.sandbox import folders
from arena.launch.sandbox.sandbox import Sandbox, resolve_sandbox, unreachable
from arena.launch.sandbox.uids import pool_range
from arena.launch.specs.botspec import parse_bot_spec
from arena.logs.matchlog import read_log
from tests.helpers import ROOT, require, run
from tests.launch.sandbox.test_attacks import BOARD, needs_root

PROBE = '''\
import os
import sys

from protocol import Bot


class Decoy(Bot):
    """A second bot class: the file alone does not say which one plays."""


class Probe(Bot):
    """Blocking: says where it runs and what it sees, then takes the first free cell."""

    def __init__(self, tag="", **options):
        super().__init__(**options)
        self.tag = tag

    def init_game(self, game, seat, players, setup, time_left_ms, match):
        self.free = {(r, c) for r in range(setup["rows"]) for c in range(setup["cols"])}
        self.free -= {tuple(cell) for cell in setup["blocked"]}
        shipped = open(os.path.join(os.path.dirname(__file__), "weights.txt")).read().strip()
        print(f"PROBE file={__file__} tag={self.tag} shipped={shipped}", file=sys.stderr)
        for line in open("/proc/self/mountinfo"):
            print("MOUNT " + line.rstrip(), file=sys.stderr)
        sys.stderr.flush()

    def turn(self, events, time_left_ms):
        for _, (r, c) in events:
            self.free -= {(r + a, c + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
        r, c = min(self.free)
        self.free -= {(r + a, c + b) for a in (-1, 0, 1) for b in (-1, 0, 1)}
        return [r, c]
'''


@pytest.fixture
def entrant(tmp_path: Path) -> Path:
    """A bot's folder under a directory closed to other users (pytest's own), itself open to them."""
    assert unreachable(str(tmp_path)), "pytest's tmp_path should be closed to other users"
    folder = tmp_path / "entrant"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    (folder / "bot.py").write_text(PROBE)
    (folder / "weights.txt").write_text("w-42\n")
    for path in folder.iterdir():
        path.chmod(0o644)
    return folder


@pytest.fixture(params=["bwrap", "uid", "none"])
def any_mode(request: pytest.FixtureRequest) -> Sandbox:
    if request.param != "none":
        needs_root()
    if request.param == "bwrap":
        require("bwrap")
    return Sandbox(request.param)


def python_bots_need_bwrap() -> str:
    """Where a Python bot cannot run in `uid` mode on this machine: the closed directory, else ""."""
    return unreachable(sys.executable) or unreachable(str(PROJECT_ROOT / "protocol"))


@pytest.mark.parametrize("options", ["", ":tag=t7"])
def test_python_file_with_its_class_plays_in_every_mode(tmp_path: Path, entrant: Path, any_mode: Sandbox,
                                                        options: str) -> None:
    log = tmp_path / "m.msgpack"
    result, _ = run("blocking", [f"{entrant / 'bot.py'}:Probe{options}", "random"], BOARD, log=log,
                    sandbox=any_mode)
    if any_mode == Sandbox.UID and python_bots_need_bwrap():
        # docs/isolation.md: the arena's Python and SDK are not copied; the refusal names them, not the bot.
        assert result.offender == 0 and "is closed to the bot's own uid" in result.detail, result.detail
        assert str(entrant) not in result.detail.split(": ", 1)[1], result.detail
        return
    assert result.offender is None and result.reason == "blocked", (result.reason, result.detail)
    output = read_log(log).output[0]
    probe = next(line for line in output.splitlines() if line.startswith("PROBE"))
    assert f"tag={'t7' if options else ''} shipped=w-42" in probe, probe
    if any_mode == Sandbox.BWRAP:
        assert "file=/bot/bot.py" in probe, probe
    elif any_mode == Sandbox.UID:  # a copy the bot's uid can reach, though its host folder is closed
        assert str(entrant) not in probe and "file=/" in probe, probe
    else:
        assert f"file={entrant / 'bot.py'}" in probe, probe
    if any_mode == Sandbox.BWRAP:
        mounts = [line for line in output.splitlines() if line.startswith("MOUNT ")]
        assert any(" /bot " in line for line in mounts), mounts
        assert not [line for line in mounts if str(entrant) in line or str(tmp_path) in line], mounts


def test_registered_and_module_bots_have_no_own_folder() -> None:
    assert parse_bot_spec("random", "blocking").files == ""
    assert parse_bot_spec("arena.games.blocking.bots.simple:RandomBot", "blocking").files == ""
    assert parse_bot_spec(f"{ROOT / 'arena/games/blocking/bots/simple.py'}:RandomBot", "blocking").files == ""


def test_a_file_spec_names_its_folder_at_parse_time(entrant: Path) -> None:
    for text in (f"{entrant / 'bot.py'}", f"{entrant / 'bot.py'}:Probe", f"{entrant / 'bot.py'}:Probe:tag=x",
                 f"{entrant / 'bot.py'}:tag=x", f"stdio:/usr/bin/python3 {entrant / 'bot.py'}"):
        assert parse_bot_spec(text, "blocking").files == str(entrant.resolve()), text


def test_words_into_the_folder_are_rewritten_and_others_kept(entrant: Path) -> None:
    argv = ("/usr/bin/python3", "-m", "protocol.run", "--stdio", f"{entrant}/bot.py:Probe", "--options-json",
            f'{{"path": "{entrant}/x"}}', f"--weights={entrant}/weights.txt", str(entrant), "/etc/hostname",
            f"{entrant}-other/bot.py")
    assert folders.rewrite(argv, str(entrant), "/bot") == (
        "/usr/bin/python3", "-m", "protocol.run", "--stdio", "/bot/bot.py:Probe", "--options-json",
        f'{{"path": "{entrant}/x"}}', "--weights=/bot/weights.txt", "/bot", "/etc/hostname",
        f"{entrant}-other/bot.py")


# --- the staged copy --------------------------------------------------------------------


@pytest.fixture
def staged() -> Iterator[list[str]]:
    """Views made by a test, released after it."""
    views: list[str] = []
    yield views
    for view in views:
        folders.release(view)


def test_a_view_copies_what_the_bot_may_read_and_follows_no_link(entrant: Path, staged: list[str]) -> None:
    needs_root()
    (entrant / "sub").mkdir(mode=0o755)
    (entrant / "sub" / "run.sh").write_text("#!/bin/sh\n")
    (entrant / "sub" / "run.sh").chmod(0o755)
    (entrant / "private.txt").write_text("not for others")
    (entrant / "private.txt").chmod(0o600)
    secret = entrant.parent / "secret.txt"  # outside the folder, readable by root only
    secret.write_text("organiser-secret")
    secret.chmod(0o600)
    (entrant / "link").symlink_to(secret)
    os.mkfifo(entrant / "pipe")  # a copy that opened it for reading would hang
    staged.append(view := folders.stage(str(entrant), others=True))
    copy = Path(view)
    assert (copy / "bot.py").read_text() == PROBE and (copy / "weights.txt").stat().st_mode & 0o777 == 0o644
    assert (copy / "sub" / "run.sh").stat().st_mode & 0o777 == 0o755
    assert not (copy / "private.txt").exists() and not (copy / "pipe").exists()
    assert (copy / "link").is_symlink() and os.readlink(copy / "link") == str(secret)
    assert (copy / "bot.py").stat().st_uid == 0 and copy.stat().st_mode & 0o777 == 0o755
    assert not str(copy).startswith(str(entrant.parent))


def test_processes_of_one_bot_share_one_copy_until_the_folder_changes(entrant: Path, staged: list[str]) -> None:
    needs_root()
    first, second = (folders.stage(str(entrant), others=False) for _ in range(2))  # bwrap binds the copy itself
    gated = folders.stage(str(entrant), others=False, group=pool_range()[0])  # uid mode: a view of it
    staged.append(gated)
    assert first == second != gated
    assert os.stat(f"{first}/weights.txt").st_ino == os.stat(f"{gated}/weights.txt").st_ino
    (entrant / "weights.txt").write_text("w-43\n")
    staged.append(third := folders.stage(str(entrant), others=False))
    assert Path(third, "weights.txt").read_text() == "w-43\n"
    assert Path(first, "weights.txt").read_text() == "w-42\n"  # running bots keep what they started with
    folders.release(first)
    assert os.path.exists(first)  # the second process still runs
    folders.release(second)
    assert not os.path.exists(first)  # replaced, and used by none
    assert Path(gated, "weights.txt").read_text() == "w-42\n"  # a view's links outlive the copy
    staged.remove(gated)
    folders.release(gated)
    assert not os.path.exists(os.path.dirname(gated))


def test_a_view_in_uid_mode_is_closed_to_every_other_bot_uid(entrant: Path, staged: list[str]) -> None:
    needs_root()
    owner, other = pool_range()[0], pool_range()[1]
    staged.append(view := folders.stage(str(entrant), others=True, group=owner))

    def read_as(uid: int) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "cat",
                               f"{view}/weights.txt"], capture_output=True, text=True, timeout=30, check=False)

    assert read_as(owner).stdout == "w-42\n"
    denied = read_as(other)
    assert denied.returncode != 0 and "Permission denied" in denied.stderr, denied


def test_a_folder_past_the_cap_is_refused_in_one_line(entrant: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("bwrap")
    monkeypatch.setenv(folders.FOLDER_MB_ENV, "1")
    (entrant / "big.bin").write_bytes(b"\0" * (2 << 20))
    (entrant / "big.bin").chmod(0o644)
    with pytest.raises(folders.FolderError, match=r"holds more than 1 MiB \(\$ARENA_FOLDER_MB raises the cap\)"):
        folders.stage(str(entrant), others=False)
    spec = parse_bot_spec(f"{entrant / 'bot.py'}:Probe", "blocking")
    with pytest.raises(LaunchError, match=r"more than 1 MiB.*a folder of its own.*`dir`") as refused:
        preflight(spec, Sandbox.BWRAP)
    assert "\n" not in str(refused.value)
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", f"{entrant / 'bot.py'}:Probe",
                           "random", "--sandbox", "bwrap"], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 2 and "more than 1 MiB" in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_the_store_is_removed_at_exit_and_stale_ones_of_dead_arenas_too(entrant: Path) -> None:
    parent = folders.ROOT_PARENT if os.geteuid() == 0 else Path(tempfile.gettempdir())
    ended = subprocess.Popen(["true"])
    ended.wait()
    stale = parent / f"{folders.PREFIX}{ended.pid}-test"
    stale.mkdir(parents=True)
    (stale / "left.txt").write_text("left by a killed worker")
    script = ("import sys; from arena.launch.sandbox import folders; "
              "view = folders.stage(sys.argv[1], others=False); print(folders._own_store().base)")
    done = subprocess.run([sys.executable, "-c", script, str(entrant)], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, check=True)
    store = Path(done.stdout.strip())
    assert store.parent == parent and not store.exists(), store
    assert not stale.exists()


def test_a_process_gives_its_copy_back_when_it_ends(entrant: Path) -> None:
    process = BotProcess(parse_bot_spec(f"{entrant / 'bot.py'}:Probe", "blocking"), "", "", stdio=True,
                         sandbox=Sandbox.AUTO)
    process.start()
    try:
        view = process.view
        assert bool(view) == (resolve_sandbox(Sandbox.AUTO).mode != Sandbox.NONE), view
        if view:
            assert Path(view, "weights.txt").read_text() == "w-42\n"
    finally:
        process.kill()
    assert process.view == ""
    store = folders._own_store()
    if os.path.dirname(view) == str(store.copies_dir):  # bwrap shows the copy itself: kept, used by none now
        assert store.copies[os.path.basename(view)].users == 0
    elif view:  # uid mode: the process's own view is gone
        assert not os.path.exists(os.path.dirname(view))
