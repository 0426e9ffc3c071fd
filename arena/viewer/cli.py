"""The `arena view` subcommand and the `arena replay` command body (with `--bot SEAT=BOT`).

arena/cli.py hooks these in: `register(sub)` adds `view`, `add_replay_arguments(r)` adds
`--bot` to `replay`, and `run_replay(args)` is the whole `replay` command. Errors are
reported here as one line on stderr with exit status 2, as arena/cli.py does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.botspec import BotSpecError, parse_bot_spec
from arena.games import UnknownGame
from arena.matchlog import LogError, MatchLog, read_log
from arena.replay import render_replay, verify
from arena.viewer.rerun import RerunError, rerun

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _error(command: str, message: str) -> int:
    print(f"arena {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--bot SEAT[=BOT]` to the `replay` parser."""
    parser.add_argument("--bot", action="append", default=[], metavar="SEAT=BOT",
                        help="re-run BOT (default: the logged bot) on SEAT's logged messages; "
                             "exit 1 at the first move that differs")


def register(sub: Any) -> argparse.ArgumentParser:
    """Add the `view` subcommand to the subparsers of `arena`."""
    view = sub.add_parser("view", help="write a self-contained HTML viewer of a match log or tournament directory")
    view.add_argument("path", metavar="LOG|DIR", help="a match log, its JSON dump, or a tournament output directory")
    view.add_argument("--html", required=True, metavar="OUT", help="the HTML file to write")
    view.set_defaults(func=cmd_view)
    return view


def cmd_view(args: argparse.Namespace) -> int:
    """Write the viewer page of a log, or the report page of a tournament directory."""
    from arena.viewer.page import write_match_page
    from arena.viewer.report import ReportError, write_report

    path = Path(args.path)
    try:
        if path.is_dir():
            out, pages = write_report(path, args.html)
            print(f"wrote {out} and {pages} match page(s) beside it")
        else:
            out = write_match_page(read_log(path), args.html)
            print(f"wrote {out}")
    except (LogError, ReportError, UnknownGame) as exc:
        return _error("view", str(exc))
    except OSError as exc:
        return _error("view", f"cannot write {args.html}: {exc.strerror}")
    return EXIT_OK


def run_replay(args: argparse.Namespace) -> int:
    """The `arena replay` command: print, dump (--json), verify (--verify) or re-run bots (--bot)."""
    try:
        log = read_log(args.log)
    except LogError as exc:
        return _error("replay", str(exc))
    if getattr(args, "bot", None):
        return rerun_bots(log, args.bot)
    if args.json:
        print(json.dumps(log.to_json_data(), indent=1, default=str))
        return EXIT_OK
    try:
        if args.verify:
            return _verify(log)
        lines = list(render_replay(log, args.at))
    except UnknownGame as exc:
        return _error("replay", str(exc))
    for line in lines:
        print(line)
    if args.at is not None and args.at > len(log.moves):
        return EXIT_USAGE
    return EXIT_OK


def _verify(log: MatchLog) -> int:
    verdict = verify(log)
    print(("OK " if verdict.ok else "FAILED ") + verdict.message)
    if verdict.truncated:
        names = log.names
        print(f"log is truncated: it holds {len(log.moves)} plies:")
        for record in log.moves:
            seat = record["seat"]
            print(f"  ply {record['ply']}: seat {seat} ({names[seat] if 0 <= seat < len(names) else '?'}) "
                  f"plays {json.dumps(record['move'])}")
    return EXIT_OK if verdict.ok else EXIT_FAILED


def parse_seat_bot(text: str, log: MatchLog) -> tuple[int, str]:
    """`SEAT=BOT` or `SEAT` (the bot the log names for that seat) -> (seat, bot spec text)."""
    seat_text, sep, bot = text.partition("=")
    try:
        seat = int(seat_text)
    except ValueError:
        raise RerunError(f"--bot {text!r}: SEAT must be a seat number, as in 1=random") from None
    seats = log.header.get("seats", [])
    if not 0 <= seat < len(seats):
        raise RerunError(f"--bot {text!r}: the match has seats 0..{len(seats) - 1}")
    if not sep:
        bot = str(seats[seat].get("bot") or seats[seat].get("name") or "")
    return seat, bot


def rerun_bots(log: MatchLog, specs: list[str]) -> int:
    """Re-run each `SEAT=BOT` against the log; exit 1 when any bot's move differs."""
    status = EXIT_OK
    for text in specs:
        try:
            seat, bot = parse_seat_bot(text, log)
            spec = parse_bot_spec(bot, log.header["game"])
            print(f"seat {seat}: re-running {spec.text} on {log.header['match']} "
                  f"(logged bot: {log.names[seat]})")
            report = rerun(log, seat, spec)
        except (RerunError, BotSpecError) as exc:
            return _error("replay", str(exc))
        print(("OK " if report.ok else "DIFFERS ") + report.message)
        for note in report.notes:
            print(f"note: {note}")
        if not report.ok:
            status = EXIT_FAILED
            if report.output.strip():
                print("bot output:")
                for line in report.output.rstrip("\n").splitlines()[-20:]:
                    print(f"  | {line}")
    return status
