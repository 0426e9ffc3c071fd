"""Stores that cannot be used are refused in one line; a full or read-only disk stops a run cleanly.

The full-disk tests mount a real tmpfs (root only: skipped elsewhere, failed under CI).
"""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.tournament.plan.config import load_config
from arena.tournament.plan.errors import TournamentError
from arena.tournament.results.store import STORE_NAME, ResultsStore, StoreError, StoreWriteError
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.tournament.helpers import cli, integrity, write_config

HINT = "free some space and run again with --resume"


def config_file(path: Path, setups: int = 4, games: int = 2) -> Path:
    """A blocking round robin of three reference bots on small random boards."""
    return write_config(path, {
        "name": path.stem, "game": "blocking", "seed": 11, "games_per_pairing": games, "concurrency": 2,
        "bots": ["random", "sequential", "maxblock"], "sandbox": "none",
        "setups": {"random": {"count": setups, "min_size": 5, "max_size": 8}},
    })


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(config, output directory) of one finished tournament."""
    base = tmp_path_factory.mktemp("finished")
    config = config_file(base / "small.toml")
    done = cli("tournament", str(config), "--out", str(base / "out"), "--quiet")
    assert done.returncode == 0, done.stderr
    return config, base / "out"


def damage(store: Path, kind: str) -> str:
    """Spoil the store the way kind says; return what the one-line refusal must say."""
    if kind == "empty":
        store.write_bytes(b"")
        return "empty file (0 bytes)"
    if kind == "garbage":
        store.write_bytes(os.urandom(8192))
        return "not a results store: file is not a database"
    if kind == "damaged pages":
        # Overwrite the page headers of the middle page: b-tree pages SQLite can no longer read.
        page = int(sqlite3.connect(store).execute("PRAGMA page_size").fetchone()[0])
        pages = store.stat().st_size // page
        with open(store, "r+b") as f:
            f.seek((pages // 2) * page)
            f.write(b"\xa5" * 100)
        return "damaged results store"
    if kind == "foreign":
        store.unlink()
        with sqlite3.connect(store) as db:
            db.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
            db.execute("INSERT INTO notes (text) VALUES ('not a tournament')")
        db.close()
        return "not a results store: no meta and matches tables"
    raise ValueError(kind)


@pytest.mark.parametrize("kind", ["empty", "garbage", "damaged pages", "foreign"])
def test_an_unusable_store_is_refused_in_one_line(finished: tuple[Path, Path], tmp_path: Path, kind: str) -> None:
    config, played = finished
    out = Path(shutil.copytree(played, tmp_path / "out"))
    store = out / STORE_NAME
    why = damage(store, kind)
    before = store.read_bytes()
    for args in (["tournament", str(config), "--out", str(out), "--resume", "--quiet"], ["standings", str(out)],
                 ["verify", str(out)]):
        done = cli(*args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, (args, done.stderr)
        assert str(store) in lines[0] and why in lines[0], (args, lines[0])
    assert store.read_bytes() == before  # refused, never replaced by a fresh store


def test_a_store_without_metadata_is_refused(finished: tuple[Path, Path], tmp_path: Path) -> None:
    config, played = finished
    out = Path(shutil.copytree(played, tmp_path / "out"))
    with sqlite3.connect(out / STORE_NAME) as db:
        db.execute("DROP TABLE meta")
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.close()
    resumed = cli("tournament", str(config), "--out", str(out), "--resume", "--quiet")
    assert resumed.returncode == 2 and "not a results store of any tournament" in resumed.stderr
    for args in (["standings", str(out)], ["verify", str(out)]):
        done = cli(*args)
        assert done.returncode == 2 and "holds no tournament" in done.stderr, done.stderr


def test_a_missing_store_on_resume_starts_the_tournament(tmp_path: Path) -> None:
    config = config_file(tmp_path / "fresh.toml", setups=1)
    out = tmp_path / "out"
    done = cli("tournament", str(config), "--out", str(out), "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert cli("verify", str(out)).returncode == 0
    assert not (out / f"{STORE_NAME}.new").exists()


def test_the_journal_of_a_deleted_store_is_not_replayed_into_a_new_one(tmp_path: Path) -> None:
    config = config_file(tmp_path / "stale.toml", setups=1)
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{STORE_NAME}-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(60))
    done = cli("tournament", str(config), "--out", str(out), "--quiet")
    assert done.returncode == 2 and f"{STORE_NAME}-wal" in done.stderr and len(done.stderr.splitlines()) == 1
    assert not (out / STORE_NAME).exists()


def test_a_read_only_store_stops_the_run_and_resume_continues(tmp_path: Path) -> None:
    path = config_file(tmp_path / "ro.toml", setups=2)
    out = tmp_path / "out"
    coordinator = Coordinator(load_config(path), RunOptions(out=out, quiet=True))
    # SQLite's own refusal, as for a read-only file: this connection may no longer write.
    coordinator.store.db.execute("PRAGMA query_only = ON")
    with pytest.raises(TournamentError) as stopped:
        coordinator.run()
    coordinator.close()
    message = str(stopped.value)
    assert re.match(rf"cannot record match s\d-r\d-b\d-b\d in {re.escape(str(out))}/results.sqlite: attempt to "
                    "write a readonly database; ", message), message
    assert message.endswith("every result recorded so far is kept: make it writable and run again with --resume")
    assert "\n" not in message
    done = cli("tournament", str(path), "--out", str(out), "--resume", "--quiet")
    assert done.returncode == 0, done.stderr
    assert cli("verify", str(out)).returncode == 0


def test_a_failed_write_records_nothing(finished: tuple[Path, Path], tmp_path: Path) -> None:
    out = Path(shutil.copytree(finished[1], tmp_path / "out"))
    store = ResultsStore.in_dir(out)
    record = store.records()[0]
    count = store.count()
    store.db.execute("PRAGMA query_only = ON")
    record.match = "s9-r9-b0-b1"
    with pytest.raises(StoreWriteError, match="cannot record match s9-r9-b0-b1 in .*readonly database"):
        store.add(record)
    store.db.execute("PRAGMA query_only = OFF")
    assert store.count() == count
    store.close()


def test_a_new_store_appears_with_its_metadata(tmp_path: Path) -> None:
    path = tmp_path / STORE_NAME
    (tmp_path / f"{STORE_NAME}.new").write_bytes(b"left over by a killed run")
    store = ResultsStore.new(path, {"fingerprint": "f", "config": {}, "total": 0})
    assert store.meta()["fingerprint"] == "f" and store.meta()["schema"] == 1
    store.close()
    assert not (tmp_path / f"{STORE_NAME}.new").exists()
    with pytest.raises(StoreError, match="exists already"):
        ResultsStore.new(path, {})


# --- a real full file system ---------------------------------------------------------------


def _need_root_mounts() -> None:
    """Skip where tmpfs cannot be mounted (not root), but fail under CI, which runs as root."""
    if os.geteuid() != 0 or shutil.which("mount") is None:
        if os.environ.get("CI"):
            pytest.fail("the full-disk tests need root and mount(8) under CI")
        pytest.skip("the full-disk tests need root (they mount a tmpfs)")


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(list(argv), capture_output=True, text=True, check=False, timeout=60)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs mounted for the test (unmounted afterwards)."""
    _need_root_mounts()
    mount = tmp_path / "disk"
    mount.mkdir()
    done = _run("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount))
    if done.returncode != 0:
        if os.environ.get("CI"):
            pytest.fail(f"cannot mount a tmpfs under CI: {done.stderr.strip()}")
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        _unmount(mount)


def _unmount(mount: Path) -> None:
    """Unmount, waiting (with a deadline) for the stopped run's processes to let go of the files."""
    deadline = time.monotonic() + 10
    while _run("umount", str(mount)).returncode != 0:
        if time.monotonic() > deadline:
            _run("umount", "-l", str(mount))  # detach it anyway; it goes once the last file is closed
            return
        time.sleep(0.05)


def _rows(store: Path) -> dict[str, tuple[object, ...]]:
    """Every row of the store, by match."""
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True) as db:
        rows = {row[0]: tuple(row) for row in db.execute("SELECT * FROM matches")}
    db.close()
    return rows


