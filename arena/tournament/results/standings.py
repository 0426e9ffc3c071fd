"""Standings computed from the stored results alone: points, crosstable, ratings, seat statistics.

Points come from pairwise comparisons: in every match, each bot gets 1 for every other seat
it ranked ahead of, 0.5 for every tie and 0 for every seat ahead of it (in a two-player game
that is win 1, draw ½, loss 0). Solo games are compared in the duplicate format: every
bot played the same (setup, round) seeds, and those bots are ranked by score against each
other. The crosstable holds exactly these pairwise points, so each row sums to the bot's
points. Forfeits count as losses in points and are left out of ratings and seat statistics
(nothing was played).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from arena.outcomes import FAILURES
from arena.tournament.plan.config import StrikeRule
from arena.tournament.results.formats import plan_of
from arena.tournament.results.points import Entry, comparisons, pair_points
from arena.tournament.results.strikes import StrikeBook, forfeited_seats
from arena.tournament.stats.ratings import Rating, bradley_terry, plackett_luce
from arena.tournament.workers.worker import MatchRecord

SeatRow = tuple[int, float, bool]  # (rank, score, rank shared) of one seat in one match


@dataclass
class BotStanding:
    """A bot's line in the standings."""

    index: int
    name: str
    spec: str
    games: int = 0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    comparisons: int = 0  # pairwise comparisons the points come from
    score_sum: float = 0.0
    rank_sum: int = 0
    firsts: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    forfeits: int = 0
    strikes: int = 0
    disqualified_at: str | None = None
    disqualifying_strikes: int = 0  # the strikes that disqualified it (more may follow from matches in flight)
    rating: Rating | None = None
    place: int = 0

    @property
    def mean_score(self) -> float:
        """Mean score over played matches."""
        return self.score_sum / self.played if self.played else 0.0

    @property
    def mean_rank(self) -> float:
        """Mean rank over every match (forfeits count as last)."""
        return self.rank_sum / self.games if self.games else 0.0

    def to_data(self) -> dict[str, Any]:
        """Plain data for standings.json."""
        return {
            "place": self.place, "name": self.name, "spec": self.spec, "games": self.games,
            "played": self.played, "wins": self.wins, "draws": self.draws, "losses": self.losses,
            "points": self.points, "comparisons": self.comparisons,
            "points_share": round(self.points / self.comparisons, 4) if self.comparisons else None,
            "mean_score": round(self.mean_score, 4), "mean_rank": round(self.mean_rank, 4),
            "firsts": self.firsts, "failures": dict(sorted(self.failures.items())),
            "forfeits": self.forfeits, "strikes": self.strikes,
            "disqualified": self.disqualified_at is not None, "disqualified_at": self.disqualified_at,
            "rating": self.rating.to_data() if self.rating else None,
        }


@dataclass
class Standings:
    """Everything the reports show."""

    name: str
    game: str
    players: int
    scheduled: int
    bots: list[BotStanding]  # in order of place
    crosstable: list[list[tuple[float, int]]]  # [row bot][column bot] = (points, comparisons), by index
    seats: dict[str, Any]
    records: list[MatchRecord]
    setup_labels: list[str]
    format: str = "round-robin"
    format_summary: dict[str, Any] | None = None  # the knockout bracket or the Swiss rounds
    complete: bool = False

    @property
    def finished(self) -> int:
        """Matches with a row."""
        return len(self.records)

    @property
    def forfeits(self) -> int:
        """Rows scored without being played."""
        return sum(1 for r in self.records if not r.played)

    @property
    def mode(self) -> str:
        """solo, two-player or multi-player."""
        return "solo" if self.players == 1 else "two-player" if self.players == 2 else "multi-player"


