"""The report page of a tournament output directory, and a viewer page for each match in it.

The directory is read defensively: standings.json and matches.csv (written by
arena/tournament/report.py) when present, else the match logs themselves, which are
self-describing. Every field is optional; a missing one shows as a dash.
"""

from __future__ import annotations

import csv
import html
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.games import UnknownGame
from arena.logs.matchlog import LogError, MatchLog, read_log
from arena.outcomes import FAILURES
from arena.viewer.frames import match_data
from arena.viewer.page import match_page, page

STANDINGS_JSON = "standings.json"
MATCHES_CSV = "matches.csv"
LOG_SUFFIXES = (".msgpack", ".json")


class ReportError(Exception):
    """A directory that holds no tournament output."""


@dataclass
class MatchRow:
    """One match of the tournament, as the report lists it."""

    match: str
    names: list[str]
    scores: list[str]
    ranks: list[str]
    reason: str = ""
    plies: str = ""
    setup: str = ""
    seed: str = ""
    log: Path | None = None
    page: str = ""  # href of its viewer page, relative to the report
    verdict: str = ""  # "ok", or why the log does not verify / could not be shown
    extra: dict[str, str] = field(default_factory=dict)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _rows_from_csv(directory: Path) -> list[MatchRow] | None:
    path = directory / MATCHES_CSV
    try:
        with open(path, newline="", encoding="utf-8") as f:
            table = list(csv.DictReader(f))
    except (OSError, csv.Error, UnicodeDecodeError):
        return None
    rows: list[MatchRow] = []
    for line in table:
        seats = sorted({int(m.group(1)) for key in line if (m := re.fullmatch(r"seat(\d+)_bot", key or ""))})
        log = (line.get("log") or "").strip()
        rows.append(MatchRow(
            match=line.get("match") or f"#{line.get('ord', len(rows))}",
            names=[line.get(f"seat{i}_bot") or "" for i in seats],
            scores=[line.get(f"seat{i}_score") or "" for i in seats],
            ranks=[line.get(f"seat{i}_rank") or "" for i in seats],
            reason=line.get("reason") or "", plies=line.get("plies") or "",
            setup=line.get("setup_label") or line.get("setup") or "", seed=line.get("seed") or "",
            log=(directory / log) if log else None,
            extra={"offender": line.get("offender_bot") or "", "detail": line.get("detail") or ""},
        ))
    return rows


def _rows_from_logs(directory: Path) -> list[MatchRow]:
    rows = []
    for path in sorted(p for p in directory.rglob("*") if p.suffix in LOG_SUFFIXES and p.is_file()):
        if path.name == STANDINGS_JSON:
            continue
        try:
            log = read_log(path)
        except LogError:
            continue
        result = log.result or {}
        rows.append(MatchRow(
            match=str(log.header.get("match", path.stem)), names=log.names,
            scores=[f"{s:g}" for s in result.get("scores", [])], ranks=[str(r) for r in result.get("ranks", [])],
            reason=str(result.get("reason", "truncated")), plies=str(result.get("plies", log.plies)),
            seed=str(log.header.get("seed", "")), log=path,
        ))
    return rows


def _fallback_standings(rows: list[MatchRow]) -> dict[str, Any]:
    """Points, W/D/L and a crosstable from the match list, when standings.json is missing."""
    bots: dict[str, dict[str, Any]] = {}
    cross: dict[str, dict[str, dict[str, float]]] = defaultdict(
        lambda: defaultdict(lambda: {"points": 0.0, "games": 0}))
    for row in rows:
        try:
            ranks = [int(r) for r in row.ranks]
        except ValueError:
            continue
        for i, name in enumerate(row.names):
            line = bots.setdefault(name, {"name": name, "games": 0, "wins": 0, "draws": 0, "losses": 0, "points": 0.0})
            line["games"] += 1
            for j, other in enumerate(row.names):
                if i == j:
                    continue
                points = 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0
                line["points"] += points
                cross[name][other]["points"] += points
                cross[name][other]["games"] += 1
            best = min(ranks)
            if ranks[i] == best and ranks.count(best) == 1:
                line["wins"] += 1
            elif ranks[i] == best:
                line["draws"] += 1
            else:
                line["losses"] += 1
    order = sorted(bots.values(), key=lambda b: -b["points"])
    for place, line in enumerate(order, start=1):
        line["place"] = place
    return {"bots": order, "crosstable": {a: dict(row) for a, row in cross.items()}}


