"""Reports written to the output directory: standings.md, standings.json, matches.csv."""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path
from typing import Any

from arena.tournament.results.files import write_atomic
from arena.tournament.results.standings import BotStanding, Standings, standings_data

STANDINGS_MD = "standings.md"
STANDINGS_JSON = "standings.json"
MATCHES_CSV = "matches.csv"
CROSSTABLE_MAX_BOTS = 16  # wider crosstables are left to standings.json


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    """A Markdown table (also readable as plain text)."""
    cells = [[str(c) for c in header]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    lines = ["| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |" for row in cells]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return lines


def _num(value: float) -> str:
    return f"{value:g}" if value == int(value) else f"{value:.2f}"


def _interval(bot: BotStanding) -> tuple[str, str]:
    if bot.rating is None:
        return "-", "-"
    r = bot.rating
    return f"{r.value:.1f}", f"{r.low:.1f} .. {r.high:.1f}"


def _status(bot: BotStanding) -> str:
    if bot.disqualified_at is not None:
        # The count that disqualified it, as the run said on stderr; matches then in flight may add more.
        more = f"; {bot.strikes} in all" if bot.strikes > bot.disqualifying_strikes else ""
        return f"DISQUALIFIED after {bot.disqualifying_strikes} strikes (the last in {bot.disqualified_at}{more})"
    return f"{bot.strikes} strikes" if bot.strikes else "ok"


def _failures(bot: BotStanding) -> str:
    return ", ".join(f"{reason} {count}" for reason, count in sorted(bot.failures.items())) or "-"


def main_table(standings: Standings) -> list[str]:
    """The standings table: one line per bot, best first."""
    rows = []
    for bot in standings.bots:
        value, interval = _interval(bot)
        if standings.players == 2:
            core = [bot.games, bot.wins, bot.draws, bot.losses, _num(bot.points),
                    f"{100 * bot.points / bot.comparisons:.1f}" if bot.comparisons else "-"]
        else:
            core = [bot.games, f"{bot.mean_score:.2f}", f"{bot.mean_rank:.2f}", _num(bot.points),
                    f"{100 * bot.points / bot.comparisons:.1f}" if bot.comparisons else "-"]
        rows.append([bot.place, bot.name, *core, value, interval, _failures(bot), _status(bot)])
    if standings.players == 2:
        header = ["#", "bot", "games", "W", "D", "L", "points", "score %"]
    else:
        header = ["#", "bot", "games", "mean score", "mean rank", "points", "points %"]
    return _table(header + ["rating", "95 % interval", "failures", "status"], rows)


def crosstable(standings: Standings) -> list[str]:
    """Points of the row bot against the column bot (games in brackets)."""
    order = standings.bots
    rows = []
    for a in order:
        line: list[Any] = [a.name]
        for b in order:
            points, games = standings.crosstable[a.index][b.index]
            line.append("x" if a is b else f"{_num(points)}/{games}" if games else "-")
        rows.append(line + [_num(a.points)])
    return _table(["vs", *[b.name for b in order], "total"], rows)


def seat_table(lines: list[dict[str, Any]], label: str = "") -> list[list[Any]]:
    """Rows of a seat statistics table."""
    def pct(value: float | None) -> str:
        return "-" if value is None else f"{100 * value:.1f}"

    return [([label] if label else []) + [s["seat"], s["matches"], s["wins"], s["draws"], pct(s["win_rate"]),
            s["mean_rank"] if s["mean_rank"] is not None else "-",
            s["mean_score"] if s["mean_score"] is not None else "-"] for s in lines]


SEAT_HEADER = ["seat", "matches", "wins", "shared 1st", "win %", "mean rank", "mean score"]


def summary_line(standings: Standings) -> str:
    """Matches scheduled, finished, played and forfeited."""
    method = next((b.rating.method for b in standings.bots if b.rating), "none")
    state = "complete" if standings.complete else "INCOMPLETE"
    return (f"{standings.finished}/{standings.scheduled} matches ({state}; "
            f"{standings.finished - standings.forfeits} played, {standings.forfeits} forfeited); "
            f"ratings: {method}, 95 % interval")


def markdown(standings: Standings) -> str:
    """The whole standings.md."""
    plural = "s" if standings.players > 1 else ""
    out = [f"# {standings.name}: {standings.game}, {standings.players} player{plural} per match ({standings.mode})", "",
           summary_line(standings), "", *main_table(standings), ""]
    if standings.format_summary:
        out += [f"## {standings.format.capitalize()}", "", "```", *format_lines(standings), "```", ""]
    if standings.players == 1:
        out += [("Solo game in the duplicate format: every bot played the same seeds; points compare "
                 "the bots' scores seed by seed."), ""]
    if len(standings.bots) <= CROSSTABLE_MAX_BOTS:
        out += ["## Crosstable", "", "Points of the row bot against the column bot / comparisons.", "",
                *crosstable(standings), ""]
    if standings.seats:
        out += ["## Seats", "", "Wins are outright first places of a seat (forfeits left out).", "",
                "### Overall", "", *_table(SEAT_HEADER, seat_table(standings.seats["overall"])), "",
                "### By setup", ""]
        rows = [row for label, lines in standings.seats["by_setup"].items() for row in seat_table(lines, label)]
        out += [*_table(["setup", *SEAT_HEADER], rows), "", "### By pairing", ""]
        rows = [row for label, lines in standings.seats["by_pairing"].items() for row in seat_table(lines, label)]
        out += [*_table(["pairing", *SEAT_HEADER], rows), ""]
    return "\n".join(out)


def format_lines(standings: Standings) -> list[str]:
    """The knockout bracket (round by round) or the Swiss rounds and table; nothing for a round-robin."""
    summary = standings.format_summary
    if not summary:
        return []
    if summary["format"] == "knockout":
        out = [f"Knockout: champion {summary['champion'] or '(not decided yet)'}"]
        for number, ties in enumerate(summary["rounds"], 1):
            for tie in ties:
                if tie["b"] is None:
                    out.append(f"  round {number}: {tie['a']} (bye)")
                else:
                    points = "-".join(_num(p) for p in tie["points"])
                    out.append(f"  round {number}: {tie['a']} vs {tie['b']}  {points} in {tie['games']} games"
                               + (f"  -> {tie['winner']}" if tie["winner"] else ""))
        return out
    count = len(summary["rounds"])
    out = [f"Swiss: {count} round{'' if count == 1 else 's'}"]
    for number, rnd in enumerate(summary["rounds"], 1):
        pairs = ", ".join(f"{a}-{b}" for a, b in rnd["pairings"])
        out.append(f"  round {number}: {pairs}" + (f"; bye {rnd['bye']}" if rnd["bye"] else ""))
    rows = [[place, row["name"], _num(row["score"]), _num(row["buchholz"])]
            for place, row in enumerate(summary["table"], 1)]
    return out + _table(["#", "bot", "score", "Buchholz"], rows)


def terminal(standings: Standings) -> str:
    """What `arena tournament` and `arena standings` print."""
    out = [f"{standings.name} ({standings.game}): {summary_line(standings)}", *main_table(standings),
           *format_lines(standings)]
    if standings.seats:
        out += ["seats:", *_table(SEAT_HEADER, seat_table(standings.seats["overall"]))]
    return "\n".join(out)


def matches_header(players: int) -> list[str]:
    """The columns of matches.csv."""
    seats = [f"seat{i}_{part}" for i in range(players) for part in ("bot", "score", "rank", "time_ms")]
    return ["ord", "match", "round", "setup", "setup_label", "seed", *seats, "reason", "offender_seat",
            "offender_bot", "plies", "played", "duration_s", "log", "worker", "detail"]


def matches_rows(standings: Standings) -> list[list[Any]]:
    """One row per finished match, in schedule order."""
    rows = []
    for r in standings.records:
        seats: list[Any] = []
        for i in range(standings.players):
            time_ms = r.time_used_ms[i] if i < len(r.time_used_ms) else ""
            seats += [r.names[i], _num(r.scores[i]), r.ranks[i], time_ms]
        offender_bot = r.names[r.offender] if r.offender is not None else ""
        rows.append([r.ord, r.match, r.round, r.setup, standings.setup_labels[r.setup], r.seed, *seats, r.reason,
                     "" if r.offender is None else r.offender, offender_bot, r.plies, int(r.played),
                     r.duration_s, r.log, r.worker, r.detail])
    return rows


def write_reports(directory: str | os.PathLike[str], standings: Standings) -> list[Path]:
    """Write standings.md, standings.json and matches.csv; return their paths."""
    directory = Path(directory)
    md, js, mc = directory / STANDINGS_MD, directory / STANDINGS_JSON, directory / MATCHES_CSV
    write_atomic(md, markdown(standings))
    write_atomic(js, json.dumps(standings_data(standings), indent=1) + "\n")
    table = io.StringIO(newline="")
    writer = csv.writer(table)
    writer.writerow(matches_header(standings.players))
    writer.writerows(matches_rows(standings))
    write_atomic(mc, table.getvalue())
    return [md, js, mc]
