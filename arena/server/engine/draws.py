"""How a game's setup and seed are drawn: one way for validation, test games and the ladder.

A bot must not be able to tell a validation game from a ladder game by anything it is sent
(it could behave only while it is watched). Match ids are already opaque; the setup is
drawn uniformly from the contest's setups for every kind of game, and the seed (which
decides a game's chance events) is derived from a secret of the server, so that no game's
seed can be predicted from its number, the contest's seed or a submission's id.
"""

from __future__ import annotations

import random
import secrets

from arena.server.state.config import ServerConfig
from arena.server.state.db import Database
from arena.tournament.plan.schedule import derive_seed

SECRET_SETTING = "draw_secret"


def draw_secret(db: Database) -> str:
    """The server's secret for seeds, made once (the first writer wins when threads race)."""
    db.execute("INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", SECRET_SETTING, secrets.token_hex(32))
    return db.setting(SECRET_SETTING)


def draw_setup(config: ServerConfig, rng: random.Random) -> int:
    """The index of a game's setup: uniform over the contest's setups."""
    return rng.randrange(len(config.tournament.setups))


def game_seed(config: ServerConfig, secret: str, kind: str, number: int) -> int:
    """The seed of game `number` of a kind ("ladder": every row of the games table; "validation": a submission's)."""
    return derive_seed(config.tournament.seed, secret, kind, number)


def validation_setups(config: ServerConfig, secret: str, submission: int, pairs: int) -> list[int]:
    """The setups of a submission's validation: one drawn as the ladder draws for each pair of games (both seats)."""
    rng = random.Random(game_seed(config, secret, "validation setups", submission))
    return [draw_setup(config, rng) for _ in range(pairs)]
