"""Signed match logs: keys, the mac chain, and the forgeries `arena replay --verify` must refuse.

Every log here is a real match played by the real CLI (`arena match`, `arena tournament`)
or the real referee (tests.helpers.run); every forgery edits such a log the way a forger
without the key would: decode the records, change them consistently, encode them again.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from arena.games import State, get_game, ranks_with_last
from arena.logs.matchlog import LOG_FORMAT, read_log, write_log
from arena.logs.replay import header_clocks, verify
from arena.logs.signing import (
    KEY_FILE,
    MAC_KIND,
    KeyFileError,
    MacChain,
    SignatureStatus,
    check_signature,
    find_key,
    key_id,
    read_key_file,
    results_key,
    user_key,
    user_key_path,
)
from tests.helpers import ROOT, badbot, run

Records = list[dict[str, Any]]
GOLDEN = sorted((ROOT / "arena" / "games").glob("*/tests/golden.msgpack"))  # every game's stored log
FORMAT1 = ROOT / "tests" / "data" / "blocking-format1.msgpack"


# --- running the real CLI with a private config directory ---------------------------------


@pytest.fixture(scope="module")
def config_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """XDG_CONFIG_HOME of every command here: the user's key lives in it, never in the real home."""
    return tmp_path_factory.mktemp("config")


@pytest.fixture(autouse=True)
def _private_config(monkeypatch: pytest.MonkeyPatch, config_home: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))


