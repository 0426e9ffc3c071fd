"""End-to-end tournaments on the local executor: real processes, real sockets, real SQLite."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import read_log
from arena.logs.replay import verify
from arena.outcomes import FAILURES
from arena.tournament.plan.config import config_from_data
from arena.tournament.results.formats import plan_for
from arena.tournament.results.store import ResultsStore, StoreError
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import badbot
from tests.tournament.helpers import (
    cli,
    no_launchers_left,
    read_matches,
    recorded_alive,
    stable,
    worker_pids,
    write_config,
)

SIX_BOTS: list[Any] = [
    "random",
    "sequential",
    "maxblock",
    {"spec": "random", "name": "random-7", "options": {"seed": 7}},
    {"spec": "arena.games.blocking.bots.simple:MaxBlockBot", "name": "module-maxblock"},
    None,  # the exec: bot, filled in per test (it records its pids)
]


def pairwise_from_csv(rows: list[dict[str, str]], players: int) -> dict[tuple[str, str], float]:
    """Points of each bot against each other, recomputed from matches.csv alone."""
    points: dict[tuple[str, str], float] = defaultdict(float)
    for row in rows:
        seats = [(row[f"seat{i}_bot"], int(row[f"seat{i}_rank"])) for i in range(players)]
        forfeited = {name for name, rank in seats if row["played"] == "0" and rank == players}
        for (a, ra), (b, rb) in ((x, y) for x in seats for y in seats if x[0] != y[0]):
            if a in forfeited and b in forfeited:
                continue
            points[(a, b)] += 1.0 if ra < rb else 0.5 if ra == rb else 0.0
    return points


def test_six_bot_round_robin_with_an_exec_bot(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    bots = SIX_BOTS[:-1] + [{"spec": badbot("default", pidfile), "name": "exec-bot"}]
    config = write_config(tmp_path / "six.toml", {
        "name": "six", "game": "blocking", "seed": 3, "games_per_pairing": 2, "concurrency": 2, "bots": bots,
        "setups": {"fixed": {"rows": 6, "cols": 6}, "random": {"count": 1, "min_size": 5, "max_size": 7}},
        "clock": {"budget_ms": 5000},
        "sandbox": "none",  # the exec bot writes its host pids into the test's folder
    })
    out = tmp_path / "out"
    done = cli("tournament", str(config), "--out", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    rows = read_matches(out)
    assert len(rows) == 15 * 2 * 2
    assert [int(r["ord"]) for r in rows] == list(range(len(rows)))
    assert all(r["reason"] == "blocked" and r["played"] == "1" for r in rows), {r["reason"] for r in rows}
    data = json.loads((out / "standings.json").read_text())
    names = ["random", "sequential", "maxblock", "random-7", "module-maxblock", "exec-bot"]
    assert sorted(b["name"] for b in data["bots"]) == sorted(names)
    assert data["complete"] and data["matches"]["finished"] == 60
    for bot in data["bots"]:
        rating = bot["rating"]
        assert rating["low"] < rating["value"] < rating["high"], bot
        assert bot["games"] == 20 and bot["wins"] + bot["draws"] + bot["losses"] == 20
    # The crosstable agrees with matches.csv, pair by pair, and sums to each bot's points.
    points = pairwise_from_csv(rows, 2)
    for bot in data["bots"]:
        row = data["crosstable"][bot["name"]]
        assert sum(cell["points"] for cell in row.values()) == bot["points"]
        for other, cell in row.items():
            assert cell["points"] == points[(bot["name"], other)]
            assert cell["games"] == 4
    # The seat statistics cover every played match.
    assert sum(s["matches"] for s in data["seats"]["overall"]) == 2 * 60
    assert "## Crosstable" in (out / "standings.md").read_text()
    # Logs exist and replay.
    for row in rows[:5]:
        log = read_log(out / row["log"])
        assert verify(log).ok
    # The exec: bot was started once per worker, not once per match, and nothing is left behind.
    assert len(pidfile.read_text().split()) <= 2
    assert recorded_alive(pidfile) == []
    assert no_launchers_left(worker_pids(rows)) == []
    # `arena standings DIR` reprints the same standings from the store.
    before = (out / "standings.json").read_text()
    (out / "standings.json").unlink()
    again = cli("standings", str(out))
    assert again.returncode == 0, again.stderr
    assert "exec-bot" in again.stdout and (out / "standings.json").read_text() == before


def test_a_bot_that_always_crashes_is_disqualified(tmp_path: Path) -> None:
    pidfile = tmp_path / "pids"
    config = config_from_data({
        "name": "strikes", "game": "blocking", "games_per_pairing": 8, "concurrency": 1,
        "bots": ["random", "sequential", {"spec": badbot("exit_at_start", pidfile), "name": "crasher"}],
        "setups": {"fixed": {"rows": 5, "cols": 5}}, "strikes": {"max_strikes": 3},
        "sandbox": "none",  # the crasher writes its host pids into the test's folder
    })
    coordinator = Coordinator(config, RunOptions(out=tmp_path / "out", quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert standings.finished == 24
    crasher = next(b for b in standings.bots if b.name == "crasher")
    assert crasher.disqualified_at is not None and crasher.strikes >= 3
    assert crasher.forfeits >= 16 - crasher.strikes - 2  # at most the prefetched matches were still played
    assert crasher.points == 0 and crasher.losses == 16 and crasher.place == 3
    for bot in standings.bots:
        if bot is not crasher:  # every opponent is credited with every game against it
            assert standings.crosstable[bot.index][crasher.index] == (8.0, 8)
    forfeits = [r for r in standings.records if r.reason == "forfeit"]
    assert forfeits and all(not r.played and r.ranks[r.offender] == 2 for r in forfeits)
    assert len(pidfile.read_text().split()) == crasher.strikes  # forfeits start no process
    assert "DISQUALIFIED" in (tmp_path / "out" / "standings.md").read_text()
    assert recorded_alive(pidfile) == []


def test_persistent_and_fresh_processes_give_the_same_results(tmp_path: Path) -> None:
    base = {"game": "blocking", "seed": 4, "games_per_pairing": 2, "concurrency": 2,
            "bots": ["random", "maxblock", {"spec": "random", "name": "r2", "options": {"seed": 2}}],
            "setups": {"random": {"count": 2, "min_size": 4, "max_size": 6}}}
    results = []
    for persistent in (True, False):
        out = tmp_path / str(persistent)
        # Pinned or not, persistent or fresh: the results are the same.
        config = write_config(tmp_path / f"{persistent}.toml", {**base, "persistent": persistent,
                                                                 "pin_cpus": persistent})
        done = cli("tournament", str(config), "--out", str(out), "--quiet")
        assert done.returncode == 0, done.stderr
        results.append(stable(read_matches(out)))
    assert results[0] == results[1]


def test_rerun_needs_resume_and_resume_of_a_finished_run_plays_nothing(tmp_path: Path) -> None:
    config = write_config(tmp_path / "t.toml", {"game": "blocking", "bots": ["random", "sequential"],
                                                 "setups": {"fixed": {"rows": 4, "cols": 4}}})
    out = tmp_path / "out"
    assert cli("tournament", str(config), "--out", str(out), "--quiet").returncode == 0
    again = cli("tournament", str(config), "--out", str(out), "--quiet")
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = cli("tournament", str(config), "--out", str(out), "--resume")
    assert resumed.returncode == 0 and "2/2 matches (complete" in resumed.stdout
    assert (f"results: {out / 'standings.md'}  (arena verify {out}; arena view {out}: "
            "the report page with every match)") in resumed.stdout
    other = write_config(tmp_path / "o.toml", {"game": "blocking", "bots": ["random", "maxblock"]})
    clash = cli("tournament", str(other), "--out", str(out), "--resume", "--quiet")
    assert clash.returncode == 2 and "differs from this one in" in clash.stderr
    assert "bots[1].name, bots[1].spec, setups[0].label" in clash.stderr, clash.stderr
    budget = write_config(tmp_path / "b.toml", {"game": "blocking", "bots": ["random", "sequential"],
                                                 "setups": {"fixed": {"rows": 4, "cols": 4}},
                                                 "clock": {"budget_ms": 999}})
    changed = cli("tournament", str(budget), "--out", str(out), "--resume", "--quiet")
    assert changed.returncode == 2 and "differs from this one in clock.budget_ms;" in changed.stderr


def test_several_configs_run_one_after_another(tmp_path: Path) -> None:
    paths = [
        write_config(tmp_path / "a.toml", {"name": "a", "game": "blocking", "bots": ["random", "sequential"]}),
        write_config(tmp_path / "b.toml", {"name": "b", "game": "tenten", "bots": ["greedy", "random"],
                                           "setups": {"random": {"count": 2, "size": 6}}}),
    ]
    done = cli("tournament", *map(str, paths), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    assert "a (blocking)" in done.stdout and "b (tenten)" in done.stdout
    for name in ("a", "b"):
        assert (tmp_path / "out" / name / "matches.csv").exists()


@pytest.mark.parametrize(
    ("game", "bots", "setups"),
    [
        ("arrows", ["random", "greedy"], {"random": {"count": 2}}),
        ("tiles", ["random", "greedy"], {"random": {"count": 2}}),
        ("tenten", ["greedy", "random", {"spec": "greedy", "name": "greedy-b"}], {"random": {"count": 2, "size": 6}}),
        ("blocky", ["random", "smart", {"spec": "smart", "name": "smart-9", "options": {"difficulty": 9}}],
         {"random": {"count": 1}}),
    ],
)
def test_every_game_shape(tmp_path: Path, game: str, bots: list[Any], setups: dict[str, Any]) -> None:
    config = config_from_data({"name": game, "game": game, "bots": bots, "setups": setups, "concurrency": 2})
    coordinator = Coordinator(config, RunOptions(out=tmp_path / "out", quiet=True))
    standings = coordinator.run()
    coordinator.close()
    assert standings.finished == standings.scheduled == len(plan_for(config).tasks({}))
    assert all(r.reason not in FAILURES for r in standings.records)
    assert all(b.rating is not None and b.rating.low < b.rating.high for b in standings.bots)
    data = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert data["mode"] == {1: "solo", 2: "two-player"}.get(config.players, "multi-player")
    for bot in data["bots"]:
        assert sum(c["points"] for c in data["crosstable"][bot["name"]].values()) == bot["points"]


def test_the_store_is_append_only(tmp_path: Path) -> None:
    config = config_from_data({"game": "blocking", "bots": ["random", "sequential"]})
    coordinator = Coordinator(config, RunOptions(out=tmp_path, quiet=True))
    coordinator.run()
    coordinator.close()
    store = ResultsStore.in_dir(tmp_path, create=False)
    record = store.records()[0]
    with pytest.raises(StoreError):
        store.add(record)
    for statement in ("UPDATE matches SET reason = 'x'", "DELETE FROM matches", "UPDATE meta SET value = '1'"):
        with pytest.raises(Exception, match="append-only"):
            store.db.execute(statement)
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.close()


def test_what_the_run_says_of_a_disqualification_agrees_with_the_table(tmp_path: Path) -> None:
    # Two workers keep more of the crasher's matches in flight when its third strike arrives: they may
    # add strikes after it, and the table and the run must still tell the same count.
    config = write_config(tmp_path / "strikes.toml", {
        "name": "strikes", "game": "blocking", "games_per_pairing": 8, "concurrency": 2,
        "bots": ["random", "sequential", badbot("exit_at_start")], "sandbox": "none",
        "setups": {"fixed": {"rows": 4, "cols": 4}}, "strikes": {"max_strikes": 3}})
    done = cli("tournament", str(config), "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stderr.splitlines() if "disqualified" in line]
    assert len(said) == 1 and said[0].startswith("badbot.py is disqualified after 3 strikes (the last: crash in "), said
    last = said[0].split(" in ")[-1].rstrip(")")
    table = (tmp_path / "out" / "standings.md").read_text()
    assert f"DISQUALIFIED after 3 strikes (the last in {last}" in table, table
    strikes = json.loads((tmp_path / "out" / "standings.json").read_text())["bots"][2]["strikes"]
    assert (f"; {strikes} in all)" in table) == (strikes > 3)
