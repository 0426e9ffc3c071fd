"""The server's config: every mistake is one line naming the key; a state directory bots could read is refused."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.server.state.config import load_server_config
from arena.server.web.contest import check_private
from arena.tournament.plan.config import ConfigError
from tests.helpers import require


def error(tmp_path: Path, text: str, insecure: bool = False) -> str:
    path = tmp_path / "contest.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_server_config(path, insecure)
    assert "\n" not in str(caught.value)
    return str(caught.value)


@pytest.mark.parametrize("text, words", [
    ('game = "blocking"\nnonsense = 1\n', "unknown key 'nonsense'"),
    ('seed = 1\n', "game: missing"),
    ('game = "chess"\n', "game: unknown game"),
    ('game = "tenten"\n', "the ladder pairs two bots; tenten is played alone"),
    ('game = "blocking"\n[ladder]\nplacement_games = "x"\n', "ladder.placement_games: must be an integer"),
    ('game = "blocking"\n[ladder]\nmax_error_rate = 2\n', "ladder.max_error_rate"),
    ('game = "blocking"\n[ladder]\nvalidation_games = 3\n', "ladder.validation_games: must be even"),
    ('game = "blocking"\n[uploads]\nmax_bytes = 0\n', "uploads.max_bytes"),
    ('game = "blocking"\n[finals]\nformat = "gauntlet"\n', "finals.format"),
    ('game = "blocking"\n[server]\nport = 70000\n', "server.port"),
    ('game = "blocking"\nreferences = ["nobody"]\n', "bots[0].spec: unknown bot 'nobody'"),
    ('game = "blocking"\n[clock]\nbudget_ms = -1\n', "clock.budget_ms"),
    ('game = "blocking"\nreveal_names = "no"\n', "reveal_names: must be true or false, got a string ('no')"),
    ('game = "blocking"\n[server]\ntrusted_proxies = ["localhost"]\n',
     "server.trusted_proxies[0]: 'localhost' is not an IP address or network"),
    ('game = "blocking"\n[server]\ntrusted_proxies = "127.0.0.1"\n', "server.trusted_proxies: must be an array"),
    ('game = "blocking"\n[server]\ntrusted_origins = ["contest.example.org"]\n',
     "server.trusted_origins[0]: 'contest.example.org' is not an origin: scheme://host[:port]"),
    ('game = "blocking"\n[server]\ntrusted_origins = ["https://example.org/contest"]\n',
     "server.trusted_origins[0]: 'https://example.org/contest' is not an origin"),
    ('game = "blocking"\n[server]\ntrusted_origins = "https://example.org"\n',
     "server.trusted_origins: must be an array"),
    ('game = "blocking"\n[server]\nlogin_failures = 0\n', "server.login_failures: must be 1..1000000"),
    ('game = "blocking"\n[server]\nlogin_ipv6_prefix = 129\n', "server.login_ipv6_prefix: must be 32..128, got 129"),
    ('game = "blocking"\n[server]\nlogin_ipv6_prefix = "/64"\n', "server.login_ipv6_prefix: must be an integer"),
    ('game = "blocking"\n[server]\nlogin_ipv4_prefix = 33\n', "server.login_ipv4_prefix: must be 8..32, got 33"),
    ('game = "blocking"\n[remote]\nallow = ["a.key"]\n', "unknown key 'remote.allow'"),
    ('game = "blocking"\n[remote]\nallowed = "yes"\n', "remote.allowed: must be true or false"),
    ('game = "blocking"\n[remote]\nlisten = "ipc:///tmp/x"\n', "remote.listen: must be tcp://ADDR:PORT"),
    ('game = "blocking"\n[remote]\nnetwork_grace_ms = -1\n', "remote.network_grace_ms"),
    ('game = "blocking"\n[remote]\nfinals = 1\n', "remote.finals: must be true or false"),
])
def test_config_mistakes_are_named(tmp_path: Path, text: str, words: str) -> None:
    assert words in error(tmp_path, text)


def test_no_sandbox_needs_insecure(tmp_path: Path) -> None:
    assert "--insecure" in error(tmp_path, 'game = "blocking"\nsandbox = "none"\n')
    path = tmp_path / "contest.toml"
    assert load_server_config(path, insecure=True).tournament.sandbox == "none"


def test_a_sandbox_without_its_system_call_filter_needs_insecure(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    require("bwrap")
    from arena.launch.sandbox import sandbox, seccomp

    sandbox.resolve_sandbox.cache_clear()
    sandbox.filter_problem.cache_clear()
    monkeypatch.setattr(seccomp, "supported", lambda machine=None: "the kernel has no seccomp (switched off)")
    try:
        why = error(tmp_path, 'game = "blocking"\nsandbox = "bwrap"\n')
        assert "sandbox: bwrap has no system-call filter here (the kernel has no seccomp (switched off))" in why, why
        assert "locks and watches on shared files" in why and "--insecure" in why, why
        assert load_server_config(tmp_path / "contest.toml", insecure=True).tournament.sandbox == "bwrap"
    finally:
        sandbox.resolve_sandbox.cache_clear()
        sandbox.filter_problem.cache_clear()


def test_contest_games_are_anonymous_unless_the_config_says(tmp_path: Path) -> None:
    """Validation, scrimmages, the ladder and the finals alike: init carries no names by default."""
    from arena.server.engine.finals import finals_data
    from arena.server.state.config import server_config_from_data

    config = server_config_from_data({"game": "blocking", "sandbox": "none"}, tmp_path, insecure=True)
    assert config.tournament.reveal_names is False
    assert finals_data(config, [])["reveal_names"] is False
    shown = server_config_from_data({"game": "blocking", "sandbox": "none", "reveal_names": True}, tmp_path,
                                    insecure=True)
    assert shown.tournament.reveal_names is True and finals_data(shown, [])["reveal_names"] is True


def test_finals_games_per_pairing_count_the_games_of_a_pairing_whatever_the_setups(tmp_path: Path) -> None:
    """Four games per pairing on a contest of three setups: two setups, both seats, four games, not twelve."""
    from arena.server.engine.finals import finals_data
    from arena.server.state.config import server_config_from_data
    from arena.tournament.plan.config import config_from_data
    from arena.tournament.results.formats import plan_for

    bots = [{"spec": name, "name": name} for name in ("random", "maxblock", "perfect")]
    for games, setups in ((4, 3), (2, 3), (8, 3), (6, 1)):
        data = {"game": "blocking", "sandbox": "none", "finals": {"games_per_pairing": games},
                "setups": {"random": {"count": setups}}}
        config = server_config_from_data(data, tmp_path, insecure=True)
        finals = finals_data(config, bots)
        tournament = config_from_data(finals, base=tmp_path)
        assert plan_for(tournament).total() == 3 * games, (games, setups)  # three pairings
        chosen = [tuple(sorted(map(str, s.setup.items()))) for s in tournament.setups]
        every = {tuple(sorted(map(str, s.setup.items()))) for s in config.tournament.setups}
        assert len(chosen) == games // 2 and set(chosen) <= every
        assert len(set(chosen)) == min(games // 2, setups)  # each setup once before any twice


def test_remote_entrants_are_off_unless_allowed_and_play_the_finals_only_when_the_config_says(tmp_path: Path) -> None:
    from arena.server.engine.finals import finals_data
    from arena.server.state.config import server_config_from_data

    config = server_config_from_data({"game": "blocking", "sandbox": "none"}, tmp_path, insecure=True)
    assert config.remote.allowed is False and config.remote.finals is False
    on = server_config_from_data({"game": "blocking", "sandbox": "none", "remote": {
        "allowed": True, "listen": "tcp://127.0.0.1:9100", "finals": True, "network_grace_ms": 300}}, tmp_path,
        insecure=True)
    assert (on.remote.allowed, on.remote.listen, on.remote.finals, on.remote.network_grace_ms) == (
        True, "tcp://127.0.0.1:9100", True, 300)
    bots = [{"spec": "random", "name": "a"}, {"spec": "remote:s7", "name": "b"}]
    table = finals_data(on, bots)["remote"]
    assert table["allow"] == [str(on.directory / "remote" / "keys" / "s7.key")]
    assert table["listen"] == "tcp://127.0.0.1:9100" and table["network_grace_ms"] == 300
    assert "remote" not in finals_data(on, bots[:1])


def test_a_state_directory_that_bots_may_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "contest.toml"
    path.write_text(f'game = "blocking"\nsandbox = "none"\ndirectory = "{sys.prefix}/contest"\n')
    config = load_server_config(path, insecure=True)
    with pytest.raises(ConfigError, match="which every bot may read"):
        check_private(config)
    path.write_text('game = "blocking"\nsandbox = "none"\n')
    check_private(load_server_config(path, insecure=True))  # beside the config: fine


BLOCKED = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('starlette', 'uvicorn', 'jinja2', 'multipart', 'python_multipart'):
            raise ImportError('not installed: ' + name)
sys.meta_path.insert(0, Block())
from arena.cli.main import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_the_server_extra_entrants_work_and_serve_names_the_extra(tmp_path: Path) -> None:
    import subprocess

    path = tmp_path / "contest.toml"
    path.write_text('game = "blocking"\nsandbox = "none"\n')
    added = subprocess.run([sys.executable, "-c", BLOCKED, "entrants", "add", str(path), "ann"], capture_output=True,
                           text=True, timeout=60, cwd=tmp_path)
    assert added.returncode == 0 and added.stdout.startswith("ann\t"), added.stderr
    # the token is also in ann.token, for ann alone, ready for `arena submit ... --token @ann.token`
    token = tmp_path / "ann.token"
    assert token.read_text() == added.stdout.split("\t")[1] and token.stat().st_mode & 0o777 == 0o600
    again = subprocess.run([sys.executable, "-c", BLOCKED, "entrants", "add", str(path), "bob", "ann"],
                           capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert again.returncode == 2 and "ann.token exists" in again.stderr and not (tmp_path / "bob.token").exists()
    served = subprocess.run([sys.executable, "-c", BLOCKED, "serve", str(path), "--insecure"], capture_output=True,
                            text=True, timeout=60)
    assert served.returncode == 2
    assert served.stderr.strip() == ("arena serve: error: arena serve needs the server extra: pip install "
                                     "'arena[server]' (or -e '.[server]' in a checkout)")
