"""A peeking bot gains nothing at Goofspiel or Battleship: beside its control it plays the very same games.

The peeker (tests/fixtures/peeker.py) reads everything it is sent, every file it can see (its
folder, /tmp, /var/tmp, /dev/shm, $HOME, $TMPDIR), every process in /proc, its environment and
the time it waits for each turn, and exploits whatever shows the other's move of the turn. Its
control is the same bot not looking. Its opponent plays a seeded random game and writes each of
its choices (this round's bid, its fleet) to a file in /tmp before answering. Both tournaments
run through the tournament runner with two workers, in the default sandbox, from the same config
(so the same match ids and seeds): when peeking finds nothing, the peeker's moves are the
control's, so every game, every round won and every shot is the same — the comparison is exact.

Each defence beside its control, a configuration that leaks (so that these tests can fail):
the same opponent without a sandbox (its file in the shared /tmp: the peeker takes more
Goofspiel rounds and sinks the fleet in fewer shots), and a bidder whose thinking time encodes its
bid (a mover asked second learns the other's thinking time, as SPEC says: the peeker takes more
rounds), which pondering closes (both movers asked at once).

The suite plays 16 games of each game for the exact comparison (a single differing move fails it)
and 10 of each leaky configuration: eight tournaments, about a minute on two cores, half of it
their start-up. bench/peeking.py plays 200 of each (README.md, "Isolation", quotes it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from arena.logs.matchlog import MatchLog, parse_log, read_log
from arena.logs.replay import verify
from arena.tournament.plan.config import config_from_data
from arena.tournament.run.coordinator import Coordinator, RunOptions
from tests.helpers import FIXTURES, require
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, needs_root
from tests.logs.test_replay import reencoded
from tests.logs.test_signing import split

PEEKER = FIXTURES / "peeker.py"
GOOFSPIEL = {"cards": 6}
BATTLESHIP = {"size": 6, "fleet": [3, 2, 2]}
GAMES = 16  # per tournament in the suite: 8 setups, both seats (bench/peeking.py plays 200)
LEAKY_GAMES = 10


def role(game: str, name: str, *args: object) -> str:
    """The spec of peeker.py in one role."""
    return " ".join([f"stdio:{SYSTEM_PYTHON} {PEEKER} {game} {name}", *map(str, args)])


@dataclass
class Game:
    """One match of the subject (the peeker or its control): its seat, its moves, the log."""

    match: str
    seat: int
    log: MatchLog

    def moves(self) -> list[Any]:
        """The subject's moves, in order."""
        return [r["move"] for r in self.log.moves if r["seat"] == self.seat]

    def report(self) -> dict[str, Any]:
        """The subject's last PEEK report of this match."""
        lines = [line for line in self.log.output.get(self.seat, "").splitlines() if line.startswith("PEEK ")]
        assert lines, self.log.output
        return json.loads(lines[-1][5:])

    def rounds_won(self) -> int:
        """Goofspiel: the rounds the subject's bid beat the other's."""
        bids: dict[int, dict[int, int]] = {}
        for record in self.log.moves:
            bids.setdefault(record["ply"], {})[record["seat"]] = record["move"]
        return sum(pair[self.seat] > pair[1 - self.seat] for pair in bids.values() if len(pair) == 2)

    def shots_to_sink(self) -> list[int]:
        """Battleship: after how many of its own shots the subject sank each ship."""
        shots, sunk = 0, []
        for record in self.log.records:
            if record["kind"] == "move" and record["seat"] == self.seat and record["ply"] > 1:
                shots += 1
            if record["kind"] == "event" and record["event"][1].get("by") == self.seat \
                    and record["event"][1]["result"] == "sunk":
                sunk.append(shots)
        return sunk

    def asked_second(self) -> list[int]:
        """The simultaneous turns (plies) whose movers were asked the subject last."""
        asked: dict[int, list[int]] = {}
        for record in self.log.records:
            if record["kind"] == "sent" and "events" in record and not record.get("end"):
                asked.setdefault(record["ply"], []).append(record["seat"])
        return [ply for ply, seats in asked.items() if len(seats) == 2 and seats[-1] == self.seat]