def arena(*args: str, config: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`arena ARGS` in a subprocess, with config as XDG_CONFIG_HOME."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, env={**os.environ, "XDG_CONFIG_HOME": str(config)}, check=False)


def verify_cli(path: Path, config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    """`arena replay PATH --verify`."""
    return arena("replay", str(path), "--verify", *extra, config=config)


def signature_of(out: subprocess.CompletedProcess[str]) -> str:
    """The `signature:` line of `arena replay --verify`."""
    return next(line for line in out.stdout.splitlines() if line.startswith("signature: "))


def match(path: Path, config: Path, *args: str) -> Path:
    """Play one match with `arena match` (no sandbox: the bots are ours), its log at path."""
    done = arena("match", "blocking", *args, "--sandbox", "none", "--log", str(path), config=config)
    assert done.returncode == 0, done.stderr
    return path


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, config_home: Path) -> dict[str, Path]:
    """Real signed logs: a won game, a crash and a timeout."""
    directory = tmp_path_factory.mktemp("played")
    small = ("--set", "rows=5", "--set", "cols=6")
    return {
        "won": match(directory / "won.msgpack", config_home, "maxblock", "random", *small, "--seed", "3"),
        "crash": match(directory / "crash.msgpack", config_home, badbot("crash_mid_game"), "random", *small,
                       "--seed", "3"),
        "timeout": match(directory / "timeout.msgpack", config_home, "random", badbot("hang"), *small,
                         "--seed", "3", "--budget-ms", "300", "--margin-ms", "50"),
    }


# --- decoding, forging and encoding logs ---------------------------------------------------


def split(data: bytes) -> tuple[Records, list[dict[str, Any]]]:
    """A log's records without the mac records, and the mac records in order."""
    unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
    unpacker.feed(data)
    records = list(unpacker)
    return [r for r in records if r["kind"] != MAC_KIND], [r for r in records if r["kind"] == MAC_KIND]


def assemble(body: Records, macs: list[dict[str, Any]]) -> bytes:
    """Records encoded as the writer encodes them, each followed by the mac that stood at its place."""
    packer = msgpack.Packer(use_bin_type=True)
    out = b""
    for index, record in enumerate(body):
        out += packer.pack(record)
        if index < len(macs):
            out += packer.pack(macs[index])
    return out


def downgrade(body: Records) -> bytes:
    """The forger's other way out: no macs at all, and a header that names no key."""
    header = body[0]
    header.pop("key_id", None)
    header["signed"] = False
    return assemble(body, [])


def first(body: Records, kind: str) -> dict[str, Any]:
    return next(r for r in body if r["kind"] == kind)


def replayed(body: Records, plies: int) -> State:
    """The position after the first plies moves of the log."""
    header = body[0]
    state, _ = get_game(header["game"]).start(header["setup"], header["players"], header["seed"])
    for record in [r for r in body if r["kind"] == "move"][:plies]:
        state.apply(record["move"])
    return state


def charged(body: Records, seat: int) -> float:
    """The time the seat's records charge it."""
    return sum(r["time_ms"] for r in body if r["kind"] in ("ready", "move", "resign") and r["seat"] == seat)


def forfeit(body: Records, result: dict[str, Any], offender: int) -> None:
    """Rewrite the result's scores and ranks as the referee would for offender's failure."""
    scores = [float(s) for s in replayed(body, result["plies"]).forfeit_scores(offender)]
    result.update(offender=offender, scores=scores, ranks=ranks_with_last(scores, [offender]))


def recompute_clocks(body: Records) -> None:
    """Make every logged clock follow from the logged times, as the verifier recomputes them."""
    settings = header_clocks(body[0])
    left = [float(s.budget_ms) for s in settings]
    for record in body:
        seat = record.get("seat")
        if record["kind"] == "ready":
            left[seat] = round(max(0.0, left[seat] - record["time_ms"]), 3)
            record["clock"] = left[seat]
        elif record["kind"] == "move":
            left[seat] = round(max(0.0, left[seat] - record["time_ms"]) + settings[seat].increment_ms, 3)
            record["clocks"] = list(left)


def swap_names(body: Records, careful: bool = True) -> None:
    """The seats' names swapped in the header and the result: the win changes hands."""
    body[0]["seats"] = body[0]["seats"][::-1]
    result = first(body, "result")
    result["players"] = result["players"][::-1]


def blame_other_seat(body: Records, careful: bool = True) -> None:
    """A crash blamed on the other seat, scores and ranks rewritten to match."""
    result = first(body, "result")
    assert result["reason"] == "crash"
    forfeit(body, result, 1 - result["offender"])


def timeout_as_crash(body: Records, careful: bool = False) -> None:
    """A timeout relabelled as a crash (careful: the time it ran out with taken out of time_used_ms)."""
    result = first(body, "result")
    assert result["reason"] == "timeout"
    result.update(reason="crash", detail="bot process killed by signal 9")
    if careful:
        result["time_used_ms"][result["offender"]] = round(charged(body, result["offender"]), 3)


def edit_move_time(body: Records, careful: bool = False) -> None:
    """A move's time made 25 ms longer, every clock after it recomputed (careful: time_used_ms too)."""
    move = first(body, "move")
    move["time_ms"] = round(move["time_ms"] + 25.0, 3)
    recompute_clocks(body)
    if careful:
        used = first(body, "result")["time_used_ms"]
        used[move["seat"]] = round(used[move["seat"]] + 25.0, 3)


def cut_to_timeout(body: Records, careful: bool = False) -> None:
    """A won game cut by its last ply and rewritten as the winner's timeout on that turn.

    careful: time_used_ms and duration_s made to hold a turn as long as the deadline.
    """
    moves = [r for r in body if r["kind"] == "move"]
    last, winner = moves[-1], moves[-1]["seat"]
    result = first(body, "result")
    assert result["reason"] == "blocked" and result["ranks"][winner] == 1
    del body[body.index(last):body.index(result)]  # the move and the events it caused
    clock = header_clocks(body[0])[winner]
    before = [r for r in body if r["kind"] in ("ready", "move") and r["seat"] == winner][-1]
    left = before["clock"] if before["kind"] == "ready" else before["clocks"][winner]
    allowance = int(left if clock.move_cap_ms is None else min(left, clock.move_cap_ms))
    result.update(reason="timeout", plies=last["ply"] - 1,
                  detail=f"no move within {allowance} ms + {clock.margin_ms} ms margin")
    forfeit(body, result, winner)
    if careful:
        turn = allowance + clock.margin_ms + 1.0
        result["time_used_ms"][winner] = round(charged(body, winner) + turn, 3)
        result["duration_s"] = round(result["duration_s"] + turn / 1000, 4)
    first(body, "end")["records"] = len(body) - 1


Forgery = Callable[..., None]
# name -> (the log it edits, the edit, whether the re-simulation alone catches the careless edit)
FORGERIES: dict[str, tuple[str, Forgery, bool]] = {
    "names swapped": ("won", swap_names, False),
    "crash blamed on the other seat": ("crash", blame_other_seat, False),
    "timeout relabelled as a crash": ("timeout", timeout_as_crash, True),
    "a move's time edited, clocks recomputed": ("won", edit_move_time, True),
    "cut by one ply, rewritten as the winner's timeout": ("won", cut_to_timeout, True),
}


def forged(path: Path, forgery: Forgery, careful: bool) -> tuple[Records, list[dict[str, Any]]]:
    """The records of the log at path after the forgery, and its mac records as they stood."""
    body, macs = split(path.read_bytes())
    forgery(body, careful=careful)
    return body, macs


# --- keys -------------------------------------------------------------------------------


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_match_creates_the_user_key_0600_in_a_0700_directory(tmp_path: Path) -> None:
    config = tmp_path / "config"
    path = match(tmp_path / "m.msgpack", config, "maxblock", "random", "--set", "rows=4", "--set", "cols=4")
    key_file = config / "arena" / KEY_FILE
    assert mode(key_file) == 0o600 and mode(key_file.parent) == 0o700
    text = key_file.read_text()
    assert len(text.strip()) == 64 and text.endswith("\n")
    key = bytes.fromhex(text)
    header = split(path.read_bytes())[0][0]
    assert header["signed"] is True and header["key_id"] == key_id(key) and len(header["key_id"]) == 16
    assert key.hex() not in path.read_bytes().hex()  # the log names the key, never holds it
    # The next match signs with the same key: it is created once.
    again = match(tmp_path / "n.msgpack", config, "maxblock", "random", "--set", "rows=4", "--set", "cols=4")
    assert split(again.read_bytes())[0][0]["key_id"] == header["key_id"]
    assert key_file.read_text() == text


def test_user_key_follows_xdg_config_home_and_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert user_key_path() == tmp_path / "xdg" / "arena" / KEY_FILE
    assert user_key(create=False) is None and not user_key_path().exists()
    key = user_key(create=True)
    assert key is not None and len(key) == 32 and user_key(create=False) == key
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/dir")  # XDG says: ignore relative values
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_key_path() == tmp_path / "home" / ".config" / "arena" / KEY_FILE
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))  # a file where the directory should be
    assert user_key(create=True) is None
    assert "not usable" in caplog.text


