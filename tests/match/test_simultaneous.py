"""Simultaneous turns through the real referee (Goofspiel): every mover asked, none shown another's move first.

Each mover of a turn is sent an ordinary `turn` and answers with an ordinary `move`; the others'
moves of that turn reach it only with its next request. Unless bots ponder, the movers think one
after another, each frozen while another thinks, in an order drawn afresh each turn from the seed;
each is charged its own thinking only; a mover that fails ends the match as the offender.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from arena.clock import ClockSettings
from arena.games.base import turn_order_rng
from arena.launch.sandbox.sandbox import Sandbox
from arena.logs.matchlog import parse_log, read_log
from arena.logs.replay import verify
from tests.helpers import FIXTURES, ROOT, require, run
from tests.launch.sandbox.test_attacks import SYSTEM_PYTHON, needs_root
from tests.logs.test_replay import reencoded
from tests.logs.test_signing import split

BIDDER = FIXTURES / "bidder.py"
ROOMY = ClockSettings(budget_ms=60_000)


def bidder(mode: str, arg: int = 0) -> str:
    return f"stdio:{SYSTEM_PYTHON} {BIDDER} {mode} {arg}"


def played(tmp_path: Path, bots: list[str], seed: int = 3, **options: object) -> Path:
    log = tmp_path / f"g{seed}.msgpack"
    result, _ = run("goofspiel", bots, {"cards": 6}, seed=seed, clock=options.pop("clock", ROOMY), log=log,
                    **options)  # type: ignore[arg-type]
    assert result.offender is None, result.detail
    return log


def test_no_mover_is_sent_the_others_move_before_both_are_in(tmp_path: Path) -> None:
    log = read_log(played(tmp_path, ["random", "montecarlo:samples=20"]))
    bids = {(r["ply"], r["seat"]): r["move"] for r in log.moves}
    assert len(bids) == 12  # 6 rounds of two bids
    for record in (r for r in log.records if r["kind"] == "sent" and "events" in r and not r.get("end")):
        ply, seat = record["ply"], record["seat"]
        shown = [event for event in record["events"] if event[0] == 1 - seat]
        # A request for round p shows the other's bids of the rounds before p, never round p's.
        assert shown == ([[1 - seat, bids[(ply - 1, 1 - seat)]]] if ply > 1 else []), record
    # Within a round, both requests go out before either move is logged.
    order = [(r["kind"], r["ply"]) for r in log.records
             if r["kind"] in ("sent", "move") and r["ply"] >= 1 and not r.get("end")]
    for ply in range(1, 7):
        kinds = [kind for kind, p in order if p == ply]
        assert kinds[:2] == ["sent", "sent"] and kinds[2:] == ["move", "move"], kinds
    assert verify(log).ok


def test_the_order_of_the_movers_is_drawn_afresh_each_turn_from_the_seed(tmp_path: Path) -> None:
    log = read_log(played(tmp_path, ["random", "random"], seed=11))
    asked = [[r["seat"] for r in log.records if r["kind"] == "sent" and r.get("ply") == ply and "events" in r
              and not r.get("end")] for ply in range(1, 7)]
    drawn = []
    for ply in range(1, 7):
        order = [0, 1]
        turn_order_rng(11, ply).shuffle(order)
        drawn.append(order)
    assert asked == drawn
    assert {tuple(order) for order in asked} == {(0, 1), (1, 0)}  # both orders within one match


def pondered(tmp_path: Path, ponder: bool) -> tuple[float, int]:
    """The CPU (ms) the ponderer got while the burner, its fellow mover, thought; over how many waits."""
    log = played(tmp_path, [bidder("ponderer"), bidder("burner", 40)], sandbox=Sandbox.BWRAP, ponder=ponder)
    found = re.search(r"PONDERED ([0-9.]+) ms over (\d+) waits", read_log(log).output.get(0, ""))
    assert found, read_log(log).output
    return float(found.group(1)), int(found.group(2))


def test_a_mover_is_frozen_while_the_other_mover_thinks(tmp_path: Path) -> None:
    needs_root()
    require("bwrap")
    control, waits = pondered(tmp_path / "ponder", True)
    assert waits >= 5 and control > 10 * waits, (control, waits)  # pondering, it spins through the 40 ms
    strict, waits = pondered(tmp_path / "strict", False)
    assert waits >= 5 and strict * 10 < control, (strict, control)


def test_a_mover_that_runs_out_of_time_ends_the_match_and_the_other_pays_only_its_own_thinking(
        tmp_path: Path) -> None:
    log_path = tmp_path / "late.msgpack"
    tight = ClockSettings(budget_ms=600, margin_ms=100)
    result, _ = run("goofspiel", [bidder("sleeper", 250), bidder("sleeper", 0)], {"cards": 6}, seed=2,
                    clock=tight, log=log_path)
    assert (result.reason, result.offender) == ("timeout", 0), result.detail
    log = read_log(log_path)
    waited = sum(r["time_ms"] for r in log.moves if r["seat"] == 0)
    charged = sum(r["time_ms"] for r in log.moves if r["seat"] == 1)
    assert waited > 400 and charged < 100, (waited, charged)  # seat 0's thinking is never seat 1's
    assert verify(log).ok


def test_pondering_movers_are_asked_at_once(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    done = subprocess.run([sys.executable, "-m", "arena.cli", "match", "goofspiel", bidder("sleeper", 100),
                           bidder("sleeper", 100), "--set", "cards=3", "--ponder", "--trace", str(trace), "--json",
                           "--log", str(tmp_path / "p.msgpack")], capture_output=True, text=True, cwd=ROOT,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in trace.read_text().splitlines()]
    kinds = [(line["seat"], line["message"]["type"]) for line in lines
             if line["message"].get("type") in ("turn", "move")]
    first_move = next(i for i, (_, kind) in enumerate(kinds) if kind == "move")
    assert {seat for seat, kind in kinds[:first_move] if kind == "turn"} == {0, 1}  # both asked before any answer


def test_verify_catches_a_log_that_shows_a_seat_the_hidden_deck(tmp_path: Path) -> None:
    log_path = tmp_path / "fixed.msgpack"
    result, _ = run("goofspiel", ["random", "random"], {"cards": 4, "deck": [3, 1, 4, 2]}, seed=1, log=log_path)
    assert result.offender is None
    assert verify(read_log(log_path)).ok
    body, _ = split(log_path.read_bytes())
    sent = next(r for r in body if r["kind"] == "sent" and r["seat"] == 1 and "setup" in r)
    assert sent["setup"] == {"cards": 4}  # the deck was never sent
    sent["setup"]["deck"] = [3, 1, 4, 2]
    verdict = verify(parse_log(reencoded(body)))
    assert not verdict.ok and "seat 1 was sent the setup" in verdict.message
    assert "it was shown more than its observation" in verdict.message
