"""Builds in bubblewrap: upload unpacked, built, collected in the sandbox, folder made by the host, every limit hit."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from arena.launch.builds.build import BuildLimits, BuildRun, python_command, run_build, run_contained
from arena.launch.sandbox.sandbox import Isolation, Sandbox, resolve_sandbox
from arena.server.uploads.unpack import UploadBounds, arguments
from tests.helpers import ROOT, require
from tests.server.fixtures import tar_of

BOUNDS = UploadBounds(max_bytes=2 * 2**20, max_files=50, max_unpacked_bytes=4 * 2**20)
MANIFEST = b'run = "./bot"\n'


@pytest.fixture(scope="module")
def isolation() -> Isolation:
    require("bwrap")
    require("cc")
    return resolve_sandbox(Sandbox.BWRAP)


def build(isolation: Isolation, dest: Path, command: str, files: dict[str, bytes] | None = None,
          **limits: object) -> BuildRun:
    """Build an archive of files (a manifest and one file by default) with command."""
    upload = tar_of(files or {"arena.toml": MANIFEST, "a": b"x"})
    unpack = python_command("arena.server.uploads.unpack", arguments("unpack", "up.tar.gz", "blocking", BOUNDS))
    return run_build(upload, unpack, command, str(dest), isolation, BuildLimits(**{"timeout_s": 30, **limits}))


def test_a_c_bot_is_built_and_its_folder_created_by_the_host(isolation: Isolation, tmp_path: Path) -> None:
    source = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()
    run = build(isolation, tmp_path / "bot", "cc -O2 -o bot bot.c -lzmq -lmsgpackc && echo built",
                {"arena.toml": MANIFEST, "bot.c": source}, timeout_s=60)
    assert run.ok and "built" in run.log and run.entries == 3
    bot = (tmp_path / "bot" / "bot").stat()
    assert stat.S_ISREG(bot.st_mode) and bot.st_mode & 0o777 == 0o755 and bot.st_size > 1000
    assert bot.st_uid == os.geteuid()  # made by the host, not chowned from the builder's uid
    assert (tmp_path / "bot" / "bot.c").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "bot").stat().st_mode & 0o777 == 0o755


def test_nothing_of_the_host_is_writable_or_readable_beyond_the_system(isolation: Isolation, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("the organiser's")
    probe = (f"cat {secret}; touch {tmp_path}/planted; touch /usr/planted; ls /root; grep Seccomp: /proc/self/status; "
             "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=2)'; true")
    run = build(isolation, tmp_path / "bot", probe)
    assert run.ok
    assert "Seccomp:\t2" in run.log  # behind the system-call filter
    assert "the organiser's" not in run.log and "No such file" in run.log
    assert not (tmp_path / "planted").exists() and not os.path.exists("/usr/planted")
    assert "Network is unreachable" in run.log or "Errno" in run.log


def test_the_build_reaches_no_descriptor_nor_memory_of_its_supervisor(isolation: Isolation, tmp_path: Path) -> None:
    if not isolation.own_uid:
        pytest.skip("uids of their own need root")
    run = build(isolation, tmp_path / "bot", "id -u > builder; ls /proc/$PPID/fd; head -c1 /proc/$PPID/mem; "
                "cat /proc/$PPID/cmdline | tr '\\0' ' ' > parent")
    assert run.ok, run.problem + run.log
    uid = int((tmp_path / "bot" / "builder").read_text())
    assert uid >= 1000 and uid != os.geteuid()
    assert "buildbox" in (tmp_path / "bot" / "parent").read_text()  # $PPID was the supervisor
    assert run.log.count("Permission denied") == 2, run.log


# A helper in a session of its own that outlives the command and watches for the collector (a
# process of another bot uid) to say so on the log, which the host reads until its last writer is gone.
WATCHER = """
import os, sys, time
me = os.getuid()
while True:
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            uid = os.stat("/proc/" + pid).st_uid
        except OSError:
            continue
        if uid not in (me, 0):
            print("SAW THE COLLECTOR", uid, flush=True, file=sys.stderr)
            sys.exit()
    time.sleep(0.001)
