"""Real attackers against the upload intake of a real `arena serve` (root, bubblewrap): every attack fails, none leaks.

The build that injects its own bytes into its result stream, a tar with a symlink chain
longer than PATH_MAX and hard links to the server's state files (CVE-2025-4517's shape:
it must fail whatever the Python's tarfile), a PAX-header bomb and zip bombs. Each attack's
real effect is checked: no file outside the entrant's submission folder created or changed,
no permission or link count of a state file changed, no secret in anything the entrant sees,
the server's memory and answer time. Each beside its control: the same attack succeeding
where the defence is absent.
"""

from __future__ import annotations

import base64
import gzip
import io
import lzma
import os
import re
import stat
import tarfile
import time
from pathlib import Path
from typing import Any

import pytest

from arena.launch.builds.archive import tarfile_filter_warning
from arena.launch.builds.build import BuildLimits, run_contained
from arena.launch.sandbox.sandbox import Sandbox, resolve_sandbox
from tests.fixtures.bombs import (
    PAX_BOMB,
    escaping_tar,
    pax_bomb_declared,
    zip_liar,
    zip_overlapping,
)
from tests.helpers import FIXTURES, require
from tests.server.fixtures import FEWEST, tar_of, zip_of
from tests.server.server import Server, make_server

ATTACKER = (FIXTURES / "build_attacker.py").read_bytes()
SECRETS = ("admin.token", "ladder/log.key", "server.db")
# What a server writes by itself while it runs: its database, its lock, validation series and games.
MUTABLE = re.compile(r"^class-server/(server\.db(-wal|-shm|-journal)?|arena\.lock|validation(/.*)?|ladder/logs(/.*)?)$")
MEMORY_GROWTH_MB = 50


def needs_root() -> None:
    if os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("the attack tests run as root under CI")
        pytest.skip("needs root (builds get uids of their own)")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    needs_root()
    require("bwrap")
    server = make_server(tmp_path_factory.mktemp("intake"), build_timeout=30)
    server.add("inject", "chain", "builder", "bomber")
    server.start()
    yield server
    if server.process is not None and server.process.poll() is None:
        server.stop()


def snapshot(server: Server) -> dict[str, tuple[int, ...]]:
    """Every entry under the test's folder: (inode, mode, links) and, unless the server changes it, size and time."""
    found = {}
    for root, folders, files in os.walk(server.directory):
        for name in folders + files:
            path = os.path.join(root, name)
            relative = os.path.relpath(path, server.directory)
            info = os.lstat(path)
            if stat.S_ISDIR(info.st_mode):  # a folder's link count and times follow what is made inside it
                found[relative] = (info.st_ino, info.st_mode)
                continue
            fixed = (info.st_ino, info.st_mode, info.st_nlink)
            found[relative] = fixed if MUTABLE.match(relative) else (*fixed, info.st_size, info.st_mtime_ns)
    return found


def changed_outside(before: dict[str, tuple[int, ...]], after: dict[str, tuple[int, ...]], own: str) -> list[str]:
    """What changed, appeared or went away outside the entrant's folder (own, its parents) and the server's files."""
    problems = [f"changed: {path}" for path in before if path in after and before[path] != after[path]]
    problems += [f"gone: {path}" for path in before if path not in after]
    problems += [f"new: {path}" for path in after if path not in before and not MUTABLE.match(path)
                 and not own.startswith(path + "/") and not path.startswith(own)]
    return problems


def secrets_of(server: Server) -> list[str]:
    key = (server.state / "ladder" / "log.key").read_bytes()
    return [server.admin, key.hex(), base64.b64encode(key).decode(), key.decode("latin-1").strip()]


def assert_no_secret_reaches(server: Server, entrant: str, number: int) -> None:
    seen = server.get(f"/api/submissions/{number}", server.tokens[entrant]).text
    seen += server.get(f"/submissions/{number}", server.tokens[entrant]).text + server.get("/api/games").text
    for secret in secrets_of(server):
        assert secret not in seen
    for name in SECRETS:  # no second name for any state file
        assert (server.state / name).stat().st_nlink == 1


