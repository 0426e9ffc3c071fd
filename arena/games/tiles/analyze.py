"""`arena analyze tiles`: best score and move of a Tegelspel position by negamax and alpha-beta."""

from __future__ import annotations

import argparse
import json
import random
import time
from dataclasses import dataclass
from typing import Any

from arena.argtypes import CliError, positive_int, positive_seconds
from arena.kit.analysis import EXIT_OK, Analyzer, GameRunner


def add_tiles_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `arena analyze tiles`."""
    parser.add_argument("--experiment", action="store_true",
                        help="play Monte-Carlo moves to the end, then undo them one by one, "
                             "timing the exact searches at every step (the assignment's doeExperiment)")
    parser.add_argument("--simulations", type=positive_int, default=100,
                        help="Monte-Carlo playouts per move (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the Monte-Carlo playouts")
    parser.add_argument("--max-states", type=positive_int, default=20_000_000,
                        help="give up a plain negamax after this many states (default 20000000)")
    parser.add_argument("--max-seconds", type=positive_seconds, default=300.0,
                        help="give up any one search after this long (default 300, the assignment's "
                             "five minutes)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


@dataclass
class SearchReport:
    """What one exact search found, or how far it got."""

    method: str
    score: int | None
    move: list | None
    states: int
    seconds: float
    finished: bool

    def to_data(self) -> dict[str, Any]:
        """Plain data for --json."""
        return dict(self.__dict__)


def tiles_searches(rules: Any, position: Any, max_states: int, max_seconds: float,
                   plain: bool = True) -> list[SearchReport]:
    """Plain negamax (unless plain is False) and alpha-beta on one position."""
    from .bots.search import AlphaBeta, PlainNegamax, SearchAborted, engine_move

    reports = []
    if plain:
        started = time.monotonic()
        negamax = PlainNegamax(rules, max_states=max_states, deadline=started + max_seconds)
        try:
            score, move = negamax.best(position)
            reports.append(SearchReport("negamax", score, move and engine_move(move),
                                        negamax.states, time.monotonic() - started, True))
        except SearchAborted:
            reports.append(SearchReport("negamax", None, None, negamax.states,
                                        time.monotonic() - started, False))
    started = time.monotonic()
    search = AlphaBeta(rules)
    try:
        score, move = search.solve(position, started + max_seconds)
        reports.append(SearchReport("alphabeta", score, move and engine_move(move),
                                    search.states, time.monotonic() - started, True))
    except SearchAborted:
        reports.append(SearchReport("alphabeta", None, None, search.states,
                                    time.monotonic() - started, False))
    return reports


def run_tiles(args: argparse.Namespace, setup: dict[str, Any], runner: GameRunner) -> int:
    """`arena analyze tiles SETUP [--experiment]`."""
    from .bots.search import Rules
    from .rules import GAME as TILES

    state = TILES.new_state(setup)
    if state.is_over():
        raise CliError(f"{args.setup}: the game is already over in this position")
    rules, position = Rules.from_state(state)
    if args.experiment:
        return _tiles_experiment(args, rules, position, state.mover)
    reports = tiles_searches(rules, position, args.max_states, args.max_seconds)
    mc_move, means = _monte_carlo(args, rules, position)
    if args.json:
        print(json.dumps({"to_move": state.mover, "searches": [r.to_data() for r in reports],
                          "montecarlo": {"move": mc_move, "means": means,
                                         "simulations": args.simulations, "seed": args.seed}}))
        return EXIT_OK
    print(state.render())
    print()
    labels = {"negamax": "plain negamax (besteScore)", "alphabeta": "alpha-beta + table"}
    for report in reports:
        print(f"{labels[report.method]:28} {_describe(report)}")
    plain, best = reports
    if plain.finished and best.finished and best.states:
        print(f"{'':28} {plain.states / best.states:,.0f} times fewer states")
    listed = ", ".join(f"{json.dumps(m)} {v:+.2f}" for m, v in means)
    print(f"{'monte-carlo (bepaalGoedeZet)':28} move {json.dumps(mc_move)} "
          f"({args.simulations} playouts per move, seed {args.seed}; means {listed})")
    return EXIT_OK


def _describe(report: SearchReport) -> str:
    if not report.finished:
        return f"gave up after {report.states:,} states and {report.seconds:.3f} s"
    move = json.dumps(report.move) if report.move is not None else "none (game over)"
    return f"score {report.score:+d}, best move {move}, {report.states:,} states, {report.seconds:.3f} s"


def _monte_carlo(args: argparse.Namespace, rules: Any, position: Any) -> tuple[list, list]:
    """The Monte-Carlo move and every distinct move's mean playout score."""
    from .bots.search import engine_move, monte_carlo

    move, means = monte_carlo(rules, position, args.simulations, random.Random(args.seed))
    assert move is not None  # run_tiles refuses finished positions
    moves = rules.distinct_moves(position)
    return engine_move(move), [(engine_move(m), v) for m, v in zip(moves, means)]


def _tiles_experiment(args: argparse.Namespace, rules: Any, position: Any, mover: int) -> int:
    """doeExperiment: Monte-Carlo moves to the end, then time the exact searches undoing them."""
    from .bots.search import monte_carlo

    rng = random.Random(args.seed)
    line = [position]
    while not rules.is_over(line[-1]):
        move, _ = monte_carlo(rules, line[-1], args.simulations, rng)
        assert move is not None  # a position that is not over has a move
        line.append(rules.play(line[-1], move))
    rows = []
    plain_on = True
    header = ["undone", "to move", "negamax states", "negamax s", "alpha-beta states",
              "alpha-beta s", "score"]
    if not args.json:
        print(f"{len(line) - 1} Monte-Carlo moves to the end ({args.simulations} playouts per "
              f"move, seed {args.seed}); undoing them one by one (score: for the seat to move)")
        print(_table_line(header))
    for undone in range(1, len(line)):
        reports = tiles_searches(rules, line[-1 - undone], args.max_states, args.max_seconds,
                                 plain=plain_on)
        best = reports[-1]
        plain = reports[0] if plain_on else None
        seat = (mover + len(line) - 1 - undone) % 2
        row = {"undone": undone, "to_move": seat,
               "negamax": plain.to_data() if plain else None,
               "alphabeta": best.to_data()}
        rows.append(row)
        if not args.json:
            cells = [str(undone), str(seat),
                     _states(plain), _time(plain),
                     _states(best), _time(best),
                     f"{best.score:+d}" if best.finished else "-"]
            print(_table_line(cells), flush=True)
        # A position with one more move to search only takes longer: stop a search once it
        # has given up, and the table once both have.
        if plain is not None and not plain.finished:
            plain_on = False
        if not best.finished:
            break
    if args.json:
        print(json.dumps({"moves": len(line) - 1, "rows": rows}))
    return EXIT_OK


def _table_line(cells: list[str]) -> str:
    widths = [6, 7, 15, 10, 17, 12, 5]
    return "  ".join(cell.rjust(width) for cell, width in zip(cells, widths))


def _states(report: SearchReport | None) -> str:
    if report is None:
        return "-"
    return f"{report.states:,}" + ("" if report.finished else "+")


def _time(report: SearchReport | None) -> str:
    if report is None:
        return "-"
    return f"{report.seconds:.3f}" + ("" if report.finished else "+")


ANALYZER = Analyzer("best score and move by plain negamax and alpha-beta, and the Monte-Carlo move "
                    "(--experiment: the assignment's experiment)", add_tiles_arguments, run_tiles)
