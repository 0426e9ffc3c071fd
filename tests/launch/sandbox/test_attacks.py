"""Real attacking bots against the sandbox modes: every attack must fail, every honest bot must not.

Run as root with bubblewrap (as CI does): `bwrap` is the default mode on such a machine,
`uid` is the mode without bubblewrap. Each attack is reported by the attacker itself and,
where it has one, its real effect is checked too (a file planted, a process killed, the
host disk filled, CPU time hidden). `none` is checked once to show the tests can see a
successful attack.
"""

from __future__ import annotations

import fcntl
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.clock import ClockSettings
from arena.launch.processes.process import Limits
from arena.launch.sandbox import procmask, sandbox, uids
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.sandbox.uids import pool_range
from arena.launch.specs.botspec import Wire
from arena.logs.matchlog import read_log
from arena.match.result import MatchResult
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
    return f"exec:{sys.executable} -m protocol.run arena.games.blocking.bots.simple:RandomBot" if zeromq else "random"


def attack(tmp_path: Path, mode: Sandbox, name: str, arg: str = "", other: str = "",
           clock: ClockSettings | None = None, limits: Limits | None = None) -> tuple[MatchResult, str]:
    """Play the attacker (seat 0) against an honest bot; return the result and the attack report.

    The pipe injector plays the SDK's bot on its pipes (`transport = "pipes"`): pipes to inject into.
    """
    log = tmp_path / f"{name}-{secrets.token_hex(3)}.msgpack"
    wire = Wire.PIPES if name == "inject_pipe" else None
    result, _ = run("blocking", [attacker(name, arg), other or victim(mode)], BOARD, clock=clock, log=log,
                    sandbox=mode, limits=limits, wire=wire)
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
    # The token thief plays a ZeroMQ bot (a pipe bot holds no token), the pipe injector one on pipes.
    result, report = attack(tmp_path, mode, name, other=victim(mode, zeromq=name == "steal_token"))
    assert "blocked" in report, report
    honest_bot_unharmed(result)
    assert all(organiser_secret not in log.read_bytes().decode("latin-1") for log in tmp_path.glob("*.msgpack"))


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


def test_disk_filler_is_stopped_at_one_budget_for_all_places_and_the_host_disk_is_unchanged(
        tmp_path: Path, mode: Sandbox) -> None:
    before = shutil.disk_usage(tempfile.gettempdir()).used
    result, report = attack(tmp_path, mode, "fill_disk", "8192")
    assert "blocked" in report, report
    places = dict(part.rsplit(" ", 1) for part in report.split(": ", 2)[2].rstrip(")").split(", "))
    assert len(places) == 4, report  # the work directory (also HOME and TMPDIR), /tmp, /var/tmp, /dev/shm
    assert all(int(mib) >= 8 for mib in places.values()), report  # each took its turn until the budget ran out
    written = sum(int(mib) for mib in places.values())
    disk_mb = Limits().disk_mb or 0
    assert disk_mb - 8 <= written <= disk_mb, report  # together, not each
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
    line = next(text for text in read_log(log).output[0].splitlines() if text.startswith("IDS"))
    _, uid, gid, groups, cap_eff, cap_bnd, no_new_privs = line.split()
    assert int(uid) in pool_range() and gid == uid and groups == "[]", line
    assert cap_eff == cap_bnd == "0000000000000000" and no_new_privs == "1", line


