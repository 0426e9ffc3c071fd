"""What the forms and the API change: test games, entrants, the admin's actions, the export."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from arena.server.engine.draws import draw_secret, draw_setup, game_seed
from arena.server.engine.finals import FinalsError, finals_summary, freeze_field
from arena.server.engine.intake import conditions
from arena.server.state.db import Database, GameKind, GameStatus, Status, now
from arena.server.state.eventlog import tell
from arena.server.web.auth import AuthError, Caller, add_entrant
from arena.server.web.contest import Contest
from arena.server.web.privacy import version_detail


def scrimmage(contest: Contest, caller: Caller, opponent: Any) -> tuple[str, int]:
    """Queue an unrated game of the caller's active version against a chosen one; (error, game id)."""
    limit = contest.config.ladder.scrimmages_per_hour
    asked = contest.db.value("SELECT COUNT(*) FROM games WHERE kind = ? AND requested_by = ? AND created > ?",
                             GameKind.SCRIMMAGE, caller.entrant, now() - 3600)
    if asked >= limit:
        return f"at most {limit} test games per hour; try again later", 0
    mine = contest.db.value("SELECT id FROM submissions WHERE entrant = ? AND status = ? ORDER BY version DESC",
                            caller.entrant, Status.ACTIVE)
    if mine is None:
        return "you have no version on the ladder yet", 0
    try:
        other = int(opponent)
    except (TypeError, ValueError):
        return "opponent: give the id of an active version (see the leaderboard)", 0
    if contest.db.value("SELECT status FROM submissions WHERE id = ?", other) != Status.ACTIVE or other == mine:
        return f"opponent {other}: not an active version of another entrant", 0
    # Drawn as a ladder game's: a test game looks like any other to the bots.
    config, db = contest.config, contest.db
    setup, secret = draw_setup(config, random.SystemRandom()), draw_secret(db)
    with db.transaction() as tx:
        number = int(tx.execute("INSERT INTO games (kind, a, b, setup, seed, status, created, requested_by, "
                                "conditions) VALUES (?, ?, ?, ?, 0, ?, ?, ?, ?)",
                                (GameKind.SCRIMMAGE, mine, other, setup, GameStatus.QUEUED, now(), caller.entrant,
                                 conditions(config, setup))).lastrowid)
        tx.execute("UPDATE games SET seed = ? WHERE id = ?",
                   (game_seed(config, secret, "ladder", number), number))
    return "", number


@dataclass(frozen=True)
class Answer:
    """What an admin action did: its message, whether it was done, and a new entrant's token (shown once)."""

    message: str
    ok: bool = True
    token: str = ""


def admin_action(contest: Contest, action: str, form: dict[str, Any]) -> Answer:
    """Carry out an admin action (the page's forms, the API, `arena serve ACTION CONFIG`)."""
    name = str(form.get("name", "")).strip()
    if action in SWITCHES:
        return _switch(contest.db, action)
    if action == "entrants":
        try:
            token = add_entrant(contest.db, name)
        except AuthError as exc:
            return Answer(str(exc), ok=False)
        tell("admin", "entrant %s added", name, entrant=name)
        return Answer(f"Entrant {name} added. Give them this token; it is not shown again.", token=token)
    if action == "finals":
        return start_finals(contest)
    if action in ("disqualify", "reinstate"):
        return _disqualify(contest.db, name, action == "disqualify")
    return Answer(f"unknown action {action!r}", ok=False)


# action: (setting, value, what it says, what the event says)
SWITCHES = {
    "freeze": ("frozen", "1", "Submissions are closed.", "submissions closed"),
    "unfreeze": ("frozen", "0", "Submissions are open again.", "submissions open"),
    "pause": ("paused", "1", "The ladder is paused: the games in flight end, no new one starts.", "ladder paused"),
    "resume": ("paused", "0", "The ladder plays again.", "ladder resumed"),
}


def _switch(db: Database, action: str) -> Answer:
    """Freeze or open submissions, pause or resume the ladder (saying so when it already was)."""
    key, value, message, event = SWITCHES[action]
    if db.setting(key, "0") == value:
        return Answer(f"{message} (It already was.)")
    db.set_setting(key, value)
    tell("admin", event, action=action)
    return Answer(message)


def start_finals(contest: Contest) -> Answer:
    """Fix the finals' field and let the ladder thread play them; refused while running, once done, or unfrozen."""
    db, config = contest.db, contest.config
    state = db.setting("finals")
    if state == "running":
        return Answer("The finals are already running.", ok=False)
    if state == "done":
        return Answer("The finals are over: their results are on the admin page and at /finals/.", ok=False)
    if db.setting("frozen") != "1":
        return Answer("Freeze submissions first: the finals play each entrant's latest version.", ok=False)
    try:
        bots = freeze_field(config, db)
    except FinalsError as exc:
        return Answer(str(exc), ok=False)
    db.set_setting("finals_error", "")
    db.set_setting("finals", "running")
    pairings = len(bots) * (len(bots) - 1) // 2
    tell("finals", "started: %d entrants, %s, %d games per pairing", len(bots), config.finals_format,
         config.finals_games, entrants=[bot["name"] for bot in bots], format=config.finals_format,
         games_per_pairing=config.finals_games)
    round_robin = f" ({pairings * config.finals_games} games)" if config.finals_format == "round-robin" else ""
    return Answer(f"The finals started with {len(bots)} entrants, {config.finals_games} games per pairing"
                  f"{round_robin}; the ladder pauses until they end.")


def _disqualify(db: Database, name: str, out: bool) -> Answer:
    """Disqualify an entrant (its active version leaves the ladder) or reinstate it."""
    entrant = db.row("SELECT id FROM entrants WHERE name = ? AND house = 0", name)
    if entrant is None:
        return Answer(f"no entrant named {name!r}", ok=False)
    with db.transaction() as tx:
        tx.execute("UPDATE entrants SET disabled = ? WHERE id = ?", (int(out), entrant.id))
        if out:
            tx.execute("UPDATE submissions SET status = ?, detail = 'disqualified by the admin', updated = ? "
                       "WHERE entrant = ? AND status = ?", (Status.DISABLED, now(), entrant.id, Status.ACTIVE))
    verdict = "disqualified" if out else "reinstated"
    tell("admin", "%s %s", name, verdict, entrant=name)
    return Answer(f"{name} is {verdict}.")


def export(contest: Contest) -> dict[str, Any]:
    """Everything public about the contest, for publication: what anyone may read (no tokens, logs or bots' output)."""
    db = contest.db
    submissions = []
    for row in db.rows("SELECT id, entrant, version, filename, language, status, detail, created, mu, sigma, games, "
                       "errors FROM submissions"):
        submissions.append(row.data | {"detail": version_detail(row.status, row.detail, private=False)})
    return {"contest": contest.config.tournament.name, "game": contest.config.game, "exported": now(),
            "leaderboard": contest.leaderboard(),
            "entrants": [r.data for r in db.rows("SELECT id, name, created, house, disabled FROM entrants")],
            "submissions": submissions, "games": contest.games(Caller(), limit=10**9),
            "finals": finals_summary(contest.config, db)}