def test_results_key_is_created_once_0600_and_refuses_garbage(tmp_path: Path) -> None:
    assert results_key(tmp_path) is None and results_key(tmp_path, create=False) is None
    key = results_key(tmp_path, create=True)
    assert key is not None and results_key(tmp_path) == key == results_key(tmp_path, create=True)
    assert mode(tmp_path / KEY_FILE) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == [KEY_FILE]  # no temporary file left behind
    (tmp_path / KEY_FILE).write_text("not hex\n")
    with pytest.raises(KeyFileError, match="hex digits"):
        results_key(tmp_path)
    (tmp_path / KEY_FILE).write_text("abcd\n")
    with pytest.raises(KeyFileError, match="at least 16 bytes"):
        read_key_file(tmp_path / KEY_FILE)
    with pytest.raises(KeyFileError, match="no such file"):
        read_key_file(tmp_path / "missing")


# --- the chain --------------------------------------------------------------------------


def test_untouched_log_verifies_signed(played: dict[str, Path], config_home: Path) -> None:
    for name, path in played.items():
        out = verify_cli(path, config_home)
        assert out.returncode == 0, out.stdout + out.stderr
        assert out.stdout.startswith("OK verified")
        key = read_key_file(config_home / "arena" / KEY_FILE)
        assert signature_of(out) == (f"signature: signed by key {key_id(key)} (user key "
                                     f"{config_home / 'arena' / KEY_FILE}), "
                                     f"all {len(split(path.read_bytes())[0])} records"), name
        # Decoding and encoding again changes no byte: the forgeries below differ only by their edits.
        body, macs = split(path.read_bytes())
        assert assemble(body, macs) == path.read_bytes()
    signature = check_signature(played["won"].read_bytes(), user_key())
    assert signature.ok and signature.status is SignatureStatus.SIGNED
    assert signature.trusted_bytes == played["won"].stat().st_size


