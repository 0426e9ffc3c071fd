"""What the forms and the API change: test games, entrants, the admin's actions, the export."""

from __future__ import annotations

import random
from typing import Any

from arena.server.auth import AuthError, Caller, add_entrant
from arena.server.contest import Contest
from arena.server.db import GameKind, GameStatus, Status, now
from arena.server.draws import draw_secret, draw_setup, game_seed
from arena.server.finals import FinalsError, freeze_field
from arena.server.intake import conditions
from arena.server.privacy import version_detail


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


def admin_action(contest: Contest, action: str, form: dict[str, Any]) -> tuple[str, str]:
    """Carry out an admin action; (message, new token or "")."""
    db = contest.db
    name = str(form.get("name", "")).strip()
    if action == "entrants":
        try:
            return f"Entrant {name} added. Give them this token; it is not shown again.", add_entrant(db, name)
        except AuthError as exc:
            return str(exc), ""
    if action == "freeze":
        db.set_setting("frozen", "1")
        return "Submissions are closed.", ""
    if action == "unfreeze":
        db.set_setting("frozen", "0")
        return "Submissions are open again.", ""
    if action == "pause":
        db.set_setting("paused", "1")
        return "The ladder is paused: the games in flight end, no new one starts.", ""
    if action == "resume":
        db.set_setting("paused", "0")
        return "The ladder plays again.", ""
    if action == "finals":
        if db.setting("finals") == "running":
            return "The finals are already running.", ""
        if db.setting("frozen") != "1":
            return "Freeze submissions first: the finals play each entrant's latest version.", ""
        try:
            bots = freeze_field(contest.config, db)
        except FinalsError as exc:
            return str(exc), ""
        db.set_setting("finals_error", "")
        db.set_setting("finals", "running")
        return f"The finals started with {len(bots)} entrants; the ladder pauses until they end.", ""
    if action in ("disqualify", "reinstate"):
        entrant = db.row("SELECT id FROM entrants WHERE name = ? AND house = 0", name)
        if entrant is None:
            return f"no entrant named {name!r}", ""
        with db.transaction() as tx:
            tx.execute("UPDATE entrants SET disabled = ? WHERE id = ?", (int(action == "disqualify"), entrant.id))
            if action == "disqualify":
                tx.execute("UPDATE submissions SET status = ?, detail = 'disqualified by the admin', updated = ? "
                           "WHERE entrant = ? AND status = ?", (Status.DISABLED, now(), entrant.id, Status.ACTIVE))
        return f"{name} is {'disqualified' if action == 'disqualify' else 'reinstated'}.", ""
    return f"unknown action {action!r}", ""


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
            "finals": db.setting("finals") or "none"}