def _esc(value: Any) -> str:
    return "&ndash;" if value is None or value == "" else html.escape(str(value))


def _num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return _esc(value)
    return f"{value:g}" if value == int(value) else f"{value:.{digits}f}"


def _interval_svg(rating: dict[str, Any], lo: float, hi: float) -> str:
    span = (hi - lo) or 1.0

    def x(v: float) -> float:
        return 4 + 152 * (v - lo) / span

    return (f"<svg width='160' height='14' role='img' aria-label='interval'>"
            f"<line x1='{x(rating['low']):.1f}' x2='{x(rating['high']):.1f}' y1='7' y2='7' stroke='#1f77b4' "
            f"stroke-width='3'/><circle cx='{x(rating['value']):.1f}' cy='7' r='4' fill='#d62728'/></svg>")


def _standings_html(standings: dict[str, Any]) -> str:
    bots = [b for b in standings.get("bots", []) if isinstance(b, dict)]
    two = standings.get("players", 2) == 2
    ratings = [b["rating"] for b in bots if isinstance(b.get("rating"), dict)
               and all(isinstance(b["rating"].get(k), (int, float)) for k in ("value", "low", "high"))]
    lo = min((r["low"] for r in ratings), default=0.0)
    hi = max((r["high"] for r in ratings), default=1.0)
    head = ["#", "bot", "games", *(["W", "D", "L"] if two else ["mean score", "mean rank"]), "points", "points %",
            "rating", "95 % interval", "", "failures", "status"]
    rows = []
    for b in bots:
        rating: dict[str, Any] | None = b["rating"] if isinstance(b.get("rating"), dict) else None
        share = b.get("points_share")
        failures: dict[str, Any] = b["failures"] if isinstance(b.get("failures"), dict) else {}
        status = "disqualified" if b.get("disqualified") else (f"{b['strikes']} strikes" if b.get("strikes") else "ok")
        cells = [b.get("place"), b.get("name"), b.get("games"),
                 *([b.get("wins"), b.get("draws"), b.get("losses")] if two
                   else [b.get("mean_score"), b.get("mean_rank")]),
                 b.get("points"), None if share is None else 100 * share,
                 rating.get("value") if rating else None,
                 f"{_num(rating.get('low'), 1)} .. {_num(rating.get('high'), 1)}" if rating else None]
        tds = "".join(f"<td class='num'>{_num(c, 1)}</td>" if i != 1 else f"<td class='bot'>{_esc(c)}</td>"
                      for i, c in enumerate(cells))
        graph = _interval_svg(rating, lo, hi) if rating is not None and rating in ratings else ""
        fail = ", ".join(f"{k} {v}" for k, v in sorted(failures.items()))
        rows.append(f"<tr data-bot='{_esc(b.get('name'))}'>{tds}<td>{graph}</td><td>{_esc(fail)}</td>"
                    f"<td>{_esc(status)}</td></tr>")
    method = next((r.get("method") for r in ratings if r.get("method")), "")
    note = f"<p>Ratings: {_esc(method)}, with 95 % intervals.</p>" if method else "<p>No ratings available.</p>"
    return (f"<section id='standings'><h2>Standings</h2>{note}<table><thead><tr>"
            + "".join(f"<th class='num'>{h}</th>" if i != 1 and i < len(head) - 3 else f"<th>{h}</th>"
                      for i, h in enumerate(head)) + f"</tr></thead><tbody>{''.join(rows)}</tbody></table></section>")


def _crosstable_html(standings: dict[str, Any]) -> str:
    cross = standings.get("crosstable")
    names = [b.get("name") for b in standings.get("bots", []) if isinstance(b, dict)]
    if not isinstance(cross, dict) or not names:
        return ""
    rows = []
    for a in names:
        cells = []
        for b in names:
            cell = cross.get(a, {}).get(b) if isinstance(cross.get(a), dict) else None
            if a == b:
                cells.append("<td class='self'></td>")
            elif isinstance(cell, dict) and cell.get("games"):
                share = cell["points"] / cell["games"]
                kind = "win" if share > 0.5 else "loss" if share < 0.5 else "draw"
                cells.append(f"<td class='num {kind}'>{_num(cell['points'])} / {cell['games']}</td>")
            else:
                cells.append("<td class='num'>&ndash;</td>")
        rows.append(f"<tr><th class='bot'>{_esc(a)}</th>{''.join(cells)}</tr>")
    head = "".join(f"<th class='num bot'>{_esc(n)}</th>" for n in names)
    return (f"<section id='crosstable'><h2>Crosstable</h2><p>Points of the row bot against the column bot "
            f"/ comparisons.</p><table><thead><tr><th>vs</th>{head}</tr></thead><tbody>{''.join(rows)}"
            f"</tbody></table></section>")