"""


def test_processes_the_build_leaves_behind_are_gone_before_its_folder_is_collected(isolation: Isolation,
                                                                                    tmp_path: Path) -> None:
    if not isolation.own_uid:
        pytest.skip("uids of their own need root")
    (tmp_path / "watcher.py").write_text(WATCHER)
    files = {"arena.toml": MANIFEST, "watcher.py": WATCHER.encode()}
    run = build(isolation, tmp_path / "bot", "setsid python3 watcher.py & sleep 0.2; echo started", files)
    assert run.ok, run.problem + run.log
    assert "started" in run.log and "SAW THE COLLECTOR" not in run.log


def test_links_and_files_closed_to_the_collector_are_refused_by_name(isolation: Isolation,
                                                                            tmp_path: Path) -> None:
    linked = build(isolation, tmp_path / "one", "ln -s /etc/passwd inside")
    assert not linked.ok and "'inside' is a symbolic link" in linked.problem
    assert not (tmp_path / "one").exists()
    # The collector is not the builder's uid: a file closed to others stays closed to it.
    closed = build(isolation, tmp_path / "two", "echo secret > mine; chmod 600 mine")
    if isolation.own_uid:
        assert not closed.ok and "'mine' is not readable by others" in closed.problem


def test_an_upload_that_cannot_be_unpacked_fails_with_the_readers_reason(isolation: Isolation, tmp_path: Path) -> None:
    run = build(isolation, tmp_path / "bot", "true", {"arena.toml": MANIFEST, "../escape": b"x"})
    assert not run.ok and "outside the archive" in run.problem and not (tmp_path / "bot").exists()


def test_a_build_over_time_is_killed_at_its_deadline(isolation: Isolation, tmp_path: Path) -> None:
    started = time.monotonic()
    run = build(isolation, tmp_path / "bot", "sleep 60 & sleep 60", timeout_s=2)
    assert run.timed_out and not run.ok and time.monotonic() - started < 15


def test_a_fork_bomb_meets_the_process_cap(isolation: Isolation, tmp_path: Path) -> None:
    started = time.monotonic()
    run = build(isolation, tmp_path / "bot", "f() { f | f & }; f; sleep 1; exit 1", timeout_s=10, processes=32)
    assert not run.ok and time.monotonic() - started < 30


def test_a_full_disk_and_a_result_too_large_stay_bounded(isolation: Isolation, tmp_path: Path) -> None:
    full = build(isolation, tmp_path / "one", "i=0; while head -c 8000000 /dev/zero > z$i; do i=$((i+1)); done; exit 1",
                 disk_mb=32)
    assert not full.ok and "No space left" in full.log
    large = build(isolation, tmp_path / "two", "for i in 1 2 3; do head -c 4000000 /dev/urandom > big$i; done",
                  disk_mb=64, output_mb=8)
    assert large.too_big and not large.ok and not (tmp_path / "two").exists()
    many = build(isolation, tmp_path / "three", "for i in $(seq 40); do : > f$i; done", output_files=30)
    assert many.too_big and not many.ok


def test_a_contained_program_answers_within_its_memory_limit(isolation: Isolation) -> None:
    reader = python_command("arena.server.uploads.unpack", arguments("check", "bot.py", "blocking", BOUNDS))
    answer = run_contained(reader, b"print(1)\n", isolation, BuildLimits(timeout_s=20, memory_mb=128))
    assert answer.returncode == 0 and b'"language": "python"' in answer.output
    hog = [sys.executable, "-c", "x = bytearray(400 * 2**20); x[::4096] = b'1' * len(x[::4096])"]
    starved = run_contained(hog, b"", isolation, BuildLimits(timeout_s=20, memory_mb=64))
    assert starved.returncode != 0 and "memory limit" in starved.limit
