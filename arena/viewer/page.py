"""Self-contained HTML pages: one file, inline CSS/JS/SVG, the match data embedded as JSON."""

from __future__ import annotations

import html
import json
import os
from importlib import resources
from pathlib import Path
from string import Template
from typing import Any

from arena.games import game_file
from arena.kit.drawing import kit_script
from arena.logs.matchlog import MatchLog, read_log
from arena.viewer.frames import match_data

# The page may not fetch anything: the policy makes the browser refuse any request, so a
# stray reference fails loudly in tests instead of leaking a viewer's IP to a server.
CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:"
LIVE_RELOAD_S = 3  # how often the page of a game being played reloads

PAGE = Template("""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="$csp">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">$head
<title>$title</title>
<style>
$css
</style>
</head>
<body class="$body_class">
$body
</body>
</html>
""")

MATCH_BODY = Template("""<header>
<h1>$heading</h1>
<div class="meta">$meta</div>
<div class="meta">$badges</div>
</header>
<main>
<div id="stage"><p id="drawing-note" class="note" hidden></p>
<svg id="board" xmlns="http://www.w3.org/2000/svg" role="img" aria-label="board"></svg></div>
<aside>
<div class="panel">
<div class="controls">
<button id="first" title="first position (Home)">|&#x25C0;</button>
<button id="back" title="step back (&#x2190;)">&#x25C0; back</button>
<button id="play" title="play / pause (space)">&#x25B6; play</button>
<button id="forward" title="step forward (&#x2192;)">forward &#x25B6;</button>
<button id="last" title="last position (End)">&#x25B6;|</button>
<select id="speed" title="plies per second"><option value="1">1/s</option><option value="2">2/s</option>
<option value="4" selected>4/s</option><option value="10">10/s</option><option value="30">30/s</option></select>
<span id="ply"></span>
</div>
<input id="slider" type="range" min="0" max="0" value="0" aria-label="ply">
$views<div id="current"></div>
<ul id="events"></ul>
<div class="keys">keys: &#x2190; &#x2192; step, Home / End, space play/pause$view_keys</div>
</div>
<div class="panel"><h2>Clocks</h2>
<table><thead><tr><th>seat</th><th>time left</th><th class="num"></th><th class="num">this move</th>
<th class="num">score</th></tr></thead><tbody id="clocks"></tbody></table></div>
<div class="panel" id="result"><h2>Result</h2>$result</div>
<div class="panel"><h2>Moves</h2><ol id="moves"></ol></div>
$output
</aside>
</main>
<script type="application/json" id="arena-data">$data</script>
<script>
$kit
</script>
<script>
window.arenaDraw = (function (kit) {
"use strict";
$draw
return typeof draw === "function" ? draw : null;
})(kit);
</script>
<script>
$js
</script>
""")


def static_text(name: str) -> str:
    """The text of a file in arena/viewer/static (package data)."""
    return resources.files("arena.viewer").joinpath("static", name).read_text(encoding="utf-8")


def game_drawing(game: str) -> str:
    """The game's draw.js, made safe inside a <script> element ("" for a game without one)."""
    path = game_file(game, "draw.js")
    if path is None:
        return ""
    return path.read_text(encoding="utf-8").replace("</", "<\\/")  # a string holding "</script>" ends nothing