def _seat_rows(lines: Any, label: str = "") -> str:
    out = []
    for s in lines if isinstance(lines, list) else []:
        if not isinstance(s, dict):
            continue
        rate = s.get("win_rate")
        cells = [s.get("seat"), s.get("matches"), s.get("wins"), s.get("draws"),
                 None if rate is None else 100 * rate, s.get("mean_rank"), s.get("mean_score")]
        out.append("<tr>" + (f"<td>{_esc(label)}</td>" if label else "")
                   + "".join(f"<td class='num'>{_num(c)}</td>" for c in cells) + "</tr>")
    return "".join(out)


def _seats_html(standings: dict[str, Any]) -> str:
    seats = standings.get("seats")
    if not isinstance(seats, dict) or not seats:
        return ""
    head = "".join(f"<th class='num'>{h}</th>" for h in ("seat", "matches", "wins", "shared 1st", "win %", "mean rank",
                                                       "mean score"))
    parts = [f"<h3>Overall</h3><table><thead><tr>{head}</tr></thead><tbody>{_seat_rows(seats.get('overall'))}"
             f"</tbody></table>"]
    for key, title in (("by_setup", "By setup"), ("by_pairing", "By pairing")):
        groups = seats.get(key)
        if isinstance(groups, dict) and groups:
            body = "".join(_seat_rows(lines, label) for label, lines in groups.items())
            parts.append(f"<h3>{title}</h3><table><thead><tr><th>{title[3:]}</th>{head}</tr></thead>"
                         f"<tbody>{body}</tbody></table>")
    return f"<section id='seats'><h2>Seat statistics</h2>{''.join(parts)}</section>"


SHOWN_AT_FIRST = 100  # rows before "show all": a long tournament's table stays readable

# Filters the matches table in place: every word typed must occur in a row (bot, setup, reason, id);
# "failures only" keeps rows whose reason is a failure. Without JavaScript every row shows.
MATCH_FILTER_JS = """(function () {
  var box = document.getElementById('match-filter'), rows = [].slice.call(
    document.querySelectorAll('#match-table tbody tr'));
  var search = document.getElementById('match-search'), failures = document.getElementById('match-failures');
  var more = document.getElementById('match-more'), count = document.getElementById('match-count');
  var all = false;
  box.hidden = false;
  function update() {
    var words = search.value.toLowerCase().split(/\\s+/).filter(Boolean), shown = 0, hits = 0;
    rows.forEach(function (row) {
      var text = row.textContent.toLowerCase();
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; }) &&
                (!failures.checked || row.dataset.failure === '1');
      var show = hit && (all || words.length > 0 || failures.checked || hits < FIRST);
      hits += hit ? 1 : 0;
      shown += show ? 1 : 0;
      row.hidden = !show;
    });
    count.textContent = 'showing ' + shown + ' of ' + rows.length;
    more.hidden = all || shown >= hits;
  }
  search.addEventListener('input', update);
  failures.addEventListener('change', update);
  more.addEventListener('click', function () { all = true; update(); });
  update();
})();""".replace("FIRST", str(SHOWN_AT_FIRST))