def test_doctor_reports_the_machine() -> None:
    done = subprocess.run([sys.executable, "-m", "arena.cli", "doctor"], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    for key in ("bubblewrap:", "cgroup v2:", "cgroup v1 pids:", "uid pool:", "modes:", "  auto ", "  none ",
                "system-call filter:", "locks and watches on shared files:", "uid mode's own places:"):
        assert key in done.stdout, done.stdout
    if os.geteuid() == 0 and shutil.which("bwrap"):
        assert "system-call filter: active in bwrap and uid" in done.stdout, done.stdout
        assert "locks and watches on shared files: refused in bwrap and uid" in done.stdout, done.stdout
        assert "uid mode's own places: /tmp, /var/tmp and /dev/shm of the disk budget" in done.stdout, done.stdout
        assert "behind a system-call filter" in done.stdout.split("  auto ")[1].splitlines()[0], done.stdout


# --- the kernel's shared parts: keyring, namespaces, system calls, /proc, disk -----------------------


@pytest.fixture
def unfiltered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The sandbox modes without their system-call filter (the control of what it stops)."""
    sandbox.resolve_sandbox.cache_clear()
    monkeypatch.setattr(sandbox, "filter_problem", lambda mode: "switched off by the test")
    yield
    sandbox.resolve_sandbox.cache_clear()


@pytest.fixture
def test_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bot uids of the tests' own (61100..61103), for attacks that leave a mark on their uids (a user keyring)."""
    monkeypatch.setenv("ARENA_UID_BASE", "61100")
    monkeypatch.setenv("ARENA_UID_COUNT", "4")
    monkeypatch.setattr(uids, "LOCK_DIR", tmp_path / "uid-locks")


@contextmanager
def held(uid: int) -> Iterator[None]:
    """Keep uid out of the pool, as another worker would, so the next bot runs as another uid."""
    uids.LOCK_DIR.mkdir(parents=True, exist_ok=True)
    fd = os.open(uids.LOCK_DIR / str(uid), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pass  # someone else holds it: out of the pool all the same
        yield
    finally:
        os.close(fd)


def report_uid(report: str) -> int:
    found = re.search(r"as uid (\d+)", report)
    assert found, report
    return int(found.group(1))


def pool_key_users() -> dict[str, str]:
    """The kernel's key accounting (/proc/key-users) of the bot uids: a line per uid that ever held a key."""
    pool = pool_range()
    lines = [line.split(":", 1) for line in Path("/proc/key-users").read_text().splitlines()]
    return {uid.strip(): rest for uid, rest in lines if int(uid) in pool}


def forget_keys(marker: str) -> None:
    """Invalidate the keys an unfiltered control left (root may: the attacker opened them to all)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    for line in Path("/proc/keys").read_text().splitlines():
        if marker in line:
            libc.syscall(250, 21, int(line.split()[0], 16))  # keyctl(KEYCTL_INVALIDATE)


def test_keyring_writer_and_a_later_reader_of_another_uid_find_nothing(tmp_path: Path, mode: Sandbox) -> None:
    marker = secrets.token_hex(6)
    before = pool_key_users()
    result, report = attack(tmp_path, mode, "keyring_write", marker)
    assert "blocked (add_key as uid" in report and "EPERM" in report, report
    honest_bot_unharmed(result)
    writer = report_uid(report)
    with held(writer):
        result, report = attack(tmp_path, mode, "keyring_read", marker)
    assert "blocked" in report and report_uid(report) != writer, report
    honest_bot_unharmed(result)
    assert marker not in Path("/proc/keys").read_text()  # no key of a bot outlives it...
    assert pool_key_users() == before  # ...nor any keyring of a bot uid


def test_without_the_filter_a_key_outlives_its_bot_and_only_the_proc_mask_hides_it_from_another_uid(
        tmp_path: Path, mode: Sandbox, unfiltered: None, test_pool: None, monkeypatch: pytest.MonkeyPatch) -> None:
    marker = secrets.token_hex(6)
    try:
        result, report = attack(tmp_path, mode, "keyring_write", marker)
        assert "SUCCEEDED" in report and "open to all: ok" in report, report
        assert marker in Path("/proc/keys").read_text()  # outlives the bot
        honest_bot_unharmed(result)
        with held(report_uid(report)):
            _, read = attack(tmp_path, mode, "keyring_read", marker)
            assert "blocked (no arena-collusion" in read, read  # the sandbox's /proc shows no keys
            monkeypatch.setattr(procmask, "masks", lambda: ())  # the control: the machine's /proc/keys
            _, read = attack(tmp_path, mode, "keyring_read", marker)
            assert "SUCCEEDED" in read and "colluder here" in read, read
    finally:
        forget_keys(marker)


def test_a_user_namespace_with_a_tmpfs_of_its_own_is_refused(tmp_path: Path, mode: Sandbox) -> None:
    result, report = attack(tmp_path, mode, "userns_mount", "48", limits=Limits(disk_mb=16))
    assert report.endswith("blocked (unshare: EPERM)"), report
    honest_bot_unharmed(result)  # the attacker played on


def test_without_the_filter_a_tmpfs_of_its_own_takes_more_than_the_disk_budget(tmp_path: Path,
                                                                               unfiltered: None) -> None:
    needs_root()
    require("bwrap")
    result, report = attack(tmp_path, Sandbox.BWRAP, "userns_mount", "48", limits=Limits(disk_mb=16))
    assert "SUCCEEDED (mounted a tmpfs of its own and wrote 48 MiB there)" in report, report
    honest_bot_unharmed(result)


SYSCALLS_REFUSED = ("ptrace", "process_vm_readv", "pidfd_getfd", "bpf", "perf_event_open", "userfaultfd",
                    "io_uring_setup", "clone_newuser", "x32", "i386")


def probe_results(report: str) -> dict[str, str]:
    return dict(pair.split("=") for pair in report.split("(", 1)[1].rstrip(")").split())


def test_calls_into_other_processes_and_the_kernel_are_refused(tmp_path: Path, mode: Sandbox) -> None:
    result, report = attack(tmp_path, mode, "syscall_probe")
    results = probe_results(report)
    assert {name: results[name] for name in SYSCALLS_REFUSED} == dict.fromkeys(SYSCALLS_REFUSED, "EPERM"), report
    assert results["clone3"] == "ENOSYS", report  # so that libc uses clone, whose flags the filter reads
    honest_bot_unharmed(result)


def test_the_same_calls_work_without_a_sandbox_so_the_probe_can_see_them(tmp_path: Path) -> None:
    result, report = attack(tmp_path, Sandbox.NONE, "syscall_probe")
    results = probe_results(report)
    for name in ("ptrace", "process_vm_readv", "pidfd_getfd", "userfaultfd", "clone_newuser", "i386"):
        assert results[name] == "ok", report
    assert results["clone3"] == "EINVAL" and results["x32"] in ("ENOSYS", "ok"), report
    honest_bot_unharmed(result)


LOCKS_REFUSED = {"flock": "ENOLCK", "getlk": "ENOLCK", "setlk": "ENOLCK", "ofd_getlk": "ENOLCK", "ofd_setlk": "ENOLCK",
                 "setlease": "ENOLCK", "dnotify": "EPERM", "inotify_init1": "EPERM", "fanotify_init": "EPERM"}


def test_no_lock_and_no_watch_on_a_file(tmp_path: Path, mode: Sandbox) -> None:
    result, report = attack(tmp_path, mode, "lock_probe")
    results = probe_results(report)
    assert {name: results[name] for name in LOCKS_REFUSED} == LOCKS_REFUSED, report
    assert results.get("inotify_init", "EPERM") == "EPERM", report
    honest_bot_unharmed(result)


def test_locks_and_watches_work_without_a_sandbox_so_the_probe_can_see_them(tmp_path: Path) -> None:
    result, report = attack(tmp_path, Sandbox.NONE, "lock_probe")
    assert set(probe_results(report).values()) == {"ok"}, report
    honest_bot_unharmed(result)


def test_proc_shows_no_keys_and_no_cpu_counters_of_the_machine(tmp_path: Path, mode: Sandbox) -> None:
    result, report = attack(tmp_path, mode, "proc_read")
    assert "blocked (host data in []" in report, report
    cpus = [line for line in Path("/proc/stat").read_text().splitlines() if line[:3] == "cpu" and line[3:4].isdigit()]
    assert f"; {len(cpus)} cpu lines;" in report, report  # runtimes counting CPUs there still count right
    honest_bot_unharmed(result)
    _, report = attack(tmp_path, Sandbox.NONE, "proc_read")
    assert "SUCCEEDED" in report and "'stat'" in report, report


def test_scratch_places_work_and_share_one_budget(tmp_path: Path, public_dir: Path, mode: Sandbox) -> None:
    probe = public_dir / "scratch.py"
    probe.write_text(
        "import os, sys, tempfile, sqlite3, multiprocessing as mp\n"
        "from multiprocessing import shared_memory\n"
        "memory = shared_memory.SharedMemory(create=True, size=4096); memory.buf[0] = 7; memory.close()\n"
        "memory.unlink()\n"
        "lock = mp.Lock(); lock.acquire(); lock.release()\n"
        "handle, name = tempfile.mkstemp(); os.write(handle, b'x'); os.close(handle)\n"
        "open('/var/tmp/v', 'w').write('v')\n"
        "places = [os.getcwd(), os.environ['HOME'], name, '/tmp', '/var/tmp', '/dev/shm']\n"
        "print('SCRATCH', *sorted({os.statvfs(p).f_fsid for p in places}), *(os.path.realpath(p) for p in places),"
        " file=sys.stderr, flush=True)\n"
        # SQLite locks its files: without locks, a database in memory, or a file opened with nolock=1.
        "sqlite3.connect(':memory:').execute('create table t (x)')\n"
        "sqlite3.connect('file:own.db?nolock=1', uri=True).execute('create table t (x)')\n"
        "try:\n"
        "    sqlite3.connect('locked.db').execute('create table t (x)'); answer = 'ok'\n"
        "except sqlite3.Error as exc:\n"
        "    answer = str(exc)\n"
        "print('SQLITE', answer, file=sys.stderr, flush=True)\n"
        + (FIXTURES / "stdiobot.py").read_text())
    probe.chmod(0o644)
    log = tmp_path / "m.msgpack"
    result, _ = run("blocking", [f"stdio:{SYSTEM_PYTHON} {probe}", victim(mode)], BOARD, log=log, sandbox=mode)
    honest_bot_unharmed(result)
    output = read_log(log).output[0].splitlines()
    line = next((text for text in output if text.startswith("SCRATCH")), "")
    words = line.split()
    assert len(words) == 8, line  # one file system for all six places
    if mode == Sandbox.BWRAP:
        assert all(path.startswith("/box/") for path in words[2:]), line
    else:
        assert words[-3:] == ["/tmp", "/var/tmp", "/dev/shm"] and words[2].startswith("/tmp/"), line
    assert "SQLITE database is locked" in output, output
