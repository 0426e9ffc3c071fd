"""Tournament configs: every bad key or value is rejected with the key's name; the CLI says one line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.games import game_file, game_names
from arena.launch.specs.botspec import BotKind
from arena.launch.specs.plugins import bots_for
from arena.tournament.plan.config import ConfigError, config_from_data, load_config
from arena.tournament.results.formats import plan_for
from tests.helpers import ROOT, badbot
from tests.tournament.helpers import cli, write_config

BASE: dict[str, Any] = {"game": "blocking", "bots": ["random", "sequential"]}


def check(data: dict[str, Any], base: Path | None = None) -> Any:
    return config_from_data({**BASE, **data}, base=base)


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"roundz": 3}, "unknown key 'roundz'"),
        ({"clock": {"budget": 100}}, "unknown key 'clock.budget'"),
        ({"setups": {"fixed": {"rows": 4, "cols": 4}, "count": 2}}, "unknown key 'setups.count'"),
        ({"strikes": {"max": 1}}, "unknown key 'strikes.max'"),
        ({"bots": [{"spec": "random", "nick": "r"}, "sequential"]}, "unknown key 'bots[0].nick'"),
        ({"bots": ["random", "nosuchbot"]}, "bots[1].spec: unknown bot 'nosuchbot'"),
        ({"bots": ["random", "exec:/no/such/program --x"]}, "bots[1].spec: no such program"),
        ({"game": "blocky", "bots": ["random", {"spec": "smart", "options": {"difficulty": -1}}]},
         "bots[1].options: bad options for smart: difficulty must be a positive integer"),
        ({"bots": ["random", {"spec": "maxblock", "name": "random"}]}, "bots[1].name: duplicate bot name 'random'"),
        ({"bots": ["random", {"spec": "sequential", "options": {"sed": 3}}]},
         "bots[1].options: bad options for sequential: unknown option 'sed' (options of sequential: seed=0)"),
        ({"bots": ["random", "maxblock:depth=2"]},
         "bots[1].spec: bad options for maxblock:depth=2: unknown option 'depth'"),
        ({"bots": ["random"]}, "bots"),
        ({"game": "chess"}, "game: unknown game 'chess'"),
        ({"seed": "x"}, "seed: must be an integer"),
        ({"games_per_pairing": 3}, "games_per_pairing: must be a multiple of 2"),
        ({"games_per_pairing": 0}, "games_per_pairing: must be"),
        ({"players": 3}, "players"),
        ({"clock": {"budget_ms": -5}}, "clock.budget_ms"),
        ({"clock": {"mode": "sundial"}}, "clock.mode"),
        ({"clock": {"wall_factor": "x"}}, "clock.wall_factor: must be a positive number, got a string ('x')"),
        ({"concurrency": 0}, "concurrency"),
        ({"pin_cpus": "yes"}, "pin_cpus: must be true or false"),
        ({"strikes": {"reasons": ["timeout", "boredom"]}}, "strikes.reasons[1]"),
        ({"setups": {"files": ["no/such/file.json"]}}, "setups.files[0]: cannot read setup file"),
        ({"setups": {"fixed": {"rows": 0, "cols": 4}}}, "setups.fixed: blocking: rows"),
        ({"setups": {"random": {"count": 2, "min_size": "big"}}}, "setups.random"),
        ({"name": "a b"}, "name"),
        ({"limits": {"open_files": -1}}, "limits.open_files"),
    ],
)
def test_bad_configs_name_the_key(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        check(data)
    assert needle in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_full_config_is_read(tmp_path: Path) -> None:
    (tmp_path / "board.json").write_text('{"rows": 5, "cols": 5}')
    path = write_config(tmp_path / "t.toml", {
        "name": "full", "game": "blocking", "seed": 9, "games_per_pairing": 4, "concurrency": 2,
        "bots": ["random", {"spec": "maxblock", "name": "mb"}, {"spec": badbot("default"), "name": "bad"}],
        "setups": {"fixed": {"rows": 6, "cols": 6}, "maps": [{"rows": 4, "cols": 7}], "files": ["board.json"],
                   "random": {"count": 2, "min_size": 4, "max_size": 6}},
        "clock": {"budget_ms": 3000, "increment_ms": 10, "margin_ms": 100, "startup_ms": 5000, "mode": "wall"},
        "strikes": {"max_strikes": 2, "reasons": ["crash"]}, "limits": {"address_space_mb": 2048, "cpu_seconds": 0},
        "persistent": False, "logs": False, "pin_cpus": True, "output": "out/full",
    })
    config = load_config(path)
    assert [b.name for b in config.bots] == ["random", "mb", "bad"]
    assert config.bots[2].spec.kind == BotKind.EXEC
    assert [s.label for s in config.setups] == ["fixed", "maps[0]", "files[0]:board.json", "random[0]", "random[1]"]
    assert all("blocked" in s.setup for s in config.setups)  # completed from the seed
    assert config.clock.budget_ms == 3000 and config.limits.cpu_seconds is None
    assert config.strikes.max_strikes == 2 and config.strikes.reasons == ("crash",)
    assert len(plan_for(config).tasks({})) == 3 * 5 * 4
    # The same file gives the same tournament.
    assert load_config(path).fingerprint() == config.fingerprint()


def test_relative_paths_are_relative_to_the_config(tmp_path: Path) -> None:
    sub = tmp_path / "configs"
    sub.mkdir()
    (sub / "board.json").write_text('{"rows": 3, "cols": 8}')
    bot = ROOT / "tests" / "fixtures" / "badbot.py"
    (sub / "bot.py").symlink_to(bot)
    config = check({"bots": ["random", "exec:python3 bot.py default"], "setups": {"files": ["board.json"]}}, base=sub)
    assert config.setups[0].setup["cols"] == 8
    assert str(sub / "bot.py") in config.bots[1].spec.argv


def test_defaults() -> None:
    config = check({})
    assert config.players == 2 and config.games_per_pairing == 2 and len(config.setups) == 1
    solo = config_from_data({"game": "tenten", "bots": ["greedy", "random"]})
    assert solo.players == 1 and solo.games_per_pairing == 1
    multi = config_from_data({"game": "blocky", "bots": ["random", "smart", {"spec": "smart", "name": "s2"}]})
    assert multi.players == 3 and multi.games_per_pairing == 3


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        ('game = "blocking"\nbots = ["random", "sequential"]\nbudget = 5\n', "unknown key 'budget'"),
        ('game = "blocking"\nbots = ["random", "nosuchbot"]\n', "bots[1].spec: unknown bot 'nosuchbot'"),
        ('game = "blocking"\nbots = ["random", "sequential"]\n[setups]\nfiles = ["missing.txt"]\n',
         "setups.files[0]: cannot read setup file"),
        ('game = "blocking"\nbots = [\n', "invalid TOML"),
    ],
)
def test_cli_reports_config_errors_in_one_line(tmp_path: Path, content: str, needle: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(content)
    done = cli("tournament", str(path), "--out", str(tmp_path / "out"), timeout=60)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and str(path) in lines[0], done.stderr
    assert not (tmp_path / "out").exists()


def test_cli_missing_config_and_missing_directory(tmp_path: Path) -> None:
    done = cli("tournament", str(tmp_path / "none.toml"), timeout=60)
    assert done.returncode == 2 and "cannot read config" in done.stderr
    done = cli("standings", str(tmp_path / "nothing"), timeout=60)
    assert done.returncode == 2 and "no results store" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_the_arena_command_has_the_subcommands(tmp_path: Path) -> None:
    from arena.cli.main import main

    path = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "nosuchbot"]})
    assert main(["tournament", str(path)]) == 2
    assert main(["standings", str(tmp_path)]) == 2


@pytest.mark.parametrize("game", [name for name in game_names() if game_file(name, "demo.toml") is not None])
def test_every_demo_config_loads_and_plays_its_strongest_bot(game: str) -> None:
    path = game_file(game, "demo.toml")
    assert path is not None
    config = load_config(path)
    assert config.game == game and config.name == f"{game}-demo"  # the folder's game, named after it
    strongest = max(bots_for(game), key=lambda bot: bot.strength).name
    assert strongest in {bot.name for bot in config.bots}
    assert config.setups
