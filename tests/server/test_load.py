"""A bounded load: 50 entrants upload within a minute; the queue drains and no submission is lost."""

from __future__ import annotations

import sqlite3
import threading
from typing import Any

from tests.helpers import ROOT, require
from tests.server.fixtures import FEWEST
from tests.server.server import make_server, wait_for

ENTRANTS = 50
CBOT = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()


def test_fifty_entrants_submit_at_once_and_every_version_reaches_the_ladder(tmp_path: Any) -> None:
    require("bwrap")
    require("cc")
    server = make_server(tmp_path, max_games=1, per_hour=5)  # the ladder barely plays: intake is measured
    server.config.write_text(server.config.read_text().replace('references = ["random", "maxblock", "perfect"]',
                                                               'references = ["random", "maxblock"]'))
    names = [f"student{i:02d}" for i in range(ENTRANTS)]
    server.add(*names)
    server.start()
    try:
        answers: dict[str, Any] = {}

        def upload(index: int, name: str) -> None:
            answers[name] = server.submit(name, *(("bot.py", FEWEST) if index % 2 else ("bot.c", CBOT)))

        threads = [threading.Thread(target=upload, args=pair) for pair in enumerate(names)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert sorted(answers) == names
        assert all(answer.status_code == 201 for answer in answers.values()), \
            [a.text for a in answers.values() if a.status_code != 201]
        ids = {answer.json()["id"] for answer in answers.values()}
        assert len(ids) == ENTRANTS

        def statuses() -> dict[int, str]:
            with sqlite3.connect(server.state / "server.db") as db:
                return {row[0]: row[1] for row in db.execute("SELECT id, status FROM submissions")}

        wait_for(lambda: all(statuses()[n] not in ("queued", "building", "validating") for n in ids), 400,
                 "the build queue to drain", every=1.0)
        final = statuses()
        assert all(final[n] == "active" for n in ids), {n: final[n] for n in ids if final[n] != "active"}
        board = {row["name"] for row in server.get("/api/leaderboard").json()}
        assert set(names) <= board
        assert server.get("/health").json()["ok"]
    finally:
        server.stop()