def compute(meta: dict[str, Any], records: list[MatchRecord], written_order: list[MatchRecord]) -> Standings:
    """Standings from the stored config (meta) and rows (in schedule and in written order)."""
    config = meta["config"]
    players = int(config["players"])
    bots = [BotStanding(i, b["name"], b["spec"]) for i, b in enumerate(config["bots"])]
    n = len(bots)
    _count_strikes(bots, config, written_order)
    _count_games(bots, records, players)
    cross = _crosstable(bots, records, players)
    for bot in bots:
        bot.points = sum(p for p, _ in cross[bot.index])
        bot.comparisons = sum(c for _, c in cross[bot.index])
    for bot, rating in zip(bots, _ratings(records, players, n), strict=True):
        bot.rating = rating
    plan = plan_of(config)
    results = {record.match: record for record in records}
    finished = plan.finished(results)
    decided = plan.order(results)  # knockout and Swiss places come from the format
    if decided is not None:
        ordered = [bots[i] for i in decided]
    else:
        ordered = sorted(bots, key=lambda b: (-b.points, -(b.rating.value if b.rating else 0.0), -b.mean_score,
                                              b.index))
    for place, bot in enumerate(ordered, 1):
        bot.place = place
    scheduled = len(plan.tasks(results)) if finished and plan.dynamic else int(meta["total"])
    return Standings(
        name=config["name"], game=config["game"], players=players, scheduled=scheduled,
        bots=ordered, crosstable=cross, seats=seat_statistics(records, players, config, bots),
        records=records, setup_labels=[s["label"] for s in config["setups"]],
        format=config.get("format", "round-robin"), format_summary=plan.summary(results, [b.name for b in bots]),
        complete=finished,
    )


def _count_strikes(bots: list[BotStanding], config: dict[str, Any], written_order: list[MatchRecord]) -> None:
    """Each bot's strikes and disqualification, counted in the order the rows were written."""
    rule = StrikeRule(config["strikes"]["max_strikes"], tuple(config["strikes"]["reasons"]))
    book = StrikeBook(rule, len(bots))
    for record in written_order:
        book.observe(record)
    for bot in bots:
        bot.strikes = book.strikes[bot.index]
        bot.disqualified_at = book.disqualified.get(bot.index)
        bot.disqualifying_strikes = rule.max_strikes if bot.disqualified_at is not None else 0


def _count_games(bots: list[BotStanding], records: list[MatchRecord], players: int) -> None:
    """Each bot's games, played games, scores, ranks, wins of first place, forfeits and failures."""
    for record in records:
        out = forfeited_seats(record)
        for seat, index in enumerate(record.bots):
            bot = bots[index]
            bot.games += 1
            if record.played:
                bot.played += 1
                bot.score_sum += record.scores[seat]
            if players > 1:  # solo ranks come from the duplicate comparisons below
                bot.rank_sum += record.ranks[seat]
                bot.firsts += record.played and record.ranks[seat] == 1
            if seat in out:
                bot.forfeits += 1
            if record.offender == seat and record.reason in FAILURES:
                bot.failures[record.reason] = bot.failures.get(record.reason, 0) + 1


def _crosstable(bots: list[BotStanding], records: list[MatchRecord], players: int) -> list[list[tuple[float, int]]]:
    """Points and comparisons of each bot against each other; solo ranks and two-player wins on the way."""
    n = len(bots)
    cross = [[(0.0, 0) for _ in range(n)] for _ in range(n)]
    for group in comparisons(records, players):
        if players == 1:
            for entry in group:
                bots[entry.bot].rank_sum += entry.rank
                bots[entry.bot].firsts += not entry.forfeited and entry.rank == 1
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                pa, pb = pair_points(a, b)
                cross[a.bot][b.bot] = (cross[a.bot][b.bot][0] + pa, cross[a.bot][b.bot][1] + 1)
                cross[b.bot][a.bot] = (cross[b.bot][a.bot][0] + pb, cross[b.bot][a.bot][1] + 1)
                if players == 2:
                    for entry, got in ((a, pa), (b, pb)):
                        bot = bots[entry.bot]
                        bot.wins += got == 1.0
                        bot.draws += got == 0.5
                        bot.losses += got == 0.0
    return cross