def tournament(tmp_path: Path, name: str, game: str, setup: dict[str, Any], subject: str, opponent: str,
               games: int, sandbox: str = "auto", ponder: bool = False) -> dict[str, Game]:
    """The subject against the opponent through the tournament runner (two workers); its games by match id."""
    data = {"name": "peeking", "game": game, "seed": 35, "games_per_pairing": 2,
            "bots": [{"name": "subject", "spec": subject}, {"name": "opponent", "spec": opponent}],
            "setups": {"random": {"count": games // 2, **setup}}, "clock": {"budget_ms": 60_000, "mode": "cpu"},
            "strikes": {"max_strikes": 0}, "sandbox": sandbox, "ponder": ponder}
    out = tmp_path / f"results-{name}"  # not a word of a spec: a path there would count as a bot's file
    coordinator = Coordinator(config_from_data(data, base=tmp_path), RunOptions(out=out, workers=2, quiet=True))
    try:
        coordinator.run()
        records = coordinator.store.records("ord")
    finally:
        coordinator.close()
    assert len(records) == games
    played = {}
    for record in records:
        assert record.offender is None, (record.reason, record.detail)
        played[record.match] = Game(record.match, record.bots.index(0), read_log(out / record.log))
    return played


def same_games(peeked: dict[str, Game], control: dict[str, Game]) -> None:
    """Match by match: the same seat, the same moves, the same result; the peeker looked and found nothing."""
    assert peeked.keys() == control.keys()
    for match, game in peeked.items():
        twin = control[match]
        assert (game.seat, game.moves()) == (twin.seat, twin.moves()), match
        outcome = ("scores", "ranks", "reason", "plies")
        assert [game.log.result[k] for k in outcome] == [twin.log.result[k] for k in outcome], match
        report = game.report()
        assert report["role"] == "peek" and report["procs"] > 0, report  # it looked: it saw its own processes
        assert report["used"] == 0 and not any(report["found"].values()), (match, report)
        assert verify(game.log).ok


@pytest.fixture(scope="module")
def goofspiel(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Game], dict[str, Game]]:
    needs_root()
    require("bwrap")
    tmp = tmp_path_factory.mktemp("goofspiel")
    opponent = role("goofspiel", "leak-file")
    return (tournament(tmp, "peek", "goofspiel", GOOFSPIEL, role("goofspiel", "peek"), opponent, GAMES),
            tournament(tmp, "control", "goofspiel", GOOFSPIEL, role("goofspiel", "control"), opponent, GAMES))


@pytest.fixture(scope="module")
def battleship(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Game], dict[str, Game]]:
    needs_root()
    require("bwrap")
    tmp = tmp_path_factory.mktemp("battleship")
    opponent = role("battleship", "leak-file")
    return (tournament(tmp, "peek", "battleship", BATTLESHIP, role("battleship", "peek"), opponent, GAMES),
            tournament(tmp, "control", "battleship", BATTLESHIP, role("battleship", "control"), opponent, GAMES))


def test_the_goofspiel_peeker_wins_no_more_rounds_than_its_control(goofspiel: tuple[dict, dict]) -> None:
    peeked, control = goofspiel
    same_games(peeked, control)
    assert sum(g.rounds_won() for g in peeked.values()) == sum(g.rounds_won() for g in control.values())


def test_the_battleship_peeker_sinks_no_ship_faster_than_its_control(battleship: tuple[dict, dict]) -> None:
    peeked, control = battleship
    same_games(peeked, control)
    assert [g.shots_to_sink() for g in peeked.values()] == [g.shots_to_sink() for g in control.values()]
    assert all(len(g.shots_to_sink()) == 3 or g.log.result["ranks"][g.seat] == 2 for g in peeked.values())


def test_a_mover_asked_last_in_a_simultaneous_turn_learns_nothing_of_the_others_move(
        goofspiel: tuple[dict, dict], battleship: tuple[dict, dict]) -> None:
    for peeked in (goofspiel[0], battleship[0]):
        last = [(g, ply) for g in peeked.values() for ply in g.asked_second()]
        assert len(last) > len(peeked) // 4  # asked last in a good share of the turns
        for game, ply in last:
            shown = [r["events"] for r in game.log.records if r["kind"] == "sent" and r.get("ply") == ply
                     and r["seat"] == game.seat and "events" in r]
            other = 1 - game.seat
            # the other's move of this very turn is never among what the request showed
            mine = [r for r in game.log.moves if r["ply"] == ply and r["seat"] == other]
            assert all([other, m["move"]] not in shown[0] for m in mine), (game.match, ply)
    # and nothing it could see (files, processes, environment, its waits) told it: it found nothing
    assert all(not any(g.report()["found"].values()) for g in goofspiel[0].values())
    assert all(g.report()["waits"] for g in goofspiel[0].values())  # it timed every wait


