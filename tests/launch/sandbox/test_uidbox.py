"""uid mode's box (arena.launch.sandbox.uidbox): what a bot sees through the whole launch chain; machine unchanged."""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.launch.sandbox import sandbox, uids
from arena.launch.sandbox.sandbox import ChainPlan, Sandbox, launch_chain, resolve_sandbox
from tests.launch.sandbox.test_attacks import needs_root

SCRIPT = """
echo "pid $$"
ls -A /tmp | tr '\\n' ' '; echo
touch /tmp/mine /var/tmp/mine /dev/shm/mine && echo "scratch writable"
touch /run/lock/mine 2>/dev/null || echo "machine read-only"
echo "locks $(wc -l < /proc/locks)"
echo "processes $(ls /proc | grep -c '^[0-9]')"
echo "work $(pwd) $(stat -c %u .)"
echo "size $(df -k /tmp | tail -1 | awk '{print $2}')"
python3 -c "import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1]); print('connected')" "$1"
exit 3
"""


@pytest.fixture
def lease(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[uids.UidLease]:
    """A bot uid of the tests' own pool."""
    needs_root()
    monkeypatch.setenv("ARENA_UID_BASE", "61200")
    monkeypatch.setenv("ARENA_UID_COUNT", "4")
    monkeypatch.setattr(uids, "LOCK_DIR", tmp_path / "uid-locks")
    held = uids.acquire()
    yield held
    held.release()


@pytest.fixture
def work_and_hub(lease: uids.UidLease) -> Iterator[tuple[Path, Path]]:
    """A bot's working directory and a folder for its socket, in the machine's /tmp as the arena makes them."""
    work = Path(f"/tmp/arena-bot-test-{secrets.token_hex(4)}")
    work.mkdir()
    os.chown(work, lease.uid, lease.uid)
    hub = Path(f"/tmp/arena-hub-test-{secrets.token_hex(4)}")
    hub.mkdir(mode=0o711)
    yield work, hub
    shutil.rmtree(work)
    shutil.rmtree(hub)


def test_a_bot_in_the_box_has_its_own_scratch_places_and_proc_and_the_machine_read_only(
        lease: uids.UidLease, work_and_hub: tuple[Path, Path]) -> None:
    isolation = resolve_sandbox(Sandbox.UID)
    assert isolation.box, isolation.note
    work, hub = work_and_hub
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(hub / "seat1.sock"))
    listener.listen(1)
    os.chown(hub / "seat1.sock", lease.uid, lease.uid)
    machine_lock = os.open("/etc/passwd", os.O_RDONLY)
    fcntl.fcntl(machine_lock, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, 0, 3_000_000, 1, 0))  # F_OFD_SETLK
    plan = ChainPlan(command=("sh", "-c", SCRIPT, "sh", str(hub / "seat1.sock")), isolation=isolation,
                     workdir=str(work), endpoint=f"ipc://{hub / 'seat1.sock'}", uid=lease.uid, disk_mb=16)
    try:
        with launch_chain(plan) as (argv, fds):
            done = subprocess.run(argv, pass_fds=fds, cwd=work, capture_output=True, text=True, timeout=60,
                                  check=False)
    finally:
        os.close(machine_lock)
        listener.close()
    lines = done.stdout.splitlines()
    assert done.returncode == 3, (done.returncode, done.stdout, done.stderr)  # the bot's own exit status
    assert lines[0] == "pid 1", lines
    assert sorted(lines[1].split()) == sorted([hub.name, work.name]), lines  # nothing else of the machine's /tmp
    assert lines[2:8] == ["scratch writable", "machine read-only", "locks 0", lines[5], f"work {work} {lease.uid}",
                          "size 16384"], lines
    assert int(lines[5].split()[1]) <= 4, lines  # sh, its subshell, ls and grep: nothing of the machine
    assert lines[8] == "connected", (lines, done.stderr)
    for place in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
        assert not Path(place, "mine").exists(), place  # nothing the bot wrote reached the machine
    assert list(work.iterdir()) == []
    assert "arena-box" not in Path("/proc/self/mountinfo").read_text()


def test_a_machine_without_the_box_is_said_in_uid_mode_s_note(monkeypatch: pytest.MonkeyPatch) -> None:
    needs_root()
    sandbox.resolve_sandbox.cache_clear()
    sandbox.box_problem.cache_clear()
    monkeypatch.setattr(sandbox, "UID_BOX", Path("/nonexistent/uidbox.py"))
    try:
        isolation = sandbox.resolve_sandbox(Sandbox.UID)
        assert not isolation.box and "\n" not in isolation.note
        assert "; it shares /tmp, /var/tmp, /dev/shm and /proc with other bots (" in isolation.note, isolation.note
    finally:
        sandbox.resolve_sandbox.cache_clear()
        sandbox.box_problem.cache_clear()


def test_doctor_says_what_bots_share_where_the_box_or_the_filter_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    needs_root()
    from arena.cli import doctor
    from arena.launch.sandbox import seccomp

    for cached in (sandbox.resolve_sandbox, sandbox.box_problem, sandbox.filter_problem):
        cached.cache_clear()
    monkeypatch.setattr(sandbox, "UID_BOX", Path("/nonexistent/uidbox.py"))
    monkeypatch.setattr(seccomp, "supported", lambda machine=None: "the kernel has no seccomp (switched off)")
    try:
        lines = doctor.report()
    finally:
        for cached in (sandbox.resolve_sandbox, sandbox.box_problem, sandbox.filter_problem):
            cached.cache_clear()
    assert "locks and watches on shared files: open between bots (no system-call filter loads here); arena serve " \
           "refuses such a sandbox without --insecure" in lines, lines
    shared = [line for line in lines if line.startswith("uid mode's own places: unavailable (")]
    assert shared and shared[0].endswith("its bots share /tmp, /var/tmp, /dev/shm and /proc (arena serve uses bwrap "
                                         "only)"), lines
