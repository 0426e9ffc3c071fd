"""The contest server under load: many entrants submitting at once, then the ladder's throughput.

Starts a real `arena serve` (bubblewrap, Blocking 6x6, the reference bots as house bots),
registers ENTRANTS entrants, has them all upload within a minute (alternately the README's
Python bot and the C example bot, in parallel threads), and measures:

- submissions accepted and, once the queue has drained, how many are active (none lost);
- the time from the uploads to a drained queue, and from each upload to its first ladder game;
- the ladder's throughput in games per minute with every version on it, over --window s.

Prints one JSON line. Run: python bench/server_load.py [--entrants 50] [--window 60]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.helpers import ROOT  # noqa: E402
from tests.server.fixtures import FEWEST  # noqa: E402
from tests.server.server import make_server, wait_for  # noqa: E402

CBOT = (ROOT / "bots" / "examples" / "cbot.c").read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=50)
    parser.add_argument("--window", type=float, default=60.0, help="seconds of ladder throughput measured")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-server-load-") as tmp:
        server = make_server(Path(tmp), max_games=100_000, per_hour=100)
        text = server.config.read_text().replace("workers = 1", f"workers = {args.workers}")
        server.config.write_text(text.replace("rows = 5, cols = 6", "rows = 6, cols = 6"))
        names = [f"e{i:03d}" for i in range(args.entrants)]
        server.add(*names)
        server.start()
        started = time.time()
        uploaded, errors = _upload_all(server, names)
        upload_s = time.time() - started
        db_path = server.state / "server.db"

        def drained() -> bool:
            with sqlite3.connect(db_path) as db:
                return db.execute("SELECT COUNT(*) FROM submissions WHERE status IN "
                                  "('queued', 'building', 'validating')").fetchone()[0] == 0

        wait_for(drained, 3600, "the build queue to drain", every=1.0)
        drained_s = time.time() - started
        with sqlite3.connect(db_path) as db:
            rows = {r[0]: r[1:] for r in db.execute("SELECT id, status, updated, first_game FROM submissions")}
        ids = {number for number, _ in uploaded.values()}
        active = [n for n in ids if rows[n][0] == "active"]
        wait_for(lambda: all(rows_now[n] > 0 for n in active) if (rows_now := _first_games(db_path)) else False,
                 1200, "every version's first game", every=1.0)
        firsts = _first_games(db_path)
        to_game = [firsts[n] - t for n, t in uploaded.values() if n in active]
        with sqlite3.connect(db_path) as db:
            before = db.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]
        time.sleep(args.window)  # the measurement window itself
        with sqlite3.connect(db_path) as db:
            after = db.execute("SELECT COUNT(*) FROM games WHERE status = 'done'").fetchone()[0]
            void = db.execute("SELECT COUNT(*) FROM games WHERE status = 'void'").fetchone()[0]
        server.stop()
    print(json.dumps({
        "entrants": args.entrants, "workers": args.workers, "accepted": len(uploaded), "refused": len(errors),
        "active": len(active), "lost": len(ids) - len(active), "upload_s": round(upload_s, 1),
        "queue_drained_s": round(drained_s, 1),
        "upload_to_first_game_s": {"median": round(statistics.median(to_game), 1), "max": round(max(to_game), 1)},
        "ladder_games_per_min": round((after - before) * 60 / args.window, 1), "void_games": void,
    }))


def _upload_all(server: Any, names: list[str]) -> tuple[dict[str, tuple[int, float]], list[str]]:
    """Every entrant uploads at once, Python and C alternately: the accepted (version id, time), the refusals."""
    uploaded: dict[str, tuple[int, float]] = {}
    errors: list[str] = []

    def submit(name: str, index: int) -> None:
        filename, data = ("fewest.py", FEWEST) if index % 2 == 0 else ("cbot.c", CBOT)
        answer = server.submit(name, filename, data)
        if answer.status_code == 201:
            uploaded[name] = (answer.json()["id"], time.time())
        else:
            errors.append(f"{name}: {answer.status_code} {answer.text}")

    threads = [threading.Thread(target=submit, args=(name, i)) for i, name in enumerate(names)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return uploaded, errors


def _first_games(db_path: Path) -> dict[int, float]:
    with sqlite3.connect(db_path) as db:
        return dict(db.execute("SELECT id, first_game FROM submissions"))


if __name__ == "__main__":
    main()