def _ratings(records: list[MatchRecord], players: int, n: int) -> list[Rating]:
    played = [r for r in records if r.played]
    if players == 2:
        games = []
        for r in played:
            a, b = Entry(r.bots[0], r.ranks[0], 0, False), Entry(r.bots[1], r.ranks[1], 0, False)
            games.append((a.bot, b.bot, pair_points(a, b)[0]))
        return bradley_terry(n, games)
    events = [[(e.bot, e.rank) for e in group] for group in comparisons(played, players)]
    return plackett_luce(n, events)


def _seat_line(rows: list[SeatRow]) -> dict[str, Any]:
    """Statistics of one seat over (rank, score) pairs, with how often the rank was shared."""
    matches = len(rows)
    wins = sum(1 for rank, _, shared in rows if rank == 1 and not shared)
    draws = sum(1 for rank, _, shared in rows if rank == 1 and shared)
    return {
        "matches": matches, "wins": wins, "draws": draws,
        "win_rate": round(wins / matches, 4) if matches else None,
        "mean_rank": round(sum(r for r, _, _ in rows) / matches, 4) if matches else None,
        "mean_score": round(sum(s for _, s, _ in rows) / matches, 4) if matches else None,
    }


def seat_statistics(records: list[MatchRecord], players: int, config: dict[str, Any],
                    bots: list[BotStanding]) -> dict[str, Any]:
    """Win rate, mean rank and mean score of each seat: overall, per setup and per pairing."""
    if players < 2:
        return {}
    labels = [s["label"] for s in config["setups"]]
    overall: dict[int, list[SeatRow]] = defaultdict(list)
    by_setup: dict[str, dict[int, list[SeatRow]]] = defaultdict(lambda: defaultdict(list))
    by_pairing: dict[str, dict[int, list[SeatRow]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        if not record.played:
            continue
        pairing = " / ".join(bots[b].name for b in sorted(record.bots))
        for seat, rank in enumerate(record.ranks):
            shared = record.ranks.count(rank) > 1
            row = (rank, record.scores[seat], shared)
            overall[seat].append(row)
            by_setup[labels[record.setup]][seat].append(row)
            by_pairing[pairing][seat].append(row)

    def table(rows: dict[int, list[SeatRow]]) -> list[dict[str, Any]]:
        return [{"seat": seat, **_seat_line(rows[seat])} for seat in range(players)]

    return {
        "overall": table(overall),
        "by_setup": {label: table(by_setup[label]) for label in labels if label in by_setup},
        "by_pairing": {pairing: table(rows) for pairing, rows in sorted(by_pairing.items())},
    }


def standings_data(standings: Standings) -> dict[str, Any]:
    """The whole of standings.json."""
    names = [b.name for b in sorted(standings.bots, key=lambda b: b.index)]
    return {
        "name": standings.name,
        "game": standings.game,
        "players": standings.players,
        "mode": standings.mode,
        "matches": {"scheduled": standings.scheduled, "finished": standings.finished,
                    "played": standings.finished - standings.forfeits, "forfeits": standings.forfeits},
        "complete": standings.complete,
        "format": standings.format,
        **({"format_summary": standings.format_summary} if standings.format_summary else {}),
        "points": "pairwise: 1 per seat ranked ahead of, 0.5 per tie"
                  + (" (duplicate format: bots that played the same seed)" if standings.players == 1 else ""),
        "bots": [_bot_data(b, standings.players) for b in standings.bots],
        "crosstable": {
            names[i]: {names[j]: {"points": p, "games": g} for j, (p, g) in enumerate(row) if j != i}
            for i, row in enumerate(standings.crosstable)
        },
        "seats": standings.seats,
        "reasons": _reason_counts(standings.records),
    }


def _bot_data(bot: BotStanding, players: int) -> dict[str, Any]:
    """A bot's entry; wins, draws and losses only where they mean something (two players)."""
    data = bot.to_data()
    if players != 2:
        data.update(wins=None, draws=None, losses=None)
    return data


def _reason_counts(records: list[MatchRecord]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        counts[record.reason] += 1
    return dict(sorted(counts.items()))
