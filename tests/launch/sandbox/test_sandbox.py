"""The uid pool, cgroup limits and machine refusals, with real processes (as root)."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.processes.process import BotProcess, Limits, MachineError
from arena.launch.sandbox import uids
from arena.launch.sandbox.sandbox import Sandbox, check_sandbox
from arena.launch.specs.botspec import parse_bot_spec
from arena.match.hub import Hub
from arena.match.onematch import launch_player
from arena.tournament.plan.config import ConfigError, config_from_data
from tests.helpers import FIXTURES, ROOT, require, run
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, attacker, needs_root
from tests.tournament.helpers import cli, read_matches, write_config

BASE = 61000  # a pool of the tests' own, away from the default one


@pytest.fixture
def tiny_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A pool of one uid with its own lock folder (for this process and the commands it starts)."""
    needs_root()
    locks = tmp_path / "locks"
    monkeypatch.setenv("ARENA_UID_BASE", str(BASE))
    monkeypatch.setenv("ARENA_UID_COUNT", "1")
    monkeypatch.setenv("ARENA_UID_LOCKS", str(locks))
    monkeypatch.setattr(uids, "LOCK_DIR", locks)
    yield locks


def hold(locks: Path) -> int:
    """Take the pool's only uid from outside the arena, as another worker would."""
    locks.mkdir(parents=True, exist_ok=True)
    fd = os.open(locks / str(BASE), os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def test_a_uid_is_leased_to_one_holder_at_a_time(tiny_pool: Path) -> None:
    lease = uids.acquire()
    assert lease.uid == BASE
    probe = [sys.executable, "-c", "from arena.launch.sandbox import uids; uids.acquire()"]
    other = subprocess.run(probe, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert other.returncode != 0 and "in use" in other.stderr
    lease.release()
    again = subprocess.run(probe, capture_output=True, text=True, cwd=ROOT, timeout=60, check=False)
    assert again.returncode == 0, again.stderr


def test_a_uid_left_busy_by_a_dead_holder_is_emptied_before_reuse(tiny_pool: Path) -> None:
    tiny_pool.mkdir(parents=True)
    (tiny_pool / str(BASE)).write_text("busy\n")  # its holder died without releasing it
    leftover = subprocess.Popen(["setpriv", f"--reuid={BASE}", f"--regid={BASE}", "--clear-groups", "sleep", "600"])
    try:
        deadline = time.monotonic() + 10
        while os.stat(f"/proc/{leftover.pid}").st_uid != BASE and time.monotonic() < deadline:
            time.sleep(0.01)
        lease = uids.acquire()
        assert leftover.wait(timeout=10) == -9
        lease.release()
    finally:
        leftover.kill()
        leftover.wait()


def test_no_free_uid_is_the_machines_error_not_a_bots(tiny_pool: Path, tmp_path: Path) -> None:
    fd = hold(tiny_pool)
    try:
        log = tmp_path / "m.msgpack"
        done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", attacker("proc_sys"),
                               "random", "--sandbox", "bwrap", "--log", str(log)],
                              capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    finally:
        os.close(fd)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "in use" in done.stderr and "no result recorded" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and not log.exists()


def test_tournament_stops_without_recording_when_no_uid_is_free_and_resumes(
        tiny_pool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    require("bwrap")
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "sequential"],
                                                "sandbox": "bwrap", "concurrency": 1})
    out = tmp_path / "out"
    fd = hold(tiny_pool)
    try:
        done = cli("tournament", str(config), "--out", str(out), "--quiet")
    finally:
        os.close(fd)
    assert done.returncode == 1 and "--resume" in done.stderr and "in use" in done.stderr, done.stderr
    assert not (out / "matches.csv").exists() or read_matches(out) == []
    monkeypatch.setenv("ARENA_UID_COUNT", "4")  # room for both seats again
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    rows = read_matches(out)
    assert len(rows) == 2 and all(r["reason"] == "blocked" for r in rows), rows


def test_a_refused_fork_is_retried(monkeypatch: pytest.MonkeyPatch) -> None:
    real = subprocess.Popen
    refusals = iter([OSError(errno.EAGAIN, "Resource temporarily unavailable")] * 2)

    def refusing(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202 - Popen's own signature
        refusal = next(refusals, None)
        if refusal is not None:
            raise refusal
        return real(*args, **kwargs)

    monkeypatch.setattr(subprocess, "Popen", refusing)
    result, _ = run("blocking", ["random", "sequential"], {"rows": 4, "cols": 4})
    assert result.reason == "blocked" and result.offender is None

    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.EAGAIN, "no")))
    process = BotProcess(parse_bot_spec("random", "blocking"), "", "")
    with pytest.raises(MachineError, match="refused a process"):
        process.start()
    assert process.workdir == ""


def test_memory_limit_is_named_when_it_stops_a_bot(tmp_path: Path) -> None:
    needs_root()
    hog = tmp_path / "hog.py"
    hog.write_text("x = bytearray(1)\nwhile True:\n    x += bytearray(16 << 20)\n")
    hog.chmod(0o644)
    tmp_path.chmod(0o755)
    hub = Hub()
    try:
        player = launch_player(hub, parse_bot_spec(f"stdio:{SYSTEM_PYTHON} {hog}", "blocking"),
                               Limits(memory_mb=64, address_space_mb=None), Sandbox.AUTO)
        assert player.process is not None
        assert player.process.wait_exit(30), "the hog was not stopped"
        assert "memory limit (64 MiB)" in player.process.describe_exit(), player.process.describe_exit()
        player.process.kill()
    finally:
        hub.close()


def test_tournament_config_checks_toolchain_and_own_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    base = {"game": "arrows", "bots": ["greedy", f"pascal:{ROOT / 'bots/examples/territory.pas'}"]}
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(ConfigError, match="Free Pascal"):
        config_from_data(base, base=ROOT)
    monkeypatch.undo()
    with pytest.raises(ConfigError, match=r"bots\[1\]\.dir.*no such directory"):
        config_from_data({"game": "blocking", "bots": ["random", {"spec": "sequential", "dir": "nowhere"}]},
                         base=tmp_path)
    config = config_from_data({"game": "blocking", "bots": [
        "random", {"spec": f"stdio:{SYSTEM_PYTHON} {FIXTURES / 'stdiobot.py'}", "dir": str(FIXTURES)}]}, base=ROOT)
    assert config.bots[1].spec.files == str(FIXTURES)


def test_unknown_sandbox_is_one_line() -> None:
    with pytest.raises(Exception, match="known: auto, bwrap, uid, none"):
        check_sandbox("jail")


def test_match_without_free_pascal_is_a_usage_error(tmp_path: Path) -> None:
    env = {**os.environ, "PATH": str(tmp_path)}  # no fpc anywhere
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "arrows",
                           f"pascal:{ROOT / 'bots/examples/territory.pas'}", "greedy"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60, check=False)
    assert done.returncode == 2 and "fp-compiler" in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
