"""What a run says while it plays: a bar on a terminal, else one plain line per finished game.

On a terminal the tqdm bar redraws itself in place. Anywhere else (a log file, a pipe, CI) the
bar's carriage-return frames would pile up, so the run writes what cutechess and fastchess
write instead: `Finished game N (A vs B): 1-0 {reason}` per game, and a standings line every
K games.
"""

from __future__ import annotations

import sys
from typing import TextIO

from tqdm import tqdm  # type: ignore[import-untyped]

from arena.outcomes import FAILURES, FORFEIT
from arena.tournament.workers.worker import MatchRecord

AUTO_REPORT_EVERY = 10  # standings lines in a log without --report-every: every this many games


def game_result(record: MatchRecord) -> str:
    """The result as chess tools write it: 1-0, 0-1, 1/2-1/2; ranks for more seats; the score alone."""
    ranks = record.ranks
    if len(ranks) == 1:
        return f"score {record.scores[0]:g}"
    if len(ranks) == 2:
        return "1/2-1/2" if ranks[0] == ranks[1] else "1-0" if ranks[0] < ranks[1] else "0-1"
    return "ranks " + "-".join(str(rank) for rank in ranks)


def game_reason(record: MatchRecord) -> str:
    """How the game ended, naming the seat at fault: `blocked`, `timeout: random`."""
    if record.offender is not None and (record.reason in FAILURES or record.reason == FORFEIT):
        return f"{record.reason}: {record.names[record.offender]}"
    return record.reason


def finished_line(number: int, record: MatchRecord) -> str:
    """`Finished game 7 (perfect vs random): 1-0 {blocked}`."""
    return f"Finished game {number} ({' vs '.join(record.names)}): {game_result(record)} {{{game_reason(record)}}}"


class Progress:
    """A run's progress on stderr: the bar on a terminal, else lines; nothing when disabled."""

    def __init__(self, name: str, total: int, done: int, enabled: bool, every: int = 0,
                 stream: TextIO | None = None) -> None:
        self.stream = stream or sys.stderr
        self.enabled = enabled
        self.terminal = enabled and self.stream.isatty()
        # A log gets a standings line every so often even when nobody asked; a terminal has the bar.
        self.every = every or (0 if self.terminal or not enabled else AUTO_REPORT_EVERY)
        self.total = total
        self.bar: tqdm | None = None
        if self.terminal:
            self.bar = tqdm(total=total, initial=done, unit="game", dynamic_ncols=True, desc=name, leave=True,
                            smoothing=0.05, file=self.stream)

    def game(self, number: int, record: MatchRecord) -> None:
        """A game finished (number: its place in the schedule, from 1)."""
        if self.bar is not None:
            self.bar.update(1)
        elif self.enabled:
            self.say(finished_line(number, record))

    def due(self, finished: int) -> bool:
        """Whether a standings line is due after this many finished games."""
        return self.enabled and self.every > 0 and finished % self.every == 0

    def status(self, text: str) -> None:
        """The short running figures beside the bar (nothing without a bar)."""
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)

    def grow(self, total: int) -> None:
        """The schedule changed size (knockout ties, Swiss rounds, an SPRT stop)."""
        self.total = total
        if self.bar is not None and self.bar.total != total:
            self.bar.total = total
            self.bar.refresh()

    def say(self, text: str) -> None:
        """One line for the reader, between the bar's frames."""
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def close(self) -> None:
        """Leave the bar as it ended."""
        if self.bar is not None:
            self.bar.close()