@pytest.mark.parametrize("careful", [False, True], ids=["careless", "careful"])
@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_forgery_is_reported_forged(played: dict[str, Path], config_home: Path, tmp_path: Path, name: str,
                                    careful: bool) -> None:
    source, forgery, caught_without_key = FORGERIES[name]
    body, macs = forged(played[source], forgery, careful)
    path = tmp_path / "forged.msgpack"
    path.write_bytes(assemble(body, macs))
    log = read_log(path)  # still a well-formed log
    out = verify_cli(path, config_home)
    assert out.returncode == 1, out.stdout
    assert signature_of(out).startswith("signature: FORGED: record "), out.stdout
    assert "does not match its mac" in signature_of(out) or "has no mac" in signature_of(out)
    explicit = verify_cli(path, config_home, "--key", str(config_home / "arena" / KEY_FILE))
    assert explicit.returncode == 1 and "signature: FORGED" in explicit.stdout
    # Without the key, the re-simulation catches what contradicts the log itself, and only that.
    resimulated = verify(log)
    if careful or not caught_without_key:
        assert resimulated.ok, resimulated.message
        assert out.stdout.startswith("FAILED the re-simulation agrees")
    else:
        assert not resimulated.ok and "result:" in resimulated.message, resimulated.message


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_downgraded_forgery_fails_where_a_signature_is_expected(played: dict[str, Path], config_home: Path,
                                                                tmp_path: Path, name: str) -> None:
    source, forgery, _ = FORGERIES[name]
    body, _ = forged(played[source], forgery, careful=True)
    path = tmp_path / "downgraded.msgpack"
    path.write_bytes(downgrade(body))
    out = verify_cli(path, config_home, "--key", str(config_home / "arena" / KEY_FILE))
    assert out.returncode == 1
    assert signature_of(out).startswith(f"signature: UNSIGNED (format {LOG_FORMAT}, written without a key), but --key")
    # Mac records left in place while the key id is removed are a forgery too.
    body, macs = forged(played[source], forgery, careful=True)
    del body[0]["key_id"]
    path.write_bytes(assemble(body, macs))
    assert check_signature(path.read_bytes(), user_key()).status is SignatureStatus.FORGED


