"""`arena analyze tenten SETUP`: the greedy and the optimal score of a finite block sequence.

Greedy is the assignment's play_greedy (each round, the order and placements that score most in
that round alone); optimal is the assignment's highest_score (the best total over the whole
sequence), found by the exact search of bots/tenten/optimal.py. For each the report gives
the score, the search states visited and the time taken, then the optimal moves.

`arena analyze tenten` is this module's ANALYZER; the solvers are imported
only when it runs.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, TextIO, cast

from arena.argtypes import CliError
from arena.games.base import Move, SetupError
from arena.kit.analysis import EXIT_OK, Analyzer, GameRunner

from .rules import GAME, NAME, TentenState

DEFAULT_MAX_SECONDS = 300.0  # the exact search gives up after this long (best line found kept)


@dataclass
class Result:
    """One method's answer: its score, the states it visited, its time and its moves."""

    score: int
    visited: int
    seconds: float
    finished: bool = True
    moves: list[Move] = field(default_factory=list)


def start(setup: Mapping[str, Any]) -> TentenState:
    """The first position of a setup that holds a finite sequence; SetupError otherwise."""
    checked = GAME.validate_setup(setup, 1)
    if "sequence" not in checked:
        raise SetupError(NAME, "analyze needs a finite `sequence` of blocks in the setup")
    state, _ = GAME.start(checked, 1, 0)
    return cast(TentenState, state)


def play_greedy(state: TentenState) -> Result:
    """The assignment's play_greedy from state: round by round the best plan for that round alone."""
    from .bots.simple import RoundPlanner

    started = time.perf_counter()
    trial = state.copy()
    visited = 0
    moves: list[Move] = []
    while not trial.is_over():
        planner = RoundPlanner(trial.size)
        _, drops = planner.best(trial.board, tuple(sorted(trial.offer)))
        visited += len(planner.memo)  # every state the round search visited, once each
        if not drops:
            break
        for shape, placement in drops:
            move = [trial.offer.index(shape), placement.k, placement.r]
            moves.append(move)
            trial.apply(move)
    return Result(trial.points - state.points, visited, time.perf_counter() - started, True, moves)


def highest_score(state: TentenState, max_seconds: float | None = None,
                  progress: Callable[[int, int | None, float], None] | None = None) -> Result:
    """The assignment's highest_score from state: the exact best total (or the best found in time, or by Ctrl-C).

    progress(states visited, best points so far, seconds left) is called about twice a second.
    """
    from .bots.lookahead import SearchTimeout
    from .bots.optimal import SequenceSolver, greedy_line, lookahead_line, split_rounds

    started = time.perf_counter()
    rounds = None if state.max_rounds is None else state.max_rounds - state.round + 1
    solver = SequenceSolver(
        state.size, split_rounds(state.offer, state.sequence or [], state.offer_size, rounds)
    )
    # The greedy and lookahead totals are the floor the search must beat (see optimal.py).
    line = max((greedy_line(state), lookahead_line(state)), key=lambda found: found.points)
    deadline = float("inf") if max_seconds is None else time.monotonic() + max_seconds
    if progress is not None:
        floor = line.points
        solver.progress = lambda nodes, best: progress(nodes, max(floor, best or 0), deadline - time.monotonic())
    finished = True
    try:
        found = solver.solve(state.board, 0, tuple(sorted(state.offer)), line.points + 1, deadline)
    except (SearchTimeout, KeyboardInterrupt):  # out of time, or stopped by the person: the best line so far
        found, finished = solver.found, False
    if found is not None:
        line = found
    trial = state.copy()
    moves: list[Move] = []
    for drop in line.drops:
        move = [trial.offer.index(drop.shape), drop.placement.k, drop.placement.r]
        moves.append(move)
        trial.apply(move)
    return Result(line.points, solver.nodes, time.perf_counter() - started, finished, moves)


def analyze_tenten(
    setup: Mapping[str, Any], out: TextIO, max_seconds: float | None = None, as_json: bool = False,
    progress: Callable[[int, int | None, float], None] | None = None,
) -> None:
    """Print the greedy and the optimal score of setup's sequence, with states and times."""
    state = start(setup)
    greedy = play_greedy(state)
    best = highest_score(state, max_seconds, progress)
    if as_json:
        out.write(json.dumps({"greedy": asdict(greedy), "optimal": asdict(best)}) + "\n")
        return
    blocks = len(state.offer) + len(state.sequence or [])
    out.write(
        f"tenten {state.size}x{state.size}, {blocks} blocks offered {state.offer_size} per round"
        + (f", at most {state.max_rounds} rounds" if state.max_rounds is not None else "")
        + "\n"
    )
    for label, result in (("greedy (play_greedy)", greedy), ("optimal (highest_score)", best)):
        note = "" if result.finished else f"  (stopped after {max_seconds:g} s: best line found)"
        out.write(
            f"{label:<24} score {result.score:>6}  states visited {result.visited:>10}"
            f"  time {result.seconds:8.3f} s{note}\n"
        )
    out.write("optimal moves [i, k, r]: " + " ".join(f"[{i},{k},{r}]" for i, k, r in best.moves))
    out.write("\n")


def add_tenten_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of `arena analyze tenten`."""
    parser.add_argument("--max-seconds", type=float, default=DEFAULT_MAX_SECONDS,
                        help="stop the exact search after this long and report the best line "
                             f"found (default {DEFAULT_MAX_SECONDS:g})")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def run_tenten(args: argparse.Namespace, setup: dict[str, Any], runner: GameRunner) -> int:
    """`arena analyze tenten SETUP [--max-seconds S] [--json]`."""
    if not args.max_seconds > 0:
        raise CliError(f"--max-seconds must be positive, got {args.max_seconds}")
    try:
        start(setup)  # a setup that cannot be analysed is said before anything else
    except SetupError as exc:
        raise CliError(f"{args.setup}: {exc}") from None
    limit = f"up to {args.max_seconds:g} s (--max-seconds)"
    print(f"arena analyze tenten: the exact search runs for {limit}; Ctrl-C stops it and reports the best "
          "line found so far", file=sys.stderr, flush=True)
    watcher = ProgressLine(sys.stderr) if sys.stderr.isatty() else None
    report = io.StringIO()  # printed once the progress line is finished
    try:
        analyze_tenten(setup, report, args.max_seconds, args.json, watcher)
    except SetupError as exc:
        raise CliError(f"{args.setup}: {exc}") from None
    finally:
        if watcher is not None:
            watcher.close()
    sys.stdout.write(report.getvalue())
    return EXIT_OK


class ProgressLine:
    """One line on a terminal, rewritten in place: states searched, the best score so far, the time left."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.shown = False

    def __call__(self, nodes: int, best: int | None, left_s: float) -> None:
        """Show the search's progress."""
        left = "" if left_s == float("inf") else f", {max(0.0, left_s):.0f} s left"
        self.stream.write(f"\rsearching: {nodes:,} states, best score so far {best}{left}   ")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        """End the line."""
        if self.shown:
            self.stream.write("\n")
            self.stream.flush()


ANALYZER = Analyzer("greedy and optimal scores of a finite block sequence", add_tenten_arguments, run_tenten,
                    players=1)
