"""What a bot sees of a tournament is anonymous: opaque match ids, stable across --resume; names only when revealed."""

from __future__ import annotations

import json
import re
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import LogError, read_log
from arena.logs.signing import results_key
from arena.match.matchid import bot_match_id, seed_key
from arena.tournament.plan.config import ConfigError, config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES
from tests.tournament.helpers import cli, start_cli, wait_rows, write_config

SPY = f"stdio:{sys.executable} {FIXTURES / 'cheater.py'} spy"
SEEN = re.compile(r"SEEN (init|turn|end) match=(\S+) names=(.*)")
OPAQUE = re.compile(r"[0-9a-f]{20}")


def seen(log: Any, seat: int) -> list[tuple[str, str, Any]]:
    """What the spy in seat reported: (message kind, match id, names) per message."""
    return [(kind, match, json.loads(names)) for kind, match, names in SEEN.findall(log.output.get(seat, ""))]


def spy_config(path: Path, **extra: Any) -> Path:
    # The spy, a bot that takes 30 ms a move (so a run lasts long enough to be killed) and a third.
    return write_config(path, {
        "name": "anonymous", "game": "blocking", "seed": 3, "games_per_pairing": 2, "concurrency": 1,
        "bots": [{"spec": SPY, "name": "spy"},
                 {"spec": f"stdio:{sys.executable} {FIXTURES / 'cheater.py'} delay 30", "name": "slow"},
                 "random"],
        "setups": {"random": {"count": 2, "min_size": 4, "max_size": 6}}, **extra,
    })


def spied_ids(out: Path, revealed: bool) -> dict[str, str]:
    """The arena's match id -> the id the spy was sent, for every match the spy played; checked against the logs."""
    found, ends = {}, set()
    for path in sorted((out / "logs").glob("*.msgpack")):
        log = read_log(path)
        if "spy" not in log.names:
            continue
        messages = seen(log, log.names.index("spy"))
        # A pooled bot's last words of a match (what it saw in `end`) may reach the next match's log.
        ends |= {match for kind, match, _ in messages if kind == "end"}
        asked = [(kind, match) for kind, match, _ in messages if kind != "end"]
        assert asked[0][0] == "init" and {match for _, match in asked} == {log.header["bot_match"]}, messages
        assert messages[[k for k, _, _ in messages].index("init")][2] == (log.names if revealed else None)
        found[log.header["match"]] = log.header["bot_match"]
    assert ends <= set(found.values())
    return found


@pytest.mark.parametrize("revealed", [False, True])
def test_the_ids_a_bot_sees_are_opaque_and_stable_across_resume(tmp_path: Path, revealed: bool) -> None:
    config = spy_config(tmp_path / "anonymous.toml", reveal_names=revealed)
    out = tmp_path / "out"
    store = out / "results.sqlite"
    first = start_cli("tournament", str(config), "--out", str(out), "--quiet")
    wait_rows(store, 2, first)
    assert first.poll() is None, "the run ended before it could be interrupted"
    first.send_signal(signal.SIGKILL)
    first.wait(10)
    # Every log the killed run left, finished or cut short, names the id its bots were sent (but a
    # log whose file was made just before the kill, which may not hold its whole header yet).
    before = {}
    for path in (out / "logs").glob("*.msgpack"):
        try:
            header = read_log(path).header
        except LogError:
            continue
        before[header["match"]] = header["bot_match"]
    assert before
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    ids = spied_ids(out, revealed)
    assert len(ids) == 8  # the spy's two pairings, 2 setups x 2 seat orders each
    key = results_key(out)
    assert key is not None
    seeds = {read_log(p).header["match"]: read_log(p).header["seed"] for p in (out / "logs").glob("*.msgpack")}
    for match, sent in ids.items():
        assert re.fullmatch(r"s\d+-r\d+-b\d+-b\d+", match)  # the arena keeps its own ids in the logs ...
        assert OPAQUE.fullmatch(sent)  # ... and bots get an HMAC of them: under the results directory's
        # secret in an anonymous tournament, under the match seed where the names are told anyway.
        assert sent == bot_match_id(match, seed_key(seeds[match]) if revealed else key)
    assert len(set(ids.values())) == len(ids)  # no two matches share an id
    # The same match, resumed, is sent the same id (so a bot seeded from it plays the same game).
    resumed = {read_log(p).header["match"]: read_log(p).header["bot_match"] for p in (out / "logs").glob("*.msgpack")}
    assert all(resumed[match] == sent for match, sent in before.items())
    if not revealed:  # unlinkable: without the secret, the arena's ids and the seeds give other ids
        assert all(bot_match_id(match, seed_key(seeds[match])) != sent for match, sent in ids.items())


def test_reveal_names_false_sends_no_names(tmp_path: Path) -> None:
    config = config_from_data({
        "game": "blocking", "bots": [{"spec": SPY, "name": "spy"}, "random"], "reveal_names": False,
        "setups": {"fixed": {"rows": 4, "cols": 5}}, "sandbox": "none",
    })
    coordinator = Coordinator(config, RunOptions(out=tmp_path, quiet=True))
    try:
        coordinator.run()
    finally:
        coordinator.close()
    logs = [read_log(p) for p in sorted((tmp_path / "logs").glob("*.msgpack"))]
    assert len(logs) == 2
    for log in logs:
        assert log.header["reveal_names"] is False
        inits = [names for kind, _, names in seen(log, log.names.index("spy")) if kind == "init"]
        assert inits == [None]
        assert "random" not in log.output[log.names.index("spy")]


@pytest.mark.parametrize("value", ["no", 0, [True]])
def test_reveal_names_must_be_true_or_false(tmp_path: Path, value: Any) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data({"game": "blocking", "bots": ["random", "sequential"], "reveal_names": value},
                         source="t.toml")
    message = str(caught.value)
    assert message.startswith("t.toml: reveal_names: must be true or false, got ") and "\n" not in message


def test_a_bad_reveal_names_is_one_line_at_the_command_line(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "sequential"],
                                                 "reveal_names": "yes"})
    done = cli("tournament", str(config), "--out", str(tmp_path / "out"), "--quiet")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"arena tournament: error: {config}: reveal_names: "
                                                "must be true or false, got a string ('yes')"]
