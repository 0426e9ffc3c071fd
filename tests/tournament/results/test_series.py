"""Series in tournament configs: `[sprt]`, the early stop's record, `--report-every`, the running score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.tournament.plan.config import ConfigError, config_from_data
from arena.tournament.results.series import SeriesTally, parse_sprt, unplayed_problems
from arena.tournament.stats.sprt import SprtSettings, SprtSettingsError
from arena.tournament.workers.worker import MatchRecord
from tests.tournament.helpers import cli, write_config

TWO = {"name": "duel", "game": "blocking", "bots": ["perfect", "random"], "sandbox": "none",
       "setups": {"random": {"count": 40, "rows": 5, "cols": 5}}, "games_per_pairing": 2}


def record(setup: int, bots: list[int], ranks: list[int], round_: int = 0) -> MatchRecord:
    return MatchRecord(ord=0, match=f"s{setup}-r{round_}-" + "-".join(f"b{b}" for b in bots), round=round_,
                       setup=setup, seed=1, bots=bots, names=["a", "b"], scores=[0.0, 0.0], ranks=ranks,
                       reason="blocked", offender=None, plies=3)


def test_a_config_with_sprt_stops_early_and_verifies(tmp_path: Path) -> None:
    config = write_config(tmp_path / "duel.toml", TWO | {"sprt": {"elo0": 0, "elo1": 50}})
    out = cli("tournament", str(config), "--out", str(tmp_path / "out"), "--workers", "2")
    assert out.returncode == 0, out.stderr
    assert "H1 was accepted" in out.stdout and "Ptnml(0-2): [0, 0, 0, 0, " in out.stdout
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert standings["matches"]["finished"] < 80
    verify = cli("verify", str(tmp_path / "out"))
    assert verify.returncode == 0, verify.stdout


def test_report_every_prints_a_standings_line_during_the_run(tmp_path: Path) -> None:
    data = TWO | {"bots": ["perfect", "random", "maxblock"], "setups": {"random": {"count": 2, "rows": 4,
                                                                                    "cols": 4}}}
    config = write_config(tmp_path / "three.toml", data)
    out = cli("tournament", str(config), "--out", str(tmp_path / "out"), "--workers", "1", "--report-every", "4")
    assert out.returncode == 0, out.stderr
    # 12 matches: a line after 4 and after 8 during the run (stderr is no terminal: no bar), then the table
    said = out.stderr.splitlines()
    running = [line for line in said if line.startswith("After ")]
    assert [line.split(":")[0] for line in running] == ["After 4 of 12 games", "After 8 of 12 games"], said
    assert all("perfect" in line and "random" in line and "maxblock" in line for line in running)
    assert len([line for line in said if line.startswith("Finished game ")]) == 12
    assert "\r" not in out.stderr
    assert out.stdout.count("| perfect ") == 1, out.stdout


@pytest.mark.parametrize(("sprt", "needle"), [
    ({"elo0": 0}, "sprt: elo1 is missing"),
    ({"elo0": 0, "elo1": 5, "alpha": 0.7}, "sprt.alpha: must be between 0 and 0.5"),
    ({"elo0": 0, "elo1": 5, "model": "bayes"}, "sprt.model: must be one of logistic, normalized"),
    ({"elo0": True, "elo1": 5}, "sprt.elo0: must be a number"),
    ("fast", "sprt: must be a table"),
])
def test_bad_sprt_tables_name_the_key(sprt, needle: str) -> None:
    with pytest.raises(ConfigError, match=needle.replace(".", r"\.")):
        config_from_data(TWO | {"sprt": sprt})


def test_sprt_needs_two_bots() -> None:
    with pytest.raises(ConfigError, match="an SPRT compares two bots; this config has 3"):
        config_from_data(TWO | {"bots": ["perfect", "random", "maxblock"], "sprt": {"elo0": 0, "elo1": 5}})


def test_sprt_settings_are_part_of_the_fingerprint() -> None:
    plain = config_from_data(TWO)
    tested = config_from_data(TWO | {"sprt": {"elo0": 0, "elo1": 5}})
    assert "sprt" not in plain.to_data() and tested.to_data()["sprt"]["elo1"] == 5.0
    assert plain.fingerprint() != tested.fingerprint()


def test_parse_sprt() -> None:
    assert parse_sprt("elo0=0,elo1=5") == SprtSettings(0.0, 5.0)
    assert parse_sprt("elo0=-1.5,elo1=3,alpha=0.1,beta=0.2,model=normalized") == SprtSettings(
        -1.5, 3.0, 0.1, 0.2, "normalized")
    with pytest.raises(SprtSettingsError, match="expected KEY=VALUE"):
        parse_sprt("elo0")


def test_the_tally_pairs_games_by_setup_from_a_s_view() -> None:
    tally = SeriesTally(2, SprtSettings(0, 5))
    tally.observe(record(0, [0, 1], [1, 2]))  # A wins as first
    tally.observe(record(1, [1, 0], [1, 1]))  # a draw, its pair still open
    tally.observe(record(0, [1, 0], [1, 2]))  # A loses as second: pair 0 scores 1
    assert (tally.trinomial.wins, tally.trinomial.draws, tally.trinomial.losses) == (1, 1, 1)
    assert tally.pentanomial is not None and tally.pentanomial.as_list() == [0, 0, 1, 0, 0]
    assert tally.progress().startswith("1-1-1 elo +0")


def test_unplayed_matches_need_a_decision_and_whole_pairs() -> None:
    settings = SprtSettings(0.0, 50.0)
    wins = [record(s, bots, [1, 2] if bots[0] == 0 else [2, 1]) for s in range(30) for bots in ([0, 1], [1, 0])]
    missing = [("s40-r0-b0-b1", (40, 0))]
    assert unplayed_problems(settings, 2, wins, missing) == ([], "")
    undecided, why = unplayed_problems(settings, 2, wins[:4], missing)
    assert undecided == [match for match, _ in missing] and why.startswith("the SPRT has not decided yet: LLR ")
    half = [("s29-r0-b1-b0", (29, 0))]
    assert unplayed_problems(settings, 2, wins[:-1], half) == (["s29-r0-b1-b0"],
                                                                "the other game of their pairs was played")
