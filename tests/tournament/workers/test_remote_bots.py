"""A tournament with a remote bot: its matches are played where the listener is, one after another."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from arena.api import ArenaError, run_tournament
from arena.tournament.plan.config import ConfigError, config_from_data
from tests.match.test_remote import SETUP, Keys, clients, finish, free_endpoint, keys, start  # noqa: F401 - fixtures


def config(endpoint: str, key_files: Keys, out: Path) -> dict[str, object]:
    return {"name": "remote", "game": "blocking", "bots": ["remote:alice", "maxblock", "random"],
            "games_per_pairing": 2, "setups": {"fixed": SETUP}, "sandbox": "none", "output": str(out),
            "clock": {"budget_ms": 5000, "startup_ms": 5000}, "concurrency": 2,
            "remote": {"listen": endpoint, "allow": [str(key_files.public("alice"))],
                       "server_key": str(key_files.secret("referee")), "network_grace_ms": 200}}


def test_a_remote_bot_from_spec_alone_plays_a_tournament(
        tmp_path: Path, keys: Keys, clients: list[subprocess.Popen[str]]) -> None:  # noqa: F811 - pytest fixtures
    endpoint = free_endpoint()
    bot = start(clients, endpoint, keys, "play")
    result = run_tournament(config(endpoint, keys, tmp_path / "out"))
    rows = {row["name"]: row for row in result["bots"]}
    assert result["matches"]["played"] == 6 and rows["alice"]["played"] == 4
    assert all(row["failures"] == {} for row in rows.values()), rows  # no disconnect, no timeout
    assert finish(bot)[0] == 0  # one connection served every match of alice, then its bye


@pytest.mark.parametrize(("change", "says"), [
    ({"remote": None}, "bots[0].spec: remote:alice needs a [remote] table"),
    ({"remote": {"listen": "ipc:///x", "allow": []}}, "remote.listen: must be tcp://ADDR:PORT"),
    ({"remote": {"listen": "tcp://127.0.0.1:1", "allow": []}}, "remote:alice: remote.allow lists no key alice.key"),
    ({"remote": {"listen": "tcp://127.0.0.1:1", "allow": ["nope.key"]}}, "remote.allow: cannot read key file"),
])
def test_bad_remote_tables_are_one_line_errors(tmp_path: Path, keys: Keys,  # noqa: F811 - pytest fixture
                                               change: dict[str, object], says: str) -> None:
    data = config("tcp://127.0.0.1:1", keys, tmp_path) | change
    if data["remote"] is None:
        del data["remote"]
    with pytest.raises(ConfigError, match=says.replace("[", r"\[")) as caught:
        config_from_data(data)
    assert "\n" not in str(caught.value)


def test_remote_bots_play_on_the_local_executor_only(tmp_path: Path, keys: Keys) -> None:  # noqa: F811 - pytest fixture
    with pytest.raises(ArenaError, match="local executor"):
        run_tournament(config("tcp://127.0.0.1:1", keys, tmp_path / "out"), executor="dask")
