"""Tournament formats: gauntlet, knockout and Swiss — schedules, brackets, pairings, kill -9 and resume."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest

from arena.tournament.plan.config import ConfigError, config_from_data
from arena.tournament.results.formats import Knockout, Shape, Swiss, bracket_order, plan_for
from arena.tournament.workers.worker import MatchRecord
from tests.helpers import badbot
from tests.tournament.helpers import (
    cli,
    read_matches,
    rows_in,
    stable,
    start_cli,
    wait_rows,
    write_config,
)

FIVE = ["perfect", "maxblock", "sequential", "random", {"spec": "random:seed=2", "name": "random2"}]


def config_data(kind: str, **extra: Any) -> dict[str, Any]:
    return {"name": kind, "game": "blocking", "format": kind, "bots": FIVE, "games_per_pairing": 2, "seed": 7,
            "setups": {"random": {"count": 2, "rows": 5, "cols": 5}}, **extra}


def result(task: Any, winner_seat: int | None) -> MatchRecord:
    """A played result of task: winner_seat wins, None is a draw."""
    ranks = [1, 1] if winner_seat is None else [1 if s == winner_seat else 2 for s in range(2)]
    return MatchRecord(ord=task.ord, match=task.match, round=task.round, setup=task.setup, seed=task.seed,
                       bots=list(task.bots), names=["a", "b"], scores=[0.0, 0.0], ranks=ranks, reason="blocked",
                       offender=None, plies=3)


def play_out(plan: Any, winner: Any) -> dict[str, MatchRecord]:
    """Play a dynamic plan to its end, deciding each game with winner(task) -> seat or None."""
    results: dict[str, MatchRecord] = {}
    for _ in range(100):
        new = [t for t in plan.tasks(results) if t.match not in results]
        if not new:
            break
        for task in new:
            results[task.match] = result(task, winner(task))
    assert plan.finished(results)
    return results


def test_gauntlet_plays_only_the_challengers_pairings(tmp_path: Path) -> None:
    data = config_data("gauntlet", challengers=["perfect"], bots=FIVE[:4])
    tasks = plan_for(config_from_data(data)).tasks({})
    assert tasks and all(0 in t.bots for t in tasks)
    assert {frozenset(t.bots) for t in tasks} == {frozenset({0, b}) for b in (1, 2, 3)}
    out = cli("tournament", str(write_config(tmp_path / "g.toml", data)), "--out", str(tmp_path / "g"), "--quiet")
    assert out.returncode == 0, out.stderr
    rows = read_matches(tmp_path / "g")
    assert len(rows) == len(tasks) == 3 * 4 and all("perfect" in (r["seat0_bot"], r["seat1_bot"]) for r in rows)
    assert cli("verify", str(tmp_path / "g")).returncode == 0


def test_bracket_order_puts_the_top_seeds_apart() -> None:
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert bracket_order(4) == [1, 4, 2, 3]


def test_knockout_byes_tie_breaks_and_the_higher_seed_on_a_level_tie() -> None:
    plan = Knockout(Shape(bots=5, players=2, setups=1, games_per_pairing=2, seed=1), tiebreak_pairs=1)
    first = plan.tasks({})
    # 5 bots in a bracket of 8: seeds 1, 2 and 3 have byes; 4-5 plays, and 2-3 (both through on byes) too.
    assert {frozenset(t.bots) for t in first} == {frozenset({3, 4}), frozenset({1, 2})}
    # Every game a draw: each tie goes to its tie-break pair, still level, so the higher seed goes through.
    results = play_out(plan, lambda task: None)
    assert any("-x0-" in match for match in results)
    assert plan.order(results)[:2] == [0, 1]  # seed 1 beat seed 2 in the final on seeding
    # The lower seed wins every game: upsets all the way.
    results = play_out(plan, lambda task: task.bots.index(max(task.bots)))
    summary = plan.summary(results, ["s1", "s2", "s3", "s4", "s5"])
    assert summary["champion"] == "s5" and plan.order(results)[0] == 4


def test_swiss_never_repeats_a_pairing_and_rotates_the_bye() -> None:
    plan = Swiss(Shape(bots=5, players=2, setups=1, games_per_pairing=2, seed=3), rounds=4)
    results = play_out(plan, lambda task: task.bots.index(min(task.bots)))  # the higher seed always wins
    summary = plan.summary(results, [f"b{i}" for i in range(5)])
    pairs = [frozenset(p) for r in summary["rounds"] for p in r["pairings"]]
    assert len(pairs) == len(set(pairs)) == 4 * 2
    byes = [r["bye"] for r in summary["rounds"]]
    assert len(set(byes)) == 4
    assert [row["name"] for row in summary["table"]][0] == "b0" and plan.order(results)[0] == 0
    again = play_out(Swiss(Shape(5, 2, 1, 2, 3), rounds=4), lambda task: task.bots.index(min(task.bots)))
    assert sorted(again) == sorted(results)  # deterministic for a seed


@pytest.mark.parametrize("kind", ["knockout", "swiss"])
def test_kill_and_resume_give_the_uninterrupted_results(tmp_path: Path, kind: str) -> None:
    extra = {"rounds": 3} if kind == "swiss" else {}
    slow = {"spec": badbot("paced"), "name": "paced"}  # 4 ms a move, so that the kill lands mid-run
    data = config_data(kind, bots=[*FIVE[:4], slow], concurrency=2, **extra)
    config = write_config(tmp_path / f"{kind}.toml", data)
    whole = cli("tournament", str(config), "--out", str(tmp_path / "whole"), "--quiet")
    assert whole.returncode == 0, whole.stderr
    total = len(read_matches(tmp_path / "whole"))
    out = tmp_path / "killed"
    proc = start_cli("tournament", str(config), "--out", str(out), "--quiet")
    wait_rows(out / "results.sqlite", total // 2, proc)
    assert proc.poll() is None, "the run ended before the kill"
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    assert 0 < rows_in(out / "results.sqlite") < total
    done = cli("tournament", str(config), "--out", str(out), "--quiet", "--resume")
    assert done.returncode == 0, done.stderr
    assert stable(read_matches(out)) == stable(read_matches(tmp_path / "whole"))
    standings = json.loads((out / "standings.json").read_text())
    assert standings["complete"] and standings["format"] == kind and standings["format_summary"]["format"] == kind
    assert cli("verify", str(out)).returncode == 0
    shown = cli("standings", str(out)).stdout
    assert ("Knockout: champion " if kind == "knockout" else "Swiss: 3 rounds") in shown


def test_dry_run_prints_the_schedule_and_writes_nothing(tmp_path: Path) -> None:
    configs = [write_config(tmp_path / f"{k}.toml", config_data(k, output=str(tmp_path / "out" / k), **x))
               for k, x in (("knockout", {}), ("swiss", {"rounds": 3}), ("gauntlet", {"challengers": ["perfect"]}))]
    out = cli("tournament", *map(str, configs), "--dry-run")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "knockout: blocking, knockout, 5 bots" in text and "in all 16 matches, plus tie-break pairs" in text
    assert "3 rounds; the first: 8 matches; in all 24 matches" in text
    assert "challengers: perfect" in text and "in all 16 matches\n" in text
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("extra", "needle"), [
    ({"format": "ladder"}, "format: 'ladder' is not one of round-robin, gauntlet, knockout, swiss"),
    ({"format": "gauntlet"}, "challengers: a gauntlet names at least one challenger"),
    ({"format": "gauntlet", "challengers": ["nobody"]}, "challengers[0]: 'nobody' is not a bot of this config"),
    ({"format": "swiss", "rounds": 5}, "rounds: must be 1..4, got 5"),
    ({"format": "round-robin", "rounds": 2}, 'rounds: is for format = "swiss"'),
    ({"format": "knockout", "game": "tenten", "bots": ["greedy", "random"], "setups": {"random": {"count": 1}},
      "games_per_pairing": 1}, "knockout pairs two bots at a time"),
])
def test_bad_format_keys_name_the_key(extra: dict[str, Any], needle: str) -> None:
    with pytest.raises(ConfigError) as caught:
        config_from_data(config_data("round-robin") | extra)
    assert needle in str(caught.value)


def test_round_robin_configs_keep_their_fingerprint() -> None:
    plain = config_from_data({k: v for k, v in config_data("round-robin").items() if k != "format"})
    explicit = config_from_data(config_data("round-robin"))
    assert plain.fingerprint() == explicit.fingerprint() and "format" not in plain.to_data()