def of(played: dict[str, Game], matches: dict[str, Game]) -> dict[str, Game]:
    """The games of played that are the matches given (a smaller tournament of the same config: its first ones)."""
    assert matches.keys() <= played.keys()
    return {match: played[match] for match in matches}


def test_without_a_sandbox_the_peeker_finds_the_leaked_file_and_wins_more(
        tmp_path: Path, goofspiel: tuple[dict, dict], battleship: tuple[dict, dict]) -> None:
    """The leaky control: the opponent's file in the shared /tmp shows its bid and its fleet.

    The control plays no differently without a sandbox: its games are those of the sandboxed run.
    """
    found = {}
    for game, setup, (_, control) in (("goofspiel", GOOFSPIEL, goofspiel), ("battleship", BATTLESHIP, battleship)):
        peeked = tournament(tmp_path, f"{game}-none", game, setup, role(game, "peek"), role(game, "leak-file"),
                            LEAKY_GAMES, "none")
        control = of(control, peeked)
        found[game] = sum(g.report()["found"]["file"] for g in peeked.values())
        if game == "goofspiel":
            assert sum(g.rounds_won() for g in peeked.values()) > sum(g.rounds_won() for g in control.values())
        else:
            faster = sum(sum(g.shots_to_sink()) for g in peeked.values())
            assert faster < sum(sum(g.shots_to_sink()) for g in control.values())
            assert all(g.log.result["ranks"][g.seat] == 1 for g in peeked.values())  # every game won
    assert found["goofspiel"] > LEAKY_GAMES and found["battleship"] == LEAKY_GAMES, found


def test_a_bidder_whose_thinking_time_encodes_its_bid_leaks_it_unless_the_movers_ponder(
        tmp_path: Path, goofspiel: tuple[dict, dict]) -> None:
    """The other leaky control: asked second, a mover learns the other's thinking time (SPEC), here its bid.

    The slow bidder bids as the file writer does, so the control's games are those of the fixture.
    """
    opponent = role("goofspiel", "leak-time")
    peeked = tournament(tmp_path, "strict", "goofspiel", GOOFSPIEL, role("goofspiel", "peek"), opponent, LEAKY_GAMES)
    control = of(goofspiel[1], peeked)
    timed = sum(g.report()["found"]["time"] for g in peeked.values())
    gain = sum(g.rounds_won() for g in peeked.values()) - sum(g.rounds_won() for g in control.values())
    assert timed >= 5 and gain > 0, (timed, gain)  # strict turns: the wait tells the bid of a mover asked first
    pondering = tournament(tmp_path, "ponder", "goofspiel", GOOFSPIEL, role("goofspiel", "peek"), opponent,
                           LEAKY_GAMES, ponder=True)
    # Asked at once, a mover waits for nothing of this round: the code tells it nothing, it plays as its control.
    same_games(pondering, of(goofspiel[1], pondering))


def test_verify_catches_a_battleship_log_edited_to_show_a_seat_the_others_fleet(tmp_path: Path) -> None:
    from tests.helpers import run

    log_path = tmp_path / "b.msgpack"
    result, _ = run("battleship", ["random", "density"], BATTLESHIP, seed=4, log=log_path)
    assert result.offender is None and verify(read_log(log_path)).ok
    body, _ = split(log_path.read_bytes())
    fleet = next(r["move"] for r in body if r["kind"] == "move" and r["seat"] == 1 and r["ply"] == 1)
    first = next(r for r in body if r["kind"] == "sent" and r["seat"] == 0 and r["ply"] == 2)
    assert first["events"] == [[1, None]]  # seat 0 was shown only that seat 1 placed its fleet
    first["events"] = [[1, fleet]]
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "seat 0 was sent" in verdict.message, verdict.message
    assert "it was shown more than its observation" in verdict.message
