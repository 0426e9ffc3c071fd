"""Head-to-head series: A's results against B from the stored rows, the SPRT stop, and the summary.

A series is a two-bot tournament in the duplicate format: every pair of games shares one setup
and seed with the seats swapped (solo games: both bots play the same boards). Everything here is
computed from match records alone, so the live progress line, the early stop, the final summary
and `arena verify` agree on the same numbers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from arena.tournament.stats.sprt import (
    Pentanomial,
    SprtSettings,
    SprtSettingsError,
    SprtState,
    Trinomial,
    elo_interval,
    estimate_elo,
    format_summary,
    sprt_settings,
    to_json,
    verdict,
)
from arena.tournament.workers.worker import MatchRecord
from protocol.options import KeyValueError, parse_key_values


def parse_sprt(text: str) -> SprtSettings:
    """Settings from the command line's `elo0=E0,elo1=E1[,alpha=A,beta=B,model=M]`."""
    try:
        table = parse_key_values(part for part in text.split(",") if part.strip())
    except KeyValueError:
        raise SprtSettingsError(f"--sprt {text!r}: expected KEY=VALUE pairs separated by commas, "
                                "e.g. elo0=0,elo1=5") from None
    return sprt_settings(table, "--sprt")


def a_score(record: MatchRecord) -> float | None:
    """Bot 0's score in a two-player match against bot 1: 1, 0.5 or 0 by their ranks."""
    if sorted(record.bots) != [0, 1]:
        return None
    a, b = record.ranks[record.bots.index(0)], record.ranks[record.bots.index(1)]
    return 1.0 if a < b else 0.5 if a == b else 0.0


class SeriesTally:
    """Bot 0 (A) against bot 1 (B), game by game and pair by pair, as records arrive in any order.

    With SPRT settings the tally also keeps the decision at the moment the LLR first left its
    bounds: that decision stops the series, and it stands even if the pairs still in flight
    then move the LLR back inside.
    """

    def __init__(self, players: int, settings: SprtSettings | None = None) -> None:
        self.players = players
        self.settings = settings
        self.trinomial = Trinomial()
        self.pentanomial: Pentanomial | None = Pentanomial() if players == 2 else None
        self.stop: SprtState | None = None  # the SPRT when it decided, after `stop_games` games
        self.stop_games = 0
        self._open: dict[tuple[int, int], list[tuple[int, float]]] = {}  # (setup, round) -> (bot, score)

    def observe(self, record: MatchRecord) -> None:
        """Count one stored match."""
        key = (record.setup, record.round)
        if self.players == 1:  # a game of the duplicate: both bots' scores on the same board
            half = self._open.setdefault(key, [])
            half.append((record.bots[0], 0.0 if not record.played else record.scores[0]))
            if len(half) == 2:
                del self._open[key]
                score = dict(half)
                a, b = score.get(0, 0.0), score.get(1, 0.0)
                self.trinomial.add_game(1.0 if a > b else 0.5 if a == b else 0.0)
                self._check()
            return
        score = a_score(record)
        if score is None:
            return
        self.trinomial.add_game(score)
        if self.pentanomial is not None:
            half = self._open.setdefault(key, [])
            half.append((record.bots[0], score))
            if len(half) == 2:
                del self._open[key]
                self.pentanomial.add_pair(half[0][1], half[1][1])
                self._check()
        else:
            self._check()

    def _check(self) -> None:
        if self.stop is None and self.settings is not None:
            state = self.settings.test(self.counts)
            if state.decision is not None:
                self.stop, self.stop_games = state, self.trinomial.games

    def observe_all(self, records: Iterable[MatchRecord]) -> SeriesTally:
        """Count every record; returns self."""
        for record in records:
            self.observe(record)
        return self

    @property
    def counts(self) -> Trinomial | Pentanomial:
        """What the statistics use: pairs where games come in pairs, else single games."""
        return self.pentanomial if self.pentanomial is not None else self.trinomial

    @property
    def decided(self) -> bool:
        """Whether the SPRT has accepted a hypothesis (the series stops)."""
        return self.stop is not None

    def state(self) -> SprtState | None:
        """The SPRT on every game counted so far, carrying the decision taken at the stop."""
        if self.settings is None:
            return None
        state = self.settings.test(self.counts)
        return replace(state, decision=self.stop.decision if self.stop is not None else None)

    def progress(self) -> str:
        """The short running score for a progress line: W-L-D, Elo and the LLR."""
        t = self.trinomial
        text = f"{t.wins}-{t.losses}-{t.draws}"
        if t.games:
            est = estimate_elo(self.counts)
            if math.isfinite(est.elo) and math.isfinite(est.elo_error):
                text += f" elo {est.elo:+.0f}±{est.elo_error:.0f}"
            elif math.isfinite(est.elo):
                text += f" elo {est.elo:+.0f}"
            else:  # a one-sided score: the bound the data give, never inf
                low, high = elo_interval(self.counts)
                text += f" elo >{low:+.0f}" if est.elo > 0 else f" elo <{high:+.0f}"
        state = self.state()
        if state is not None:
            text += f" llr {state.llr:.2f} ({state.lower:.2f}, {state.upper:.2f})"
        return text

    def summary(self, names: tuple[str, str]) -> dict[str, Any]:
        """The JSON summary (`arena match --games --json`): counts, Elo, LOS and the SPRT."""
        data = to_json(self.trinomial, self.pentanomial, self.state())
        return {"a": names[0], "b": names[1], **data}

    def lines(self, names: tuple[str, str], scheduled: int = 0) -> list[str]:
        """The cutechess-style report lines, ending with the SPRT's one verdict line when there is an SPRT.

        The verdict quotes the LLR the decision was taken on. Series record their games in schedule
        order and stop at the deciding pair, so it is the LLR printed above it; only a directory
        written by an older arena, which counted games as they arrived, can hold games past it.
        """
        lines = format_summary(names[0], names[1], self.trinomial, self.pentanomial, self.state())
        if self.stop is not None:
            lines[-1] = verdict(self.stop, self.stop_games)
            if self.stop_games != self.trinomial.games:
                lines[-1] += f"; {self.trinomial.games - self.stop_games} more were played before the series stopped"
        if self.settings is not None and scheduled > self.trinomial.games:
            lines[-1] += f" (of {scheduled} scheduled)"
        return lines


def unplayed_problems(settings: SprtSettings, players: int, written: Iterable[MatchRecord],
                      missing: Iterable[tuple[str, tuple[int, int]]]) -> tuple[list[str], str]:
    """The scheduled matches without a row that an SPRT stop does not explain, and why they are still to play.

    The rows, counted in the order they were written, must reach a decision; a game pair is then
    either finished or not begun (missing: (match id, (setup, round)) of each match without a row).
    """
    missing = list(missing)
    if not missing:
        return [], ""
    tally = SeriesTally(players, settings)
    begun: set[tuple[int, int]] = set()
    for record in written:
        begun.add((record.setup, record.round))
        tally.observe(record)
    if not tally.decided:
        state = tally.state()
        llr = f"LLR {state.llr:.2f} within [{state.lower:.2f}, {state.upper:.2f}]" if state is not None else ""
        return [match for match, _ in missing], f"the SPRT has not decided yet: {llr}"
    half = [match for match, key in missing if key in begun]
    return half, "the other game of their pairs was played" if half else ""