def _matches_html(rows: list[MatchRow]) -> str:
    seats = max((len(r.names) for r in rows), default=0)
    head = "".join(f"<th>seat {i}</th>" for i in range(seats))
    body = []
    for row in rows:
        link = (f"<a href='{html.escape(row.page)}' data-match='{_esc(row.match)}'>{_esc(row.match)}</a>"
                if row.page else _esc(row.match))
        seat_cells = "".join(
            f"<td class='bot'>{_esc(row.names[i] if i < len(row.names) else '')} "
            f"<b>{_esc(row.scores[i] if i < len(row.scores) else '')}</b></td>" for i in range(seats))
        verdict = ("&#x2713;" if row.verdict == "ok" else f"<span title='{_esc(row.verdict)}'>&#x2717; "
                   f"{_esc(row.verdict[:60])}</span>" if row.verdict else "&ndash;")
        failure = "1" if row.reason in FAILURES else "0"
        body.append(f"<tr data-failure='{failure}'><td>{link}</td><td>{_esc(row.setup)}</td>{seat_cells}"
                    f"<td>{_esc(row.reason)}</td><td class='num'>{_esc(row.plies)}</td><td>{verdict}</td></tr>")
    controls = ("<div id='match-filter' class='meta' hidden><input type='search' id='match-search' "
                "placeholder='filter: bot, setup, reason, match' aria-label='filter the matches'> "
                "<label><input type='checkbox' id='match-failures'> failures only</label> "
                "<span id='match-count'></span> <button type='button' id='match-more'>show all</button></div>")
    return (f"<section id='matches'><h2>Matches ({len(rows)})</h2>{controls}<table id='match-table'><thead><tr>"
            f"<th>match</th><th>setup</th>{head}<th>reason</th><th class='num'>plies</th><th>log verifies</th>"
            f"</tr></thead><tbody>{''.join(body)}</tbody></table><script>{MATCH_FILTER_JS}</script></section>")


def _safe_name(match: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]", "_", match)[:100] or "match"


def write_report(directory: str | os.PathLike[str], out: str | os.PathLike[str],
                 source: str | None = None) -> tuple[Path, int]:
    """Write the report page of a tournament directory and a viewer page per match log.

    The match pages go to `<OUT stem>_matches/` beside OUT; returns (OUT, pages written).
    source: where the page says the results come from (default: the directory; "": nowhere,
    for a page the public reads, which has no business knowing the host's paths).
    """
    directory, out = Path(directory), Path(out)
    standings = _read_json(directory / STANDINGS_JSON)
    rows = _rows_from_csv(directory)
    if rows is None:
        rows = _rows_from_logs(directory)
    if standings is None and not rows:
        raise ReportError(f"{directory}: no {STANDINGS_JSON}, {MATCHES_CSV} or match logs")
    if standings is None:
        standings = _fallback_standings(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    pages_dir = out.parent / f"{out.stem}_matches"
    written = 0
    for row in rows:
        if row.log is None or not row.log.is_file():
            row.verdict = "no log" if row.log is None else "log missing"
            continue
        try:
            log: MatchLog = read_log(row.log)
            data = match_data(log)
        except (LogError, UnknownGame) as exc:
            row.verdict = str(exc)
            continue
        row.verdict = "ok" if data["verdict"]["ok"] else data["verdict"]["message"]
        target = pages_dir / f"{_safe_name(row.match)}.html"
        pages_dir.mkdir(exist_ok=True)
        target.write_text(match_page(data, back=os.path.relpath(out, pages_dir)), encoding="utf-8")
        row.page = f"{pages_dir.name}/{target.name}"
        written += 1
    name = standings.get("name") or directory.name
    matches: dict[str, Any] = standings["matches"] if isinstance(standings.get("matches"), dict) else {}
    reasons: dict[str, Any] = standings["reasons"] if isinstance(standings.get("reasons"), dict) else {}
    meta = (f"{_esc(standings.get('game'))} &middot; {_esc(standings.get('players'))} players per match &middot; "
            f"{_esc(matches.get('finished', len(rows)))} / {_esc(matches.get('scheduled', len(rows)))} matches"
            + (" (incomplete)" if standings.get("complete") is False else "")
            + (" &middot; reasons: " + ", ".join(f"{_esc(k)} {_esc(v)}" for k, v in reasons.items())
               if reasons else ""))
    body = (f"<header><h1>Tournament {_esc(name)}</h1><div class='meta'>{meta}</div>"
            + (f"<div class='meta'>from {_esc(str(directory) if source is None else source)}</div>"
               if source != "" else "")
            + "</header><main class='report' "
            f"style='display:block;padding:16px 0'>{_standings_html(standings)}{_crosstable_html(standings)}"
            f"{_seats_html(standings)}{_matches_html(rows)}</main>")
    out.write_text(page(f"Tournament {name}", body, "report"), encoding="utf-8")
    return out, written
