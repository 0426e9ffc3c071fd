"""Real attacking bots against the sandbox modes: every attack must fail, every honest bot must not.

Run as root with bubblewrap (as CI does): `bwrap` is the default mode on such a machine,
`uid` is the mode without bubblewrap. Each attack is reported by the attacker itself and,
where it has one, its real effect is checked too (a file planted, a process killed, the
host disk filled, CPU time hidden). `none` is checked once to show the tests can see a
successful attack.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.process import Limits
from arena.launch.sandbox import Sandbox
from arena.launch.uids import pool_range
from arena.logs.matchlog import read_log
from arena.match.referee import MatchResult
from tests.helpers import FIXTURES, ROOT, alive, ancestors, require, run

BOARD = {"rows": 4, "cols": 5}
ATTACKER = FIXTURES / "attacker.py"
SYSTEM_PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
SECRET = "organiser-secret-4711"


def needs_root() -> None:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the attack tests run as root under CI")
        pytest.skip("needs root (bots get uids of their own)")


@pytest.fixture(params=["bwrap", "uid"])
def mode(request: pytest.FixtureRequest) -> Sandbox:
    needs_root()
    if request.param == "bwrap":
        require("bwrap")
    return Sandbox(request.param)


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A folder every user may read (pytest's tmp_path is closed to other uids)."""
    path = Path(tempfile.mkdtemp(prefix="arena-attack-"))
    path.chmod(0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def organiser_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("ARENA_TEST_ORGANISER_SECRET", SECRET)
    return SECRET


def attacker(attack: str, arg: str = "") -> str:
    return f"stdio:{SYSTEM_PYTHON} {ATTACKER} {attack} {arg}".strip()


def victim(mode: Sandbox, zeromq: bool = False) -> str:
    """An honest bot the mode can start: a reference bot (over ZeroMQ if asked: a token to steal), or a stdio one."""
    # The arena's own Python lives under /root here, which a bot uid cannot reach without bwrap.
    if mode == Sandbox.UID:
        return f"stdio:{SYSTEM_PYTHON} {FIXTURES / 'stdiobot.py'}"
    return f"exec:{sys.executable} -m protocol.run bots.blocking.simple:RandomBot" if zeromq else "random"


def attack(tmp_path: Path, mode: Sandbox, name: str, arg: str = "", other: str = "",
           clock: ClockSettings | None = None) -> tuple[MatchResult, str]:
    """Play the attacker (seat 0) against an honest bot; return the result and the attack report."""
    log = tmp_path / f"{name}.msgpack"
    result, _ = run("blocking", [attacker(name, arg), other or victim(mode)], BOARD, clock=clock, log=log,
                    sandbox=mode)
    text = "\n".join(read_log(log).output.values()) if log.exists() else ""
    lines = [line for line in text.splitlines() if line.startswith(f"ATTACK {name}:")]
    assert lines, f"the attacker did not report ({result.reason}: {result.detail}); output: {text[-500:]}"
    return result, lines[-1]


def honest_bot_unharmed(result: MatchResult) -> None:
    """The match ended by the rules: nobody crashed, timed out or broke the protocol."""
    assert result.offender is None and result.reason == "blocked", (result.reason, result.detail)


def bot_uid_processes(marker: bytes = b"") -> list[int]:
    """Live processes of this test session running as a uid of the bot pool (with marker in
    their command line, if given).

    Only live descendants of this process count (the session is a subreaper: an orphaned bot
    process stays below it, and once dead it stays as a zombie the session never reaps), so
    bots of another arena run on the machine are not counted.
    """
    pool = pool_range()
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid in pool and marker in Path(f"/proc/{entry}/cmdline").read_bytes():
                    if alive(int(entry)) and os.getpid() in ancestors(int(entry)):
                        found.append(int(entry))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("name", ["steal_token", "inject_pipe", "kill_others", "ptrace", "open_by_handle", "mknod",
                                  "proc_sys"])
def test_attack_on_others_and_the_kernel_fails(tmp_path: Path, mode: Sandbox, name: str,
                                               organiser_secret: str) -> None:
    # The token thief plays a ZeroMQ bot: a pipe bot (the SDK's, by default) holds no token.
    result, report = attack(tmp_path, mode, name, other=victim(mode, zeromq=name == "steal_token"))
    assert "blocked" in report, report
    honest_bot_unharmed(result)
    assert organiser_secret not in tmp_path.joinpath(f"{name}.msgpack").read_bytes().decode("latin-1")


def test_bot_cannot_reach_the_network(tmp_path: Path, mode: Sandbox) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    try:
        result, report = attack(tmp_path, mode, "network", str(server.getsockname()[1]))
    finally:
        server.close()
    assert "blocked" in report, report
    honest_bot_unharmed(result)


def test_token_theft_and_killing_work_without_a_sandbox_so_the_tests_can_see_them(
        tmp_path: Path, organiser_secret: str) -> None:
    _, report = attack(tmp_path, Sandbox.NONE, "steal_token", other=victim(Sandbox.NONE, zeromq=True))
    assert "SUCCEEDED" in report, report
    # The same uid can reopen another bot's pipes: what the sandbox modes must stop.
    result, report = attack(tmp_path, Sandbox.NONE, "inject_pipe")
    assert "SUCCEEDED" in report, report
    assert result.offender == 1 and result.reason in ("protocol", "crash"), (result.reason, result.detail)


def test_bot_cannot_write_the_results_or_plant_code(tmp_path: Path, mode: Sandbox, public_dir: Path) -> None:
    store = public_dir / "results.sqlite"
    store.write_bytes(b"SQLite format 3\0")
    store.chmod(0o644)
    result, report = attack(tmp_path, mode, "write_file", str(store))
    assert "blocked" in report and store.read_bytes() == b"SQLite format 3\0", report
    honest_bot_unharmed(result)
    package = ROOT / "arena"
    result, report = attack(tmp_path, mode, "remount", str(package))
    assert "blocked" in report and not (package / "planted_by_bot.py").exists(), report


def test_bot_sees_only_its_own_folder_in_the_sandbox(tmp_path: Path, public_dir: Path) -> None:
    needs_root()
    require("bwrap")
    alice, bob = public_dir / "alice", public_dir / "bob"
    for folder in (alice, bob):
        folder.mkdir()
        (folder / "bot.txt").write_text(f"{folder.name}'s secret strategy")
    # bob's file is on alice's own command line: its folder must still stay hidden.
    spec = f"stdio:{SYSTEM_PYTHON} {ATTACKER} read_file {bob / 'bot.txt'} {alice / 'bot.txt'}"
    log = tmp_path / "m.msgpack"
    result, _ = run("blocking", [spec, "random"], BOARD, log=log, sandbox=Sandbox.BWRAP)
    output = "\n".join(read_log(log).output.values())
    assert "ATTACK read_file: blocked" in output and "secret strategy" not in output, output
    honest_bot_unharmed(result)
    _, report = attack(tmp_path, Sandbox.BWRAP, "read_file", str(ROOT / "README.md"))
    assert "blocked" in report, report  # the project tree is not shown either


def test_fork_bomb_is_stopped_at_the_process_limit(tmp_path: Path, mode: Sandbox) -> None:
    result, report = attack(tmp_path, mode, "fork_bomb")
    assert "refused after" in report, report
    forks = int(report.split("refused after ")[1].split()[0])
    assert forks < Limits().processes, report
    honest_bot_unharmed(result)
    assert bot_uid_processes(b"fork_bomb") == [], "a process of the fork bomb survived the match"


def test_disk_filler_is_stopped_at_its_tmpfs_and_the_host_disk_is_unchanged(tmp_path: Path) -> None:
    needs_root()
    require("bwrap")
    before = shutil.disk_usage(tempfile.gettempdir()).used
    result, report = attack(tmp_path, Sandbox.BWRAP, "fill_disk", "8192")
    assert "blocked" in report, report
    written = int(report.split("wrote ")[1].split()[0])
    disk_mb = Limits().disk_mb or 0
    assert disk_mb <= written <= 3 * disk_mb, report  # work directory, /tmp, /dev/shm: each bounded
    honest_bot_unharmed(result)
    after = shutil.disk_usage(tempfile.gettempdir()).used
    assert after - before < 64 << 20, f"the host disk grew by {(after - before) >> 20} MiB"


def test_cpu_of_a_helper_cannot_be_hidden_from_the_cpu_clock(tmp_path: Path, mode: Sandbox) -> None:
    clock = ClockSettings(budget_ms=20_000, margin_ms=200, mode="cpu")
    result, report = attack(tmp_path, mode, "cgroup_escape", "1.0", clock=clock)
    assert "blocked" in report, report
    honest_bot_unharmed(result)
    assert result.time_used_ms[0] >= 900, f"1 s of a helper's CPU was charged as {result.time_used_ms[0]} ms"


def test_bot_runs_as_its_own_uid_without_capabilities(tmp_path: Path, mode: Sandbox, public_dir: Path) -> None:
    probe = public_dir / "probe.py"
    probe.write_text(
        "import os, sys\n"
        "status = dict(l.split(':', 1) for l in open('/proc/self/status') if ':' in l)\n"
        "print('IDS', os.getuid(), os.getgid(), os.getgroups(), status['CapEff'].strip(),"
        " status['CapBnd'].strip(), status['NoNewPrivs'].strip(), file=sys.stderr, flush=True)\n"
        + (FIXTURES / "stdiobot.py").read_text())
    probe.chmod(0o644)
    log = tmp_path / "m.msgpack"
    result, _ = run("blocking", [f"stdio:{SYSTEM_PYTHON} {probe}", victim(mode)], BOARD, log=log, sandbox=mode)
    honest_bot_unharmed(result)
    line = next(l for l in read_log(log).output[0].splitlines() if l.startswith("IDS"))
    _, uid, gid, groups, cap_eff, cap_bnd, no_new_privs = line.split()
    assert int(uid) in pool_range() and gid == uid and groups == "[]", line
    assert cap_eff == cap_bnd == "0000000000000000" and no_new_privs == "1", line


def test_doctor_reports_the_machine() -> None:
    done = subprocess.run([sys.executable, "-m", "arena.cli", "doctor"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    for key in ("bubblewrap:", "cgroup v2:", "cgroup v1 pids:", "uid pool:", "modes:", "  auto ", "  none "):
        assert key in done.stdout, done.stdout