def test_other_chain_edits_are_forged(played: dict[str, Path]) -> None:
    data = played["won"].read_bytes()
    key = user_key()
    assert key is not None
    body, macs = split(data)
    status = lambda blob: check_signature(blob, key)  # noqa: E731
    assert status(assemble(body[:3] + body[4:], macs[:3] + macs[4:])).status is SignatureStatus.FORGED  # removed
    assert status(assemble([body[0], body[2], body[1], *body[3:]], [macs[0], macs[2], macs[1], *macs[3:]])
                  ).status is SignatureStatus.FORGED  # reordered with their macs
    no_mac = assemble(body[:3], macs[:3]) + msgpack.packb(body[3]) + assemble(body[4:], macs[4:])
    assert "has no mac" in status(no_mac).detail
    extra = status(data + msgpack.packb({"kind": "output", "seat": 0, "text": "x"}))
    assert extra.status is SignatureStatus.FORGED and "after the signed end record" in extra.detail
    other = check_signature(data, bytes(32))
    assert other.status is SignatureStatus.FORGED and "not by the key it was checked with" in other.detail
    unknown = check_signature(data, None)
    assert unknown.status is SignatureStatus.UNKNOWN_KEY and unknown.key_id == body[0]["key_id"]
    # A forger who signs with a key of his own is told apart by the key id.
    mine = MacChain(b"m" * 32)
    body[0]["key_id"] = key_id(b"m" * 32)
    resigned = b"".join(blob + msgpack.packb({"kind": MAC_KIND, "mac": mine.next(blob)}, use_bin_type=True)
                        for blob in (msgpack.packb(r, use_bin_type=True) for r in body))
    assert check_signature(resigned, b"m" * 32).ok  # his own key: fine by him
    assert check_signature(resigned, key).status is SignatureStatus.FORGED


def test_every_cut_is_truncated_with_what_it_holds(played: dict[str, Path]) -> None:
    data = played["won"].read_bytes()
    key = user_key()
    covered = []
    for cut in range(1, len(data)):
        signature = check_signature(data[:cut], key)
        if signature.status is SignatureStatus.UNSIGNED:  # cut inside the header: not a log yet
            assert "not a match log" in signature.detail and not covered, cut
            continue
        assert signature.status is SignatureStatus.TRUNCATED, (cut, signature)
        assert signature.trusted_bytes <= cut
        covered.append(signature.records)
    assert covered == sorted(covered) and covered[-1] == len(split(data)[0]) - 1


def test_cut_log_reports_truncated_with_the_count(played: dict[str, Path], config_home: Path,
                                                  tmp_path: Path) -> None:
    data = played["won"].read_bytes()
    body, macs = split(data)
    keep = 5  # header, two ready, two moves, each with its mac
    length = len(assemble(body[:keep], macs[:keep]))
    cut = tmp_path / "cut.msgpack"
    cut.write_bytes(data[: length + 7])  # seven bytes of the next record
    out = verify_cli(cut, config_home)
    assert out.returncode == 1
    line = signature_of(out)
    assert line.startswith("signature: TRUNCATED") and f"signed up to record {keep - 1} (move of ply 2)" in line
    assert "a record cut short" in line
    signature = check_signature(cut.read_bytes(), user_key())
    assert signature.records == keep and signature.trusted_bytes == length
    # A record appended without its mac after a cut is not trusted: still truncated, never signed.
    result = first(body, "result")
    cut.write_bytes(data[:length] + msgpack.packb(result, use_bin_type=True))
    assert check_signature(cut.read_bytes(), user_key()).status is SignatureStatus.TRUNCATED
    assert verify_cli(cut, config_home).returncode == 1


def test_old_formats_and_golden_logs_verify_unsigned(config_home: Path) -> None:
    assert GOLDEN
    for path in [*GOLDEN, FORMAT1]:
        out = verify_cli(path, config_home)
        assert out.returncode == 0, out.stdout
        fmt = read_log(path).format
        written = ", written without a key" if fmt >= 3 else ""  # the formats that could have been signed
        assert signature_of(out) == f"signature: unsigned (format {fmt}{written})"
    dump = arena("replay", str(GOLDEN[0]), "--json", config=config_home)
    assert '"status": "unsigned"' in dump.stdout


