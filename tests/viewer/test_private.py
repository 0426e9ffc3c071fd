"""A viewer page for one who owns only some seats: the others' output, failure detail and commands left out."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.logs.matchlog import read_log
from arena.viewer.frames import match_data
from arena.viewer.page import match_page
from arena.viewer.report import write_report
from tests.helpers import run

SECRET = "PRIVATE-DIARY weights 9,2,7"
EMBEDDED = re.compile(r'<script type="application/json" id="arena-data">(.*?)</script>', re.S)


def bot(tmp_path: Path, move: str) -> str:
    """A Blocking bot that writes its secret to stderr, then at its second turn does `move`."""
    path = tmp_path / "leaky.py"
    path.write_text(f'''import sys

from protocol import Bot


class Leaky(Bot):
    def init_game(self, game, seat, players, setup, time_left_ms, match):
        self.turns = 0
        self.free = [[r, c] for r in range(setup["rows"]) for c in range(setup["cols"])]

    def turn(self, events, time_left_ms):
        self.turns += 1
        print({SECRET!r}, file=sys.stderr, flush=True)
        if self.turns == 2:
            {move}
        return self.free[0] if not events else [r for r in self.free if r != events[-1][1]][-1]
''')
    return str(path)


def test_a_crash_and_an_illegal_move_are_told_to_others_without_what_the_bot_wrote(tmp_path: Path) -> None:
    for move, reason in (("raise SystemExit(f'{SECRET!r} (crash)')".replace("{SECRET!r}", SECRET), "crash"),
                         (f"return [{SECRET!r}, 0]", "illegal")):
        log_path = tmp_path / f"{reason}.msgpack"
        result, _ = run("blocking", [bot(tmp_path, move), "random"], {"rows": 5, "cols": 6}, log=log_path)
        assert result.reason == reason and result.offender == 0 and SECRET in result.detail, result
        log = read_log(log_path)
        everything = match_data(log)
        assert SECRET in json.dumps(everything)  # a person's own log: all of it
        mine = match_data(log, shown={0})
        assert SECRET in json.dumps(mine["output"]) and SECRET in mine["result"]["detail"]
        for theirs in (match_data(log, shown={1}), match_data(log, shown=set())):
            text = json.dumps(theirs)
            assert SECRET not in text, text[:2000]
            assert theirs["result"]["detail"] == f"{'crashed' if reason == 'crash' else 'played an illegal move'}" \
                f" after {result.plies} {'ply' if result.plies == 1 else 'plies'}"
            assert set(theirs["output"]) <= {"1"} and theirs["bots"][0] == ""
            page = match_page(theirs)
            assert SECRET not in page and SECRET not in EMBEDDED.search(page).group(1)  # type: ignore[union-attr]


def test_a_report_for_the_public_names_no_host_path(tmp_path: Path) -> None:
    results = tmp_path / "results"
    (results / "logs").mkdir(parents=True)
    run("blocking", ["random", "random"], {"rows": 3, "cols": 4}, log=results / "logs" / "m1.msgpack")
    shown, _ = write_report(results, tmp_path / "private.html")
    public, _ = write_report(results, tmp_path / "public.html", source="")
    assert str(results) in shown.read_text() and str(tmp_path) not in public.read_text()