def _stopped_cleanly(done: subprocess.CompletedProcess[str], name: str) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert lines[0].startswith(f"arena tournament: {name}: ") and lines[0].endswith(HINT), lines[0]
    return lines[0]


def _only_unplayed(out: Path) -> None:
    """verify on a stopped run: rows missing and no reports, but nothing recorded is wrong."""
    done = cli("verify", str(out))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("incomplete: ") and " incomplete (" in lines[-1], lines
    for line in lines[1:-1]:
        assert line.endswith((": no result row, but its log exists (a game in flight when the run stopped, or a "
                              "row deleted)", ": missing")), line
        assert ": missing" not in line or line.split(":")[0].endswith((".md", ".json", ".csv")), line


def test_a_full_disk_stops_the_run_and_resume_finishes_it(tmpfs: Path, tmp_path: Path) -> None:
    config = config_file(tmp_path / "full.toml", setups=100)  # 600 matches: far more than 2 MiB hold
    out = tmpfs / "out"
    line = _stopped_cleanly(cli("tournament", str(config), "--out", str(out), "--quiet"), "full")
    assert "disk is full" in line or "No space left on device" in line, line
    store = ResultsStore.in_dir(out, create=False)  # opens, on the still full disk
    recorded = store.count()
    store.close()
    assert 0 < recorded < 600
    assert integrity(out / STORE_NAME) == "ok"
    before = _rows(out / STORE_NAME)
    _only_unplayed(out)
    again = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")  # still full: same stop
    _stopped_cleanly(again, "full")
    assert _run("mount", "-o", "remount,size=64m", "tmpfs", str(tmpfs)).returncode == 0
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    after = _rows(out / STORE_NAME)
    assert len(after) == 600
    assert {match: after[match] for match in before} == before  # every row recorded before is intact
    verified = cli("verify", str(out))
    assert verified.returncode == 0, verified.stdout
    assert verified.stdout.splitlines()[-1] == "verified 600 matches, 600 logs: OK"


def test_a_full_log_disk_stops_the_run_and_resume_finishes_it(tmpfs: Path, tmp_path: Path) -> None:
    # The logs on their own small file system: a worker's log write is what fails.
    config = config_file(tmp_path / "logs.toml", setups=40)
    out = tmp_path / "out"
    out.mkdir()
    (out / "logs").symlink_to(tmpfs)
    filler = tmpfs / "filler"
    filler.write_bytes(bytes(2 * 2**20 - 64 * 1024))  # leave room for a few dozen logs only
    line = _stopped_cleanly(cli("tournament", str(config), "--out", str(out), "--quiet"), "logs")
    assert "could not be played" in line and "No space left on device" in line, line
    recorded = _rows(out / STORE_NAME)
    assert 0 < len(recorded) < 240
    _only_unplayed(out)
    filler.unlink()
    assert _run("mount", "-o", "remount,size=64m", "tmpfs", str(tmpfs)).returncode == 0
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    after = _rows(out / STORE_NAME)
    assert len(after) == 240 and {m: after[m] for m in recorded} == recorded
    assert cli("verify", str(out)).returncode == 0
