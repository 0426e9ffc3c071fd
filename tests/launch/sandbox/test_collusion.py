"""Colluding entrants playing each other: no channel through the machine between their bots.

A colluding pair (tests/fixtures/colluder.py): the star shows a signal derived from the match
id and the pair's secret on every channel it can reach (locks on a file every bot shares,
opens of a watched file, files in the scratch places, its command line in /proc); the
thrower looks for it on each and throws the game once it finds it. On a 6x6 Blocking board
the first mover wins, so the thrower (seat 0) wins every game unless a channel is open:
then it loses to its partner and still beats a stranger (a star with another secret).

Run as root with bubblewrap (as CI does), in `bwrap` and `uid`; each defence beside its
control: the same pair with no sandbox (where the thrower still beats a stranger), and its
partner without the system-call filter, without the /proc masks, and in `uid` without the
mode's own scratch places and /proc.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from arena.launch.processes import cgroups
from arena.launch.sandbox import procmask, sandbox
from arena.launch.sandbox.sandbox import Sandbox
from arena.logs.matchlog import read_log
from tests.helpers import FIXTURES, require, run
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, attack, mode, needs_root, unfiltered  # noqa: F401

BOARD = {"rows": 6, "cols": 6, "blocked": []}  # the first mover wins with perfect play
SEEDS = (1, 2)  # a match id each, so a signal each
CONTROL = (3,)  # the controls play one game
CHANNELS = {"fcntl", "ofd", "flock", "proclocks", "inotify", "files", "procs"}
LOCKS = ("fcntl", "ofd", "flock")


def colluder(role: str, secret: str) -> str:
    return f"stdio:{SYSTEM_PYTHON} {FIXTURES / 'colluder.py'} {role} {secret}"


@dataclass
class Record:
    """How the thrower fared against one opponent, game by game."""

    losses: int = 0
    found: set[str] = field(default_factory=set)  # channels it found its opponent on, in any game
    probes: list[dict[str, str]] = field(default_factory=list)  # its last probe's answers, per game
    signals: list[dict[str, str]] = field(default_factory=list)  # what the star's calls answered, per game


def last_report(output: str, role: str) -> dict:
    lines = [line for line in output.splitlines() if line.startswith(f"COLLUDE {role} ")]
    assert lines, f"the {role} did not report: {output[-500:]}"
    return json.loads(lines[-1].split(" ", 2)[2])


def series(tmp_path: Path, where: Sandbox, secret: str, opponent: str, seeds: tuple[int, ...] = SEEDS) -> Record:
    """The thrower (seat 0, moving first) against a star with the opponent's secret, once per seed."""
    record = Record()
    for seed in seeds:
        log = tmp_path / f"{opponent}-{seed}.msgpack"
        result, _ = run("blocking", [colluder("thrower", secret), colluder("star", opponent)], BOARD, seed=seed,
                        log=log, sandbox=where)
        assert result.offender is None and result.reason == "blocked", (result.reason, result.detail)
        output = read_log(log).output
        thrower = last_report(output[0], "thrower")
        record.losses += result.scores[0] < result.scores[1]
        record.found |= set(thrower["found"])
        record.probes.append(thrower["answers"])
        record.signals.append(last_report(output[1], "star"))
    return record


def partner_and_stranger(tmp_path: Path, where: Sandbox, seeds: tuple[int, ...] = SEEDS) -> tuple[Record, Record]:
    secret = f"pair-{secrets.token_hex(4)}"
    return (series(tmp_path, where, secret, secret, seeds),
            series(tmp_path, where, secret, f"other-{secrets.token_hex(4)}", seeds))


def against_partner(tmp_path: Path, where: Sandbox) -> Record:
    """A control: the thrower against its partner, one game."""
    secret = f"pair-{secrets.token_hex(4)}"
    return series(tmp_path, where, secret, secret, CONTROL)


