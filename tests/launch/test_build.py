"""Building untrusted source in bubblewrap: sources in and the result out as tar streams, with every limit hit."""

from __future__ import annotations

import io
import os
import tarfile
import time

import pytest

from arena.launch.build import BuildLimits, run_build
from arena.launch.sandbox import Sandbox, resolve_sandbox
from tests.helpers import ROOT, require


def tar_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as out:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@pytest.fixture(scope="module")
def isolation() -> object:
    require("bwrap")
    require("cc")
    return resolve_sandbox(Sandbox.BWRAP)


def test_a_c_bot_is_built_and_comes_back_as_a_tar(isolation: object) -> None:
    source = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()
    run = run_build("cc -O2 -o bot bot.c -lzmq -lmsgpackc && echo built", tar_of({"bot.c": source}), isolation,
                    BuildLimits(timeout_s=60))
    assert run.ok and "built" in run.log
    with tarfile.open(fileobj=io.BytesIO(run.tar)) as result:
        bot = result.getmember("./bot")
        assert bot.isreg() and bot.mode & 0o111 and bot.size > 1000


def test_nothing_of_the_host_is_writable_or_readable_beyond_the_system(isolation: object, tmp_path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("the organiser's")
    probe = (f"cat {secret}; touch {tmp_path}/planted; touch /usr/planted; ls /root; grep Seccomp: /proc/self/status; "
             "python3 -c 'import socket; socket.create_connection((\"1.1.1.1\", 53), timeout=2)'; true")
    run = run_build(probe, tar_of({"a": b"x"}), isolation, BuildLimits(timeout_s=30))
    assert run.ok
    assert "Seccomp:\t2" in run.log  # behind the system-call filter
    assert "the organiser's" not in run.log and "No such file" in run.log
    assert not (tmp_path / "planted").exists() and not os.path.exists("/usr/planted")
    assert "Network is unreachable" in run.log or "Errno" in run.log


def test_a_build_over_time_is_killed_at_its_deadline(isolation: object) -> None:
    started = time.monotonic()
    run = run_build("sleep 60 & sleep 60", tar_of({"a": b"x"}), isolation, BuildLimits(timeout_s=2))
    assert run.timed_out and not run.ok and time.monotonic() - started < 15


def test_a_fork_bomb_meets_the_process_cap(isolation: object) -> None:
    started = time.monotonic()
    run = run_build("f() { f | f & }; f; sleep 1; exit 1", tar_of({"a": b"x"}), isolation,
                    BuildLimits(timeout_s=10, processes=32))
    assert not run.ok and time.monotonic() - started < 30


def test_a_full_disk_and_a_result_too_large_stay_bounded(isolation: object) -> None:
    full = run_build("i=0; while head -c 8000000 /dev/zero > z$i; do i=$((i+1)); done; exit 1",
                     tar_of({"a": b"x"}), isolation, BuildLimits(timeout_s=30, disk_mb=32))
    assert not full.ok and "No space left" in full.log
    large = run_build("for i in 1 2 3; do head -c 4000000 /dev/urandom > big$i; done", tar_of({"a": b"x"}), isolation,
                      BuildLimits(timeout_s=30, disk_mb=64, output_mb=8))
    assert large.too_big and not large.ok and large.tar == b""