def hwm_mb(pid: int) -> float:
    """The process's peak resident memory (VmHWM), in MiB."""
    with open(f"/proc/{pid}/status") as status:
        line = next(line for line in status if line.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024


def manifest(build: str, run: str = "./never-runs") -> bytes:
    return f'run = "{run}"\nbuild = "{build}"\n'.encode()


# --- 1. the build that injects into its own result stream ----------------------------------


# The result's holder: the build's uid.
OLD_BUILD = 'cat > a.py; exec 0</dev/null; sh -c "$1" 1>&2 || exit $?; exec tar -cf - .'


def test_control_injection_succeeds_where_a_process_of_the_builds_uid_holds_the_result() -> None:
    """The attacker, in the layout builds had before: its own shell held the result stream (and could be rewritten)."""
    needs_root()
    require("bwrap")
    isolation = resolve_sandbox(Sandbox.BWRAP)
    ran = run_contained(["sh", "-c", OLD_BUILD, "sh", "python3 a.py"], ATTACKER, isolation,
                        BuildLimits(timeout_s=30, disk_mb=32))
    assert "ATTACK memory: SUCCEEDED" in ran.log, ran.log
    assert b"INJECTED" in ran.output  # the attacker's tar, not the build's folder, came out


def test_a_build_that_injects_into_its_result_stream_gets_nothing_in(server: Server) -> None:
    bot_dir = server.state / "submissions" / "inject" / "v1" / "bot"
    payload = escaping_tar(str(bot_dir), 4, {"tok": "admin.token", "key": "ladder/log.key", "db": "server.db"},
                           "../PLANTED-BY-ENTRANT", {"INJECTED": b"x"})
    upload = tar_of({"m/arena.toml": manifest("python3 build_attacker.py"), "m/build_attacker.py": ATTACKER,
                     "m/payload.tar": payload})
    before = snapshot(server)
    answer = server.submit("inject", "inject.tar.gz", upload)
    assert answer.status_code == 201, answer.text
    result = server.settled("inject", answer.json()["id"])
    log = result["build_log"]
    attacks = re.findall(r"ATTACK ([a-z_]+)( late)?: (SUCCEEDED|blocked)", log)
    assert {name for name, _, _ in attacks} >= {"pidfd_getfd", "reopen", "memory", "ptrace", "process_vm_writev"}
    assert all(outcome == "blocked" for _, _, outcome in attacks), log
    # The folder holds what the build left, as plain files; the payload stayed data.
    assert sorted(os.listdir(bot_dir)) == ["arena.toml", "build_attacker.py", "p.t", "payload.tar", "q"]
    assert all(stat.S_ISREG(os.lstat(bot_dir / name).st_mode) for name in os.listdir(bot_dir))
    assert changed_outside(before, snapshot(server), "class-server/submissions/inject/") == []
    assert_no_secret_reaches(server, "inject", answer.json()["id"])


# --- 2. the tar with a symlink chain longer than PATH_MAX and hard links to the state ----------


def test_control_pythons_tarfile_filter_lets_the_chain_through_here(tmp_path: Path) -> None:
    """The same tar, unpacked by tarfile's data filter into a copy of the server's layout: on this Python it escapes."""
    if not tarfile_filter_warning():
        pytest.skip("this Python's tarfile has the fixes: the control shows nothing here")
    state = tmp_path / "class-server"
    bot_dir = state / "submissions" / "chain" / "v1" / "bot"
    bot_dir.mkdir(parents=True)
    (state / "admin.token").write_text("the admin's")
    (state / "admin.token").chmod(0o600)
    crafted = escaping_tar(str(bot_dir), 4, {"tok": "admin.token"}, "../PLANTED-BY-ENTRANT", {})
    with tarfile.open(fileobj=io.BytesIO(crafted)) as archive:
        archive.extractall(bot_dir, filter="data")
    assert (tmp_path / "PLANTED-BY-ENTRANT").exists()  # outside the state directory
    token = (state / "admin.token").stat()
    assert token.st_nlink == 2 and token.st_mode & 0o004  # linked into the bot's folder, and opened to everyone


def test_a_tar_with_a_long_symlink_chain_and_hard_links_to_the_state_never_escapes(server: Server) -> None:
    bot_dir = server.state / "submissions" / "chain" / "v1" / "bot"
    crafted = escaping_tar(str(bot_dir), 4, {"tok": "admin.token", "key": "ladder/log.key", "db": "server.db"},
                           "../PLANTED-BY-ENTRANT", {"arena.toml": manifest("true")})
    before = snapshot(server)
    for name, data in (("chain.tar", crafted), ("chain.tar.xz", lzma.compress(crafted)),
                       ("link.zip", zip_of({"arena.toml": manifest("true")},
                                           {"tok": str(server.state / "admin.token")}))):
        answer = server.submit("chain", name, data)
        error = answer.json()["error"]
        assert answer.status_code == 422 and "link or special file" in error and "\n" not in error, answer.text
    assert not (server.state / "submissions" / "chain").exists()  # refused before anything was stored
    assert changed_outside(before, snapshot(server), "class-server/submissions/chain/") == []


def test_a_build_that_leaves_the_chain_and_links_in_its_folder_fails_and_nothing_escapes(server: Server) -> None:
    bot_dir = server.state / "submissions" / "builder" / "v1" / "bot"
    crafted = escaping_tar(str(bot_dir), 4, {}, "", {})
    # The build unpacks the chain itself (no filter at all) and links the state files by their host paths.
    build = ("python3 -c \\\"import tarfile; tarfile.open('chain.tar').extractall()\\\"; "
             + "; ".join(f"ln -s {server.state / name} link{i}; ln {server.state / name} hard{i}"
                         for i, name in enumerate(SECRETS)) + "; true")
    upload = tar_of({"arena.toml": manifest(build), "chain.tar": crafted})
    before = snapshot(server)
    answer = server.submit("builder", "builder.tar.gz", upload)
    assert answer.status_code == 201, answer.text
    result = server.settled("builder", answer.json()["id"])
    assert result["status"] == "failed" and "only plain files and folders are kept" in result["detail"], result
    assert "is a symbolic link" in result["detail"] and not bot_dir.exists()
    assert "No such file" in result["build_log"]  # the hard links: the state is not in the sandbox
    assert changed_outside(before, snapshot(server), "class-server/submissions/builder/") == []
    assert_no_secret_reaches(server, "builder", answer.json()["id"])


# --- 3. bombs: answered at once, in one line, the server's memory unmoved ---------------------


def answered(server: Server, name: str, data: bytes) -> tuple[int, str, float, float]:
    """(status, error, seconds, growth of the server's peak memory in MiB) of one upload by the bomber."""
    assert server.process is not None
    peak = hwm_mb(server.process.pid)
    started = time.monotonic()
    answer = server.submit("bomber", name, data)
    took = time.monotonic() - started
    return answer.status_code, answer.json().get("error", ""), took, hwm_mb(server.process.pid) - peak


def honest_answer_s(server: Server) -> float:
    """How long the intake takes to read a small archive fully and refuse it (no manifest): the sandbox's own cost."""
    times = [answered(server, "honest.zip", zip_of({"bot.py": FEWEST}))[2] for _ in range(2)]
    return min(times)


def test_a_pax_header_bomb_gets_one_line_at_once_and_the_server_stays_small(server: Server) -> None:
    bomb = PAX_BOMB.read_bytes()
    assert len(bomb) < 1000 and pax_bomb_declared(bomb) > 2**30  # a kilobyte declaring a gigabyte
    baseline = honest_answer_s(server)
    status, error, took, growth = answered(server, "bomb.tar.bz2", bomb)
    assert status == 413 and "a PAX header of 1073741844 bytes" in error and "\n" not in error
    # Under a second (on a loaded shared machine: no slower than reading an honest archive).
    assert took < max(1.0, 2 * baseline), (took, baseline)
    assert growth < MEMORY_GROWTH_MB
    assert not (server.state / "submissions" / "bomber").exists()


@pytest.mark.parametrize("name, make, words", [
    ("liar.zip", lambda: zip_liar(60 * 2**20, 100), "unpacks to more than the 100 bytes it declares"),
    ("overlap.zip", lambda: zip_overlapping(15, 20_000), "share their bytes"),
    ("many.zip", lambda: zip_overlapping(3000, 2**20), "3000 entries, over the limit of 20"),
    ("zeros.tar.gz", lambda: gzip.compress(tar_of({"z": bytes(50 * 2**20)}, mode="w"), 9),
     "more than 400000 bytes unpacked"),
])
def test_zip_and_gzip_bombs_get_one_line_at_once_and_the_server_stays_small(server: Server, name: str, make: Any,
                                                                            words: str) -> None:
    bomb = make()
    assert len(bomb) < 200_000
    baseline = honest_answer_s(server)
    status, error, took, growth = answered(server, name, bomb)
    assert status == 413 and words in error and "\n" not in error, error
    assert took < max(1.0, 2 * baseline), (took, baseline)
    assert growth < MEMORY_GROWTH_MB


def test_serve_says_in_one_line_when_its_pythons_tarfile_has_a_known_bypass(server: Server) -> None:
    warnings = [line for line in server.output if "tarfile's extraction filter has known bypasses" in line]
    assert len(warnings) == (1 if tarfile_filter_warning() else 0), server.output[:5]
