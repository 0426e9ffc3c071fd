"""A family of games: a folder whose rules define make_game(spec) answers every name FOLDER:SPEC.

A small family written here (`take:N`: a pile of N stones, each takes 1 to 3, who takes the
last wins) lives outside the repository, as a teacher's would: its games are found, played by
the family's bots through the real referee, listed once by `arena games`, checked by
check-game, played in a tournament that verifies; names it cannot make are one line.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from arena.games import UnknownGame, add_game_paths, family_names, game_folder, game_names, get_game, is_game_name
from arena.launch.specs.plugins import bots_for, registered_bot

RULES = '''"""Take: a pile of stones, each takes 1 to 3 in turn; who takes the last wins (the family take:N)."""

from __future__ import annotations

from arena.games.base import Game, GameError, IllegalMove, State, is_int, need_setup_map


class Pile(State):
    """The stones left and the seat to move."""

    def __init__(self, game, left, seat):
        self.game, self.left, self.seat = game, left, seat

    def to_move(self):
        return None if self.left == 0 else self.seat

    def legal_moves(self):
        return [n for n in (1, 2, 3) if n <= self.left]

    def apply(self, move):
        if not is_int(move) or move not in self.legal_moves():
            raise IllegalMove(move, "take 1 to 3 stones, no more than are left")
        self.left -= move
        self.seat = 1 - self.seat
        return []

    def is_over(self):
        return self.left == 0

    def scores(self):
        return [0.0, 0.0] if self.left else [float(self.seat == 1), float(self.seat == 0)]

    def render(self):
        return f"{self.left} stones, seat {self.seat} to take"

    def to_data(self):
        return {"left": self.left, "seat": self.seat}


class Take(Game):
    """Take with a pile of N stones."""

    version, min_players, max_players = 1, 2, 2

    def __init__(self, stones):
        self.stones = stones
        self.description = f"take 1 to 3 of {stones} stones; who takes the last wins"

    def validate_setup(self, setup, players=2):
        self.check_players(players)
        need_setup_map(self.name, setup, set())
        return {}

    def random_setup(self, rng, players, partial=None):
        return self.validate_setup(dict(partial or {}), players)

    def start(self, setup, players, seed):
        return Pile(self, self.stones, 0), []

    def state_from_data(self, data):
        return Pile(self, data["left"], data["seat"])


def make_game(spec):
    """The game take:N."""
    if not spec.isdigit() or not 1 <= int(spec) <= 50:
        raise GameError(f"take:N names a pile of 1 to 50 stones, not {spec!r}")
    return Take(int(spec))
'''

BOTS = '''"""The family's bot: it plays every game take:N."""

from bots.common import GameBot


class Greedy(GameBot):
    """Leaves a multiple of four when it can."""

    name = "greedy"
    description = "leaves a multiple of four stones when it can"

    def choose(self, state, time_left_ms):
        return next((n for n in state.legal_moves() if (state.left - n) % 4 == 0), 1)


class Ones(GameBot):
    """Always takes one stone."""

    name = "ones"
    description = "takes one stone"

    def choose(self, state, time_left_ms):
        return 1


BOTS = [Greedy, Ones]
'''


def arena(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run the arena command line."""
    return subprocess.run([sys.executable, "-m", "arena.cli", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=600, check=False)


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of games holding the family `take`."""
    where = tmp_path_factory.mktemp("teacher") / "games"
    (where / "take").mkdir(parents=True)
    (where / "take" / "rules.py").write_text(RULES)
    (where / "take" / "bots.py").write_text(BOTS)
    (where / "take" / "RULES.md").write_text("# Take\n\nA pile of N stones (`take:N`); each takes 1 to 3; who "
                                             "takes the last wins.\n")
    return where


def test_a_family_answers_its_names_in_process(games: Path) -> None:
    add_game_paths([games])
    assert "take" in family_names() and "take" not in game_names()
    assert is_game_name("take:9") and not is_game_name("take") and not is_game_name("blocking:9")
    game = get_game("take:9")
    assert game.name == "take:9" and game.description.startswith("take 1 to 3 of 9")
    assert get_game("take:9") is game and get_game("take:10") is not game
    assert game_folder("take:9").path == games / "take"
    assert [bot.name for bot in bots_for("take:9")] == ["greedy", "ones"]
    assert {bot.game for bot in bots_for("take:9")} == {"take:9"}
    assert registered_bot("take:9", "greedy") is not None and registered_bot("blocking", "greedy") is None
    with pytest.raises(UnknownGame, match="take:N names a pile of 1 to 50 stones, not 'x'"):
        get_game("take:x")
    with pytest.raises(UnknownGame, match="take is a family of games: name one as take:SPEC"):
        get_game("take")
    with pytest.raises(UnknownGame):
        get_game("blocking:3")  # a game that is no family has no members


def test_a_family_plays_lists_and_checks_from_the_command_line(games: Path) -> None:
    log = games.parent / "m.msgpack"
    played = arena("--games", str(games), "match", "take:9", "greedy", "ones", "--json", "--log", str(log),
                   cwd=games.parent)
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert result["game"] == "take:9" and result["ranks"] == [1, 2]  # greedy leaves 8, then 4, then 0
    verified = arena("--games", str(games), "replay", str(log), "--verify", cwd=games.parent)
    assert verified.returncode == 0 and verified.stdout.startswith("OK"), verified.stdout
    listed = arena("--games", str(games), "games", cwd=games.parent).stdout
    family = [line for line in listed.splitlines() if line.startswith("take")]
    assert family == ["take:SPEC  a family of games: Take: a pile of stones, each takes 1 to 3 in turn; who takes the "
                      "last wins (the family take:N)."]
    assert "  bots: greedy, ones (each game of the family)" in listed
    checked = arena("--games", str(games), "check-game", "take:7", "--no-browser", "--games", "3",
                    cwd=games.parent)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.splitlines()[-1] == "take:7: every part checked passes"
    for bad, said in (("take:0", "take:N names a pile of 1 to 50 stones, not '0'"),
                      ("take", "take is a family of games: name one as take:SPEC")):
        refused = arena("--games", str(games), "match", bad, "greedy", "ones", cwd=games.parent)
        assert refused.returncode == 2 and said in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr


def test_a_tournament_of_a_family_game_verifies(games: Path) -> None:
    out = games.parent / "results"
    done = arena("--games", str(games), "tournament", "take:13", "greedy", "ones", "--games", "2", "--out", str(out),
                 cwd=games.parent)
    assert done.returncode == 0, done.stderr
    verified = arena("--games", str(games), "verify", str(out), cwd=games.parent)
    assert verified.returncode == 0 and "OK" in verified.stdout, verified.stdout + verified.stderr