@pytest.fixture
def unmasked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sandbox's /proc without its neutral stand-ins: the machine's /proc/locks (the mask's control)."""
    monkeypatch.setattr(procmask, "masks", lambda: ())


@pytest.fixture
def unboxed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """`uid` mode without its own scratch places, /proc and pid namespace (the box's control)."""
    needs_root()
    sandbox.resolve_sandbox.cache_clear()
    monkeypatch.setattr(sandbox, "box_problem", lambda: "switched off by the test")
    yield
    sandbox.resolve_sandbox.cache_clear()


def test_without_a_sandbox_the_thrower_finds_its_partner_on_every_channel_and_throws_to_it_only(
        tmp_path: Path) -> None:
    partner, stranger = partner_and_stranger(tmp_path, Sandbox.NONE, CONTROL)
    assert partner.found == CHANNELS and partner.losses == len(CONTROL), partner
    assert stranger.found == set() and stranger.losses == 0, stranger


def test_in_the_sandbox_the_thrower_loses_to_its_partner_no_more_often_than_to_a_stranger(
        tmp_path: Path, mode: Sandbox) -> None:  # noqa: F811
    partner, stranger = partner_and_stranger(tmp_path, mode)
    assert partner.losses <= stranger.losses, (partner, stranger)
    assert partner.losses == stranger.losses == 0 and partner.found == stranger.found == set(), (partner, stranger)
    for probe in partner.probes:
        assert {name: probe[name] for name in LOCKS} == dict.fromkeys(LOCKS, "ENOLCK"), probe
        assert probe["inotify"] == "EPERM" and probe["proclocks"] == "no (0 locks)", probe
        assert probe["files"] == probe["procs"] == "no", probe
    for signal in partner.signals:
        assert {name: signal[name] for name in LOCKS} == dict.fromkeys(LOCKS, "ENOLCK"), signal
        assert signal["files"] == "/tmp,/var/tmp,/dev/shm", signal  # written, into its own places only


def test_without_the_filter_locks_and_watches_carry_the_signal_in_the_sandbox(
        tmp_path: Path, mode: Sandbox, unfiltered: None) -> None:  # noqa: F811
    record = against_partner(tmp_path, mode)
    assert record.losses == len(CONTROL), record
    assert record.found == {*LOCKS, "inotify"}, record  # /proc/locks masked, scratch places and pids private


def test_without_the_filter_and_the_masks_proc_locks_carries_it_too(
        tmp_path: Path, unfiltered: None, unmasked: None) -> None:  # noqa: F811
    needs_root()
    require("bwrap")
    record = against_partner(tmp_path, Sandbox.BWRAP)
    assert "proclocks" in record.found, record  # an open-file-description lock shows past the pid namespace


def test_uid_mode_without_its_own_places_and_proc_lets_files_and_processes_carry_the_signal(
        tmp_path: Path, unboxed: None) -> None:
    note = sandbox.resolve_sandbox(Sandbox.UID).note
    assert "shares /tmp, /var/tmp, /dev/shm and /proc with other bots (switched off by the test)" in note, note
    record = against_partner(tmp_path, Sandbox.UID)
    assert record.losses == len(CONTROL) and record.found == {"files", "procs"}, record  # no lock: the filter


@pytest.fixture
def lock_held_by_the_machine() -> Iterator[int]:
    """An open-file-description read lock the test holds on /etc/passwd at a random offset: its offset."""
    offset = 2_000_000 + secrets.randbelow(1_000_000)
    fd = os.open("/etc/passwd", os.O_RDONLY)
    try:
        fcntl.fcntl(fd, 37, struct.pack("hhqqi4x", fcntl.F_RDLCK, os.SEEK_SET, offset, 1, 0))  # F_OFD_SETLK
        yield offset
    finally:
        os.close(fd)


def test_proc_locks_shows_a_bot_no_lock_of_others(tmp_path: Path, mode: Sandbox,  # noqa: F811
                                                  lock_held_by_the_machine: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    offset = str(lock_held_by_the_machine)
    result, report = attack(tmp_path, mode, "proc_locks", offset)
    assert report.endswith(f"blocked (0 locks listed, 0 at offset {offset})"), report
    assert result.offender is None, (result.reason, result.detail)
    monkeypatch.setattr(procmask, "masks", lambda: ())  # the control: the kernel's own /proc/locks
    _, report = attack(tmp_path, mode, "proc_locks", offset)
    assert report.endswith(f"1 at offset {offset})") and "SUCCEEDED" in report, report


def test_a_bot_reads_no_cgroup_file_of_another_bot(tmp_path: Path, mode: Sandbox) -> None:  # noqa: F811
    result, report = attack(tmp_path, mode, "cgroup_spy")
    assert report.endswith("blocked (read 0 cgroup files of other bots)"), report
    assert result.offender is None, (result.reason, result.detail)


def test_uid_mode_without_its_box_shows_other_bots_cgroup_files(tmp_path: Path, unboxed: None) -> None:
    if cgroups.v2_base() is None and cgroups.v1_base("pids") is None:
        if os.environ.get("CI"):
            pytest.fail("no writable cgroup hierarchy under CI")
        pytest.skip("no writable cgroup hierarchy: bots have no cgroup files to read")
    _, report = attack(tmp_path, Sandbox.UID, "cgroup_spy")
    assert "SUCCEEDED (read" in report, report  # the other seat's, at least