def embed_json(value: Any) -> str:
    """JSON safe inside a <script> element: no '<', '>' or '&' can end it early."""
    text = json.dumps(value, separators=(",", ":"), default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page(title: str, body: str, body_class: str = "", head: str = "") -> str:
    """A complete page around body, with the shared stylesheet inline (and head's extra elements)."""
    return PAGE.substitute(csp=CSP, title=html.escape(title), css=static_text("viewer.css"),
                           body=body, body_class=body_class, head=head)


def _result_html(data: dict[str, Any]) -> str:
    result = data["result"]
    names = data["names"]
    if data.get("live"):
        turns = len(data["frames"]) - 1
        return f"<p><b>In progress:</b> {turns} turn{'' if turns == 1 else 's'} played so far.</p>"
    if result is None:
        return f"<p><b>No result:</b> {html.escape(data['truncation'])}</p>"
    rows = "".join(
        f"<tr><td><span class='name' title='{html.escape(name)}'>{i} {html.escape(name)}</span></td>"
        f"<td class='num'>{result['scores'][i]:g}</td>"
        f"<td class='num'>{result['ranks'][i]}</td></tr>"
        for i, name in enumerate(names) if i < len(result["scores"])
    )
    offender = result.get("offender")
    why = f"reason <b>{html.escape(str(result['reason']))}</b>"
    if offender is not None:
        why += f", offender seat {offender} ({html.escape(names[offender] if offender < len(names) else '?')})"
    if result.get("detail"):
        why += f": {html.escape(str(result['detail']))}"
    return (f"<p>{why}; {result['plies']} plies</p><table><thead><tr><th>seat</th><th class='num'>score</th>"
            f"<th class='num'>rank</th></tr></thead><tbody>{rows}</tbody></table>")


def _output_html(data: dict[str, Any]) -> str:
    parts = []
    for seat, text in data["output"].items():
        name = data["names"][int(seat)] if int(seat) < len(data["names"]) else "?"
        parts.append(f"<details><summary>output of seat {seat} ({html.escape(name)})</summary>"
                     f"<pre>{html.escape(text)}</pre></details>")
    return f"<div class='panel'><h2>Bot output</h2>{''.join(parts)}</div>" if parts else ""


def _views_html(data: dict[str, Any]) -> tuple[str, str]:
    """The seat's-eye buttons and their keys' help, for a game of hidden information ("" otherwise)."""
    if not data.get("hidden"):
        return "", ""
    buttons = "".join(f"<button data-view='{seat}' title='what {html.escape(name)} sees (key {seat})'>seat {seat}"
                      f"</button>" for seat, name in enumerate(data["names"]))
    bar = (f"<div id='views' class='controls views'><span>view:</span><button data-view='all' "
           f"title='the whole truth (key a)'>all</button>{buttons}<span id='view-name'></span></div>\n")
    last = len(data["names"]) - 1
    return bar, f", 0&ndash;{last} what a seat sees, a the whole truth"


def match_page(data: dict[str, Any], back: str = "", back_label: str = "tournament report") -> str:
    """The viewer page of one match, from match_data(); back: href of the page it belongs to, named back_label."""
    names = data["names"]
    heading = f"{data['game']}: " + " vs ".join(html.escape(n) for n in names)
    clock = data["clock"]
    seed = "seed shown once the game has ended" if data["seed"] is None else f"seed {data['seed']}"
    meta = (f"match {html.escape(str(data['match']))} &middot; {seed} &middot; "
            f"{data['game']} v{data['game_version']} &middot; log format {data['format']} &middot; "
            f"budget {clock.get('budget_ms')} ms, increment {clock.get('increment_ms')} ms")
    verdict = data["verdict"]
    badges = (f"<span class='badge live' id='verdict'>&#x25CF; {html.escape(verdict['message'])}: it shows what "
              f"every seat may see</span>" if data.get("live")
              else f"<span class='badge ok' id='verdict'>&#x2713; {html.escape(verdict['message'])}</span>"
              if verdict["ok"]
              else f"<span class='badge bad' id='verdict'>&#x2717; {html.escape(verdict['message'])}</span>")
    if back:
        badges += f"<a id='back-link' href='{html.escape(back)}'>&#x2190; {html.escape(back_label)}</a>"
    if data["stopped"]:
        badges += f"<span class='badge bad'>{html.escape(data['stopped'])}</span>"
    views, view_keys = _views_html(data)
    body = MATCH_BODY.substitute(
        heading=heading, meta=meta, badges=badges, result=_result_html(data), output=_output_html(data),
        views=views, view_keys=view_keys,
        data=embed_json(data), kit=kit_script(), draw=game_drawing(data["game"]), js=static_text("viewer.js"),
    )
    # A game being played: the page reloads to show the turns played since (and the whole game once it ended).
    head = f'\n<meta http-equiv="refresh" content="{LIVE_RELOAD_S}">' if data.get("live") else ""
    return page(f"{data['game']} {data['match']}: {' vs '.join(names)}", body, "match", head)


def write_match_page(log: MatchLog | str | os.PathLike[str], out: str | os.PathLike[str]) -> Path:
    """Write the self-contained viewer page of a match log; return its path."""
    if not isinstance(log, MatchLog):
        log = read_log(log)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(match_page(match_data(log)), encoding="utf-8")
    return out
