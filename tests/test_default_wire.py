"""ZeroMQ with msgpack is the wire of every bot the arena starts by default: a trace of each kind shows it.

Registered bots, `path/bot.py`, `pascal:` modules, and what the contest server runs for an
upload of each language; `--transport pipes` and a tournament's `transport` put the SDK's
bots on their pipes instead, while `exec:` and `stdio:` keep their own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.clock import ClockSettings
from arena.games import get_game
from arena.match.onematch import MatchPlan, play_match
from arena.server.engine.intake import game_interfaces
from arena.server.state.config import UploadLimits
from arena.server.state.layout import add_support
from arena.server.uploads.sources import read_upload
from arena.setups import complete_setup
from arena.tournament.plan.config import ConfigError, bot_entries, config_from_data
from tests.helpers import ROOT, require
from tests.tournament.helpers import cli, write_config

EXAMPLES = ROOT / "bots" / "examples"
PYTHON_UPLOAD = b"""
from arena.games.arrows.bots.simple import GreedyBot


class Mine(GreedyBot):
    name = "mine"
"""


def traced_match(tmp_path: Path, game: str, entries: list[Any], name: str) -> tuple[Any, dict[int, set[str]]]:
    """Play one match of these bot entries (as a config lists them) with --trace; the result and each seat's vias."""
    trace = tmp_path / f"{name}.jsonl"
    bots = [entry.spec for entry in bot_entries(entries, game, base=tmp_path)]
    rules = get_game(game)
    setup = complete_setup(rules, {"cols": 8, "rows": 8} if game == "arrows" else {"rows": 5, "cols": 5}, 2, 4)
    result = play_match(MatchPlan(rules, bots, setup, 4, ClockSettings(budget_ms=20_000), f"{name}-4",
                                  trace_path=trace))
    vias: dict[int, set[str]] = {}
    for line in trace.read_text().splitlines():
        entry = json.loads(line)
        vias.setdefault(entry["seat"], set()).add(entry["via"])
    return result, vias


