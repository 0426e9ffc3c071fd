"""The intake's check of an upload: its sandboxed reader answers; its limits and machine failures become statuses."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.launch.processes.process import MachineError
from arena.server.engine import intake
from arena.server.state.config import ServerConfig, load_server_config
from arena.server.uploads.sources import SubmissionError
from tests.fixtures.bombs import PAX_BOMB
from tests.helpers import require
from tests.server.fixtures import FEWEST, tar_of
from tests.server.server import make_server


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> ServerConfig:
    require("bwrap")
    return load_server_config(make_server(tmp_path_factory.mktemp("check")).config)


def status_of(config: ServerConfig, name: str, data: bytes) -> tuple[int, str]:
    with pytest.raises(SubmissionError) as caught:
        intake.check_upload(config, name, data)
    return caught.value.status, str(caught.value)


def test_an_upload_is_read_in_the_sandbox_and_its_language_build_and_run_come_back(config: ServerConfig) -> None:
    checked = intake.check_upload(config, "fewest.py", FEWEST)
    assert checked.language == "python" and "py_compile fewest.py" in checked.build and checked.run == "{dir}/fewest.py"
    archive = intake.check_upload(config, "bot.tar.gz", tar_of({"b/arena.toml": b'run = "./go"\nbuild = "make"\n'}))
    assert archive == intake.Checked("archive", "make", "exec:sh -c 'cd \"$0\" && exec ./go' {dir}")


def test_limits_answer_413_and_what_is_not_acceptable_422(config: ServerConfig) -> None:
    assert status_of(config, "bomb.tar.bz2", PAX_BOMB.read_bytes())[0] == 413
    assert status_of(config, "big.py", b"#" * 300_000)[0] == 413  # over max_bytes, refused before the sandbox
    assert status_of(config, "x.tar", b"not a tar at all" * 40) == (422, "x.tar: not a readable tar archive")
    assert status_of(config, "../../x.exe", b"MZ")[0] == 422


def test_a_machine_that_cannot_check_answers_503_and_stores_nothing(config: ServerConfig,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise MachineError("all 1000 bot uids (60000..60999) are in use")

    monkeypatch.setattr(intake, "run_contained", refused)
    status, message = status_of(config, "fewest.py", FEWEST)
    assert status == 503 and "try again" in message and "uids" not in message
    assert not Path(config.directory, "submissions").exists()
