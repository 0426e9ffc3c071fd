"""Uploads are checked before anything is stored: kinds, sizes, and archives that try to escape."""

from __future__ import annotations

import io
import tarfile

import pytest

from arena.server.state.config import UploadLimits
from arena.server.uploads.sources import LANGUAGES, SubmissionError, read_upload
from tests.helpers import ROOT
from tests.server.fixtures import FEWEST, tar_of, zip_of

LIMITS = UploadLimits(max_bytes=100_000, max_files=10, max_unpacked_bytes=200_000)
MANIFEST = b'run = "./bot"\nbuild = "make"\n'


def refused(name: str, data: bytes, interfaces: frozenset[str] = frozenset()) -> str:
    with pytest.raises(SubmissionError) as caught:
        read_upload(name, data, LIMITS, interfaces)
    return str(caught.value)


def test_single_files_get_their_languages_build_and_run() -> None:
    python = read_upload("fewest.py", FEWEST, LIMITS, frozenset())
    assert python.language == "python" and "py_compile fewest.py" in python.build
    assert python.run == "{dir}/fewest.py" and python.files == {"fewest.py": FEWEST}
    c = read_upload("bot.c", b"int main(void){return 0;}", LIMITS, frozenset())
    assert c.build.startswith("cc ") and c.run == "exec:{dir}/bot"
    js = read_upload("bot.js", b"1;", LIMITS, frozenset()).run  # JSON lines, served over ZeroMQ in its process
    # by the SDK's shim, which the server copies into the version's own folder: the command names no host path
    assert js == "exec:node --require {dir}/.arena-zmq_lines.js {dir}/bot.js"
    assert LANGUAGES[".js"].support == ((".arena-zmq_lines.js", str(ROOT / "protocol" / "node" / "zmq_lines.js")),)


@pytest.mark.parametrize("name, data, words", [
    ("bot.exe", b"MZ", "unknown kind of file"),
    ("bot;rm.py", b"x", "use letters"),
    ("empty.py", b"", "empty"),
    ("big.py", b"#" * 100_001, "over the limit"),
    ("module.pas", b"unit m; interface implementation end.", "only games with a pascal interface"),
])
def test_bad_single_files_are_refused_with_a_reason(name: str, data: bytes, words: str) -> None:
    assert words in refused(name, data)


def test_a_single_files_path_is_reduced_to_its_name() -> None:
    assert set(read_upload("../../etc/bot.py", FEWEST, LIMITS, frozenset()).files) == {"bot.py"}


def test_an_archive_with_one_top_folder_is_promoted_and_mac_litter_dropped() -> None:
    data = zip_of({"mine/arena.toml": MANIFEST, "mine/src/bot.c": b"int x;", "__MACOSX/mine/._bot.c": b"junk"})
    sources = read_upload("bot.zip", data, LIMITS, frozenset())
    assert set(sources.files) == {"arena.toml", "src/bot.c"}
    assert sources.build == "make" and sources.run.startswith("exec:sh -c")


@pytest.mark.parametrize("data", [
    tar_of({"arena.toml": MANIFEST, "../../etc/cron.d/evil": b"x"}),
    tar_of({"arena.toml": MANIFEST, "/etc/passwd": b"x"}),
    zip_of({"arena.toml": MANIFEST, "../escape": b"x"}),
    zip_of({"arena.toml": MANIFEST, "a/../../escape": b"x"}),
])
def test_paths_that_leave_the_directory_are_refused(data: bytes) -> None:
    name = "bot.zip" if data[:2] == b"PK" else "bot.tar.gz"
    assert "outside the archive" in refused(name, data)


def test_links_and_devices_are_refused() -> None:
    assert "link or special" in refused("l.tar.gz", tar_of({"arena.toml": MANIFEST}, {"bot": "/etc/shadow"}))
    assert "link or special" in refused("l.zip", zip_of({"arena.toml": MANIFEST}, {"bot": "/etc/shadow"}))
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as out:
        info = tarfile.TarInfo("arena.toml")
        info.size = len(MANIFEST)
        out.addfile(info, io.BytesIO(MANIFEST))
        device = tarfile.TarInfo("disk")
        device.type, device.devmajor, device.devminor = tarfile.BLKTYPE, 8, 0
        out.addfile(device)
    assert "link or special" in refused("d.tar", buffer.getvalue())


def test_too_many_files_or_bytes_unpacked_are_refused() -> None:
    many = {f"f{i}": b"x" for i in range(11)} | {"arena.toml": MANIFEST}
    assert "entries" in refused("m.zip", zip_of(many))
    assert "entries" in refused("m.tar.gz", tar_of(many))
    bomb = {"arena.toml": MANIFEST, "zeros": b"\0" * 300_000}  # compresses to a few hundred bytes
    assert "unpacked" in refused("z.zip", zip_of(bomb))
    assert "unpacked" in refused("z.tar.gz", tar_of(bomb))


def test_the_manifest_is_checked_key_by_key() -> None:
    assert "no arena.toml" in refused("n.zip", zip_of({"bot.c": b"x"}))
    assert "run: missing" in refused("r.zip", zip_of({"arena.toml": b'build = "make"\n'}))
    assert "unknown key 'runn'" in refused("k.zip", zip_of({"arena.toml": b'runn = "x"\n'}))
    assert "invalid TOML" in refused("t.zip", zip_of({"arena.toml": b"run = \n"}))
    assert "protocol" in refused("p.zip", zip_of({"arena.toml": b'run = "x"\nprotocol = "http"\n'}))
    assert "not a readable" in refused("x.zip", b"PK\x03\x04 not really a zip")
    assert "nested too deeply" in refused("d.zip", zip_of({"arena.toml": b"run = " + b"[" * 2000 + b"]" * 2000}))