def test_registered_python_file_and_pascal_bots_speak_zeromq_by_default(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir(mode=0o755)  # its own folder, open to the bot's uid
    bot = tmp_path / "mine" / "mine.py"
    bot.write_bytes(PYTHON_UPLOAD)
    result, vias = traced_match(tmp_path, "arrows", ["greedy", str(bot)], "python")
    assert result.offender is None, result.detail
    assert vias == {0: {"zmq"}, 1: {"zmq"}}
    require("fpc")
    result, vias = traced_match(tmp_path, "arrows", [f"pascal:{EXAMPLES / 'territory.pas'}", "random"], "pascal")
    assert result.offender is None, result.detail
    assert vias == {0: {"zmq"}, 1: {"zmq"}}


def build_upload(tmp_path: Path, filename: str, data: bytes) -> dict[str, str]:
    """The bot entry the contest server makes of an upload (its build run here, outside a sandbox)."""
    sources = read_upload(filename, data, UploadLimits(), game_interfaces("arrows"))
    folder = tmp_path / filename.replace(".", "-")
    folder.mkdir()
    for name, content in sources.files.items():
        (folder / name).write_bytes(content)
    if sources.build:
        subprocess.run(sources.build, shell=True, cwd=folder, check=True, capture_output=True)
    add_support(sources.language, folder)  # the arena's files the server adds (the JavaScript shim)
    return {"spec": sources.run.replace("{dir}", str(folder)), "name": filename, "dir": str(folder)}


@pytest.mark.parametrize(("filename", "source", "tools"), [
    ("bot.py", None, ()),
    ("territory.pas", EXAMPLES / "territory.pas", ("fpc",)),
    ("stdio_bot.js", EXAMPLES / "stdio_bot.js", ("node",)),
    ("cbot.c", EXAMPLES / "cbot.c", ("cc",)),
])
def test_an_upload_of_every_language_speaks_zeromq(tmp_path: Path, filename: str, source: Path | None,
                                                   tools: tuple[str, ...]) -> None:
    for tool in tools:
        require(tool)
    data = PYTHON_UPLOAD if source is None else source.read_bytes()
    entry = build_upload(tmp_path, filename, data)
    result, vias = traced_match(tmp_path, "arrows", [entry, "greedy"], "upload")
    assert result.offender is None, result.detail
    assert vias == {0: {"zmq"}, 1: {"zmq"}}


def test_pipes_are_a_choice_per_bot_per_tournament_and_on_the_command_line(tmp_path: Path) -> None:
    exec_bot = f"exec:{sys.executable} -m protocol.run --name raw arena.games.blocking.bots.simple:RandomBot"
    bots = ["random", {"spec": "sequential", "transport": "zeromq"}, {"spec": exec_bot, "name": "raw"}]
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": bots, "transport": "pipes",
                                                "setups": {"fixed": {"rows": 4, "cols": 4}}, "concurrency": 1,
                                                "persistent": False})  # a hello in every match

    def wires(trace: Path) -> dict[str, set[str]]:
        lines = [json.loads(line) for line in trace.read_text().splitlines()]
        seat_name = {(line["match"], line["seat"]): line["message"]["name"] for line in lines
                     if line.get("message", {}).get("type") == "hello"}
        found: dict[str, set[str]] = {}
        for line in lines:
            found.setdefault(seat_name[line["match"], line["seat"]], set()).add(line["via"])
        return found

    for flag, random_via in (((), "stdio"), (("--transport", "zeromq"), "zmq")):
        trace = tmp_path / f"trace{len(flag)}.jsonl"
        done = cli("tournament", str(config), "--out", str(tmp_path / f"out{len(flag)}"), "--quiet", "--trace",
                   str(trace), *flag)
        assert done.returncode == 0, done.stderr
        # The tournament's wire (or the command line's) for the SDK's bots; a bot entry's own wins;
        # an exec: program speaks what it speaks.
        assert wires(trace) == {"random": {random_via}, "sequential": {"zmq"}, "raw": {"zmq"}}


def test_a_wire_a_bot_cannot_speak_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    base = {"game": "blocking", "setups": {"fixed": {"rows": 4, "cols": 4}}}
    with pytest.raises(ConfigError, match=r"bots\[1\]\.transport.*exec: program speaks ZeroMQ"):
        config_from_data({**base, "bots": ["random", {"spec": "exec:/bin/true", "transport": "pipes"}]}, tmp_path)
    with pytest.raises(ConfigError, match=r"bots\[0\]\.transport.*stdio: program speaks on its pipes"):
        config_from_data({**base, "bots": [{"spec": "stdio:/bin/cat", "transport": "zeromq"}, "random"]}, tmp_path)
    with pytest.raises(ConfigError, match="transport.*'carrier-pigeon' is not zeromq or pipes"):
        config_from_data({**base, "bots": ["random", "random"], "transport": "carrier-pigeon"}, tmp_path)
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "blocking", "random", "random",
                           "--transport", "smoke"], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                          check=False)
    assert done.returncode == 2 and "--transport" in done.stderr


CHATTY_JS = b"""
const readline = require("readline");
readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.type === "init") console.log(JSON.stringify({ type: "ready", seq: msg.seq }));
  if (msg.type === "turn") console.log("thinking...");
  if (msg.type === "bye") process.exit(0);
});
"""


def test_a_node_bot_on_zeromq_that_prints_a_stray_line_is_quoted_in_its_failure(tmp_path: Path) -> None:
    require("node")
    entry = build_upload(tmp_path, "chatty.js", CHATTY_JS)
    result, vias = traced_match(tmp_path, "arrows", [entry, "greedy"], "chatty")
    assert (result.reason, result.offender) == ("protocol", 0), result.detail
    assert '"thinking..."' in result.detail and vias[0] == {"zmq"}
