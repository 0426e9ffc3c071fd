"""The match log format: writing, reading, old formats, truncation, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest

from arena.logs.matchlog import (
    LAYOUT,
    LOG_FORMAT,
    MAGIC,
    OUTPUT_LIMIT,
    LogError,
    LogWriter,
    output_records,
    parse_log,
    position_fingerprint,
    read_log,
    write_log,
)
from arena.logs.replay import positions, verify
from arena.logs.signing import MAC_KIND, key_id
from tests.viewer.matches import play

DATA = Path(__file__).resolve().parents[1] / "data"
FORMAT1 = DATA / "blocking-format1.msgpack"


@pytest.fixture(scope="module")
def blocking_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return play("blocking", tmp_path_factory.mktemp("logs"))


def records_of(path: Path) -> list[dict]:
    return list(msgpack.Unpacker(open(path, "rb"), raw=False))


def test_format1_log_still_loads_and_verifies() -> None:
    log = read_log(FORMAT1)
    assert log.format == 1 and not log.truncated
    assert log.header["game"] == "blocking" and log.header["setup"] == {"rows": 5, "cols": 6, "blocked": []}
    assert len(log.moves) == 8 and log.result is not None and log.result["reason"] == "blocked"
    verdict = verify(log)
    assert verdict.ok, verdict.message
    # An edit in a format-1 log (no fingerprints) is still caught by the result check.
    data = log.to_json_data()
    data["result"]["scores"] = list(reversed(data["result"]["scores"]))
    assert not verify(parse_log(json.dumps(data).encode())).ok


def test_written_log_is_format_4_with_layout_fingerprints_and_end(blocking_log: Path) -> None:
    records = records_of(blocking_log)
    header = records[0]
    assert header["kind"] == "header" and header["magic"] == MAGIC and header["format"] == LOG_FORMAT == 4
    assert header["layout"] == LAYOUT and header["writer"].startswith("arena")
    assert header["signed"] is False and "key_id" not in header  # written without a key: no mac records
    assert "mac" not in {r["kind"] for r in records}
    assert records[-1] == {"kind": "end", "records": len(records) - 1}
    kinds = [r["kind"] for r in records]
    assert kinds.index("result") > max(i for i, k in enumerate(kinds) if k == "move")
    for record in records:
        assert set(record) - {"kind"} <= set(LAYOUT[record["kind"]]), record
    log = read_log(blocking_log)
    moves = iter(log.moves)
    for record, state in positions(log):
        if record is not None:
            assert record["pos"] == position_fingerprint(state)
    assert next(moves)["ply"] == 1
    assert not log.truncated and verify(log).ok


def test_json_dump_reads_back_identically(blocking_log: Path, tmp_path: Path) -> None:
    log = read_log(blocking_log)
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps(log.to_json_data(), indent=1))
    again = read_log(dump)
    assert again.to_json_data() == log.to_json_data()
    assert verify(again).ok


def test_every_cut_of_a_log_is_truncated_or_refused(blocking_log: Path) -> None:
    data = blocking_log.read_bytes()
    header_end = len(msgpack.packb(records_of(blocking_log)[0]))
    plies_seen = []
    for cut in range(1, len(data)):
        if cut < header_end:
            with pytest.raises(LogError):
                parse_log(data[:cut])
            continue
        log = parse_log(data[:cut])
        assert log.truncated and log.truncation, cut
        verdict = verify(log)
        assert not verdict.ok and verdict.truncated, cut
        plies_seen.append(len(log.moves))
    assert plies_seen == sorted(plies_seen)  # a longer prefix never holds fewer plies
    half = parse_log(data[: (header_end + len(data)) // 2])  # halfway through the moves
    assert 0 < len(half.moves) < len(read_log(blocking_log).moves)
    assert "truncated after ply" in verify(half).message


def test_missing_end_record_counts_as_truncated(blocking_log: Path) -> None:
    records = records_of(blocking_log)[:-1]
    log = parse_log(b"".join(msgpack.packb(r) for r in records))
    assert log.result is not None and log.truncated and "end record" in log.truncation
    verdict = verify(log)
    assert not verdict.ok and "truncated" in verdict.message


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda rs: rs[0].update(magic="something"), "not an arena match log"),
        (lambda rs: rs[0].update(format=99), "log format 99"),
        (lambda rs: rs[0].pop("seed"), "has no seed"),
        (lambda rs: next(r for r in rs if r["kind"] == "move").update(seat="0"), "seat must be int"),
        (lambda rs: next(r for r in rs if r["kind"] == "move").update(clocks=5), "clocks must be list"),
        (lambda rs: rs[-1].update(records=3), "end record counts 3"),
        (lambda rs: rs.append({"kind": "move", "ply": 99, "seat": 0, "move": [0, 0], "time_ms": 1,
                               "clocks": [1, 1]}), "after the end record"),
        (lambda rs: rs.insert(1, [1, 2]), "not a map with a kind"),
    ],
)
def test_malformed_logs_are_refused_with_a_message(blocking_log: Path, change, message: str) -> None:  # noqa: ANN001
    records = records_of(blocking_log)
    change(records)
    with pytest.raises(LogError, match=message):
        parse_log(b"".join(msgpack.packb(r) for r in records))


def test_garbage_and_missing_files_are_log_errors(tmp_path: Path) -> None:
    with pytest.raises(LogError, match="cannot read"):
        read_log(tmp_path / "nothing.msgpack")
    (tmp_path / "empty").write_bytes(b"")
    with pytest.raises(LogError):
        read_log(tmp_path / "empty")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(LogError, match="invalid JSON"):
        read_log(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text('{"a": 1}')
    with pytest.raises(LogError, match="not a match log dump"):
        read_log(tmp_path / "other.json")


def test_writer_bounds_output_and_closes_once(tmp_path: Path) -> None:
    path = tmp_path / "w.msgpack"
    writer = LogWriter(path)
    writer.write({"kind": "header", "magic": MAGIC, "format": LOG_FORMAT, "match": "m", "game": "nogame",
                  "game_version": 1, "setup": {}, "seed": 1, "players": 1, "seats": [{"name": "x"}],
                  "clock": {}})
    writer.write({"kind": "output", "seat": 0, "text": "x" * (OUTPUT_LIMIT + 10)})
    writer.close()
    writer.close()
    with pytest.raises(LogError, match="closed"):
        writer.write({"kind": "event", "ply": 0, "event": [-1, {}]})
    log = read_log(path)
    assert log.output[0].startswith("[10 earlier characters dropped]")
    assert log.truncated and "no result" in log.truncation


def test_signed_writer_follows_every_record_with_its_mac_and_readers_skip_them(blocking_log: Path,
                                                                               tmp_path: Path) -> None:
    plain = records_of(blocking_log)
    signed = tmp_path / "signed.msgpack"
    key = bytes(range(32))
    write_log(signed, [r for r in plain if r["kind"] != "end"], key)
    records = records_of(signed)
    assert [r["kind"] for r in records[1::2]] == [MAC_KIND] * (len(records) // 2)
    assert all(isinstance(r["mac"], bytes) and len(r["mac"]) == 32 for r in records[1::2])
    body = records[::2]
    assert body[0]["signed"] is True and body[0]["key_id"] == key_id(key) and body[0]["format"] == 4
    assert body[-1] == {"kind": "end", "records": len(body) - 1}  # mac records are not counted
    log = read_log(signed)
    assert log.to_json_data()["records"] == read_log(blocking_log).to_json_data()["records"]
    assert not log.truncated and verify(log).ok
    # A keyless writer drops a key id it was handed (a re-written signed header stays truthful).
    unsigned = tmp_path / "unsigned.msgpack"
    write_log(unsigned, [body[0], *body[1:-1]])
    header = records_of(unsigned)[0]
    assert header["signed"] is False and "key_id" not in header
    with pytest.raises(ValueError, match="at least 16 bytes"):
        LogWriter(tmp_path / "short.msgpack", b"short")
    assert not (tmp_path / "short.msgpack").exists()


def test_output_records_keep_only_seats_that_wrote() -> None:
    assert output_records({1: "b", 0: "a", 2: ""}) == [{"kind": "output", "seat": 0, "text": "a"},
                                                       {"kind": "output", "seat": 1, "text": "b"}]