def test_unsigned_logs_and_unknown_keys_verify(tmp_path: Path, config_home: Path) -> None:
    plain = tmp_path / "plain.msgpack"
    run("blocking", ["maxblock", "random"], {"rows": 5, "cols": 5}, seed=2, log=plain)  # no key: unsigned
    out = verify_cli(plain, config_home)
    assert out.returncode == 0
    assert signature_of(out) == f"signature: unsigned (format {LOG_FORMAT}, written without a key)"
    # Signed by a key this user does not have: reported, not refused.
    signed = match(tmp_path / "other.msgpack", tmp_path / "other-config", "maxblock", "random",
                   "--set", "rows=4", "--set", "cols=4")
    out = verify_cli(signed, config_home)
    assert out.returncode == 0 and "which is not available here" in signature_of(out)
    out = verify_cli(signed, config_home, "--key", str(tmp_path / "other-config" / "arena" / KEY_FILE))
    assert out.returncode == 0 and signature_of(out).startswith("signature: signed by key")
    out = verify_cli(signed, config_home, "--key", str(config_home / "arena" / KEY_FILE))
    assert out.returncode == 1 and "not by the key it was checked with" in signature_of(out)
    out = verify_cli(signed, config_home, "--key", str(tmp_path / "nothing"))
    assert out.returncode == 2 and "cannot read key" in out.stderr


# --- a results directory ------------------------------------------------------------------


def test_tournament_logs_are_signed_with_the_directory_key(tmp_path: Path, config_home: Path) -> None:
    config = tmp_path / "t.toml"
    config.write_text('name = "signed"\ngame = "blocking"\nseed = 5\ngames_per_pairing = 2\nconcurrency = 1\n'
                      'bots = ["maxblock", "random"]\nsetups = {fixed = {rows = 5, cols = 5}}\n'
                      'sandbox = "none"\n')
    out = tmp_path / "out"
    done = arena("tournament", str(config), "--out", str(out), "--quiet", config=config_home, timeout=300)
    assert done.returncode == 0, done.stderr
    key_file = out / KEY_FILE
    assert mode(key_file) == 0o600
    key = read_key_file(key_file)
    logs = sorted((out / "logs").glob("*.msgpack"))
    assert len(logs) == 2
    assert find_key(logs[0]) == (key, f"results directory {key_file}")
    for path in logs:
        verified = verify_cli(path, config_home)
        assert verified.returncode == 0, verified.stdout
        assert signature_of(verified).startswith(f"signature: signed by key {key_id(key)} (results directory "
                                                 f"{key_file})")
    # Forged in place: found out with the directory's key, nothing given on the command line.
    body, macs = forged(logs[0], swap_names, careful=True)
    logs[0].write_bytes(assemble(body, macs))
    verified = verify_cli(logs[0], config_home)
    assert verified.returncode == 1 and signature_of(verified).startswith("signature: FORGED: record 0 (header)")
    # Unsigned, or signed by another key (a log written elsewhere): not a log of this directory.
    logs[0].write_bytes(downgrade(body))
    verified = verify_cli(logs[0], config_home)
    assert verified.returncode == 1 and "every log of the results directory" in signature_of(verified)
    match(logs[1], config_home, "maxblock", "random", "--set", "rows=4", "--set", "cols=4", "--force")
    verified = verify_cli(logs[1], config_home)
    assert verified.returncode == 1 and "not by the key it was checked with" in signature_of(verified)


# --- the writer stays fast -------------------------------------------------------------


def test_signing_costs_little(tmp_path: Path) -> None:
    header = split(GOLDEN[0].read_bytes())[0][0]
    moves = [{"kind": "move", "ply": i, "seat": i % 2, "move": [i % 9, i % 7], "time_ms": 1.25,
              "clocks": [1000.5, 999.25], "pos": 123456} for i in range(1, 5001)]
    timings = {}
    for key in (None, bytes(32)):
        started = time.perf_counter()
        write_log(tmp_path / f"{key is None}.msgpack", [{**header, "game": "none"}, *moves], key)
        timings[key is None] = time.perf_counter() - started
    assert timings[False] < 2.0 and timings[False] < 3 * timings[True] + 0.5, timings
    signature = check_signature((tmp_path / "False.msgpack").read_bytes(), bytes(32))
    assert signature.ok and signature.records == 5002
