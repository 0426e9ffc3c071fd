"""The `arena view` subcommand and the `arena replay` command body (with `--bot SEAT=BOT`).

arena/cli/main.py hooks these in: `register(sub)` adds `view`, `add_replay_arguments(r)` adds
`--bot` and `--key` to `replay`, and `run_replay(args)` is the whole `replay` command. Errors
are reported here as one line on stderr with exit status 2, as arena/cli/main.py does.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from arena.games import UnknownGame
from arena.kit.terminal import Terminal, colour_wanted
from arena.kit.views import view_for
from arena.launch.specs.botspec import BotSpecError, parse_bot_spec
from arena.logs.matchlog import LogError, MatchLog, parse_log, read_log, read_log_bytes
from arena.logs.replay import Board, render_replay, verify
from arena.logs.signing import (
    KeyFileError,
    Signature,
    SignatureStatus,
    check_signature,
    find_key,
    results_dir_of,
)
from arena.viewer.rerun import RerunError, rerun

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _error(command: str, message: str) -> int:
    print(f"arena {command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE


def add_replay_arguments(parser: argparse.ArgumentParser) -> None:
    """Add `--bot SEAT[=BOT]` and `--key FILE` to the `replay` parser."""
    parser.add_argument("--bot", action="append", default=[], metavar="SEAT=BOT",
                        help="re-run BOT (default: the logged bot) on SEAT's logged messages; "
                             "exit 1 at the first move that differs")
    parser.add_argument("--key", metavar="FILE",
                        help="check the log's signature with this key file (default: the results "
                             "directory's log.key for DIR/logs/LOG, else your own key)")


def register(sub: Any) -> argparse.ArgumentParser:
    """Add the `view` subcommand to the subparsers of `arena`."""
    view = sub.add_parser("view", help="write a self-contained HTML viewer of a match log or tournament directory")
    view.add_argument("path", metavar="LOG|DIR", help="a match log, its JSON dump, or a tournament output directory")
    view.add_argument("--html", metavar="OUT",
                      help="the HTML file to write (default: beside the log, LOG.html; for DIR, DIR/report.html)")
    view.set_defaults(func=cmd_view)
    return view


def cmd_view(args: argparse.Namespace) -> int:
    """Write the viewer page of a log, or the report page of a tournament directory."""
    from arena.viewer.page import write_match_page
    from arena.viewer.report import ReportError, write_report

    path = Path(args.path)
    if args.html is None:
        args.html = str(path / "report.html") if path.is_dir() else str(path.with_name(path.name + ".html")
                                                                          if path.suffix != ".msgpack"
                                                                          else path.with_suffix(".html"))
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
        data = read_log_bytes(args.log)
        log = parse_log(data, str(args.log))
    except LogError as exc:
        return _error("replay", str(exc))
    if getattr(args, "bot", None):
        return rerun_bots(log, args.bot)
    if args.json or args.verify:
        try:
            key, where = find_key(args.log, getattr(args, "key", None))
        except KeyFileError as exc:
            return _error("replay", str(exc))
        signature = check_signature(data, key)
        if args.json:
            dump = log.to_json_data()
            dump["signature"] = {"status": str(signature.status), "records": signature.records,
                                 "key_id": signature.key_id, "detail": signature.detail}
            print(json.dumps(dump, indent=1, default=str))
            return EXIT_OK
        try:
            return _verify(log, signature, where, _signature_expected(args))
        except UnknownGame as exc:
            return _error("replay", str(exc))
    try:
        lines = list(render_replay(log, args.at, _terminal_board(log)))
    except UnknownGame as exc:
        return _error("replay", str(exc))
    for line in lines:
        print(line)
    if args.at is not None and args.at > log.plies:
        return EXIT_USAGE
    return EXIT_OK


def _terminal_board(log: MatchLog) -> Board:
    """The game's terminal view of a position, as `arena match --show` and `arena play` draw it."""
    header = log.header
    view = view_for(header["game"], Terminal(colour_wanted("auto", sys.stdout)), log.names, [])
    return view.board


def _signature_expected(args: argparse.Namespace) -> str:
    """Why the log must be signed ("" when an unsigned log is acceptable)."""
    if getattr(args, "key", None):
        return "--key was given"
    directory = results_dir_of(args.log)
    if directory is not None:
        return f"every log of the results directory {directory} is signed with its log.key"
    return ""


def signature_line(signature: Signature, where: str, expected: str = "") -> tuple[bool, str]:
    """(whether the signature is acceptable, the line `arena replay --verify` prints about it)."""
    status, key = signature.status, signature.key_id
    if status is SignatureStatus.SIGNED:
        return True, f"signature: signed by key {key} ({where}), all {signature.records} records"
    if status is SignatureStatus.UNKNOWN_KEY:
        why = f" ({where})" if where else ""
        return True, f"signature: signed by key {key}, which is not available here{why}: --key FILE checks it"
    if status is SignatureStatus.UNSIGNED:
        if expected:
            return False, f"signature: UNSIGNED ({signature.detail}), but {expected}"
        return True, f"signature: unsigned ({signature.detail})"
    if status is SignatureStatus.TRUNCATED:
        return False, f"signature: TRUNCATED (key {key}, {where}): {signature.detail}"
    return False, f"signature: FORGED: {signature.detail}" + (f" ({where})" if where else "")


def _verify(log: MatchLog, signature: Signature, where: str, expected: str) -> int:
    verdict = verify(log)
    signed, line = signature_line(signature, where, expected)
    if verdict.ok and not signed:
        print(f"FAILED the re-simulation agrees ({verdict.message}), but the signature does not")
    else:
        print(("OK " if verdict.ok else "FAILED ") + verdict.message)
    print(line)
    if verdict.truncated:
        names = log.names
        print(f"log is truncated: it holds {log.plies} plies:")
        for record in log.moves:
            seat = record["seat"]
            print(f"  ply {record['ply']}: seat {seat} ({names[seat] if 0 <= seat < len(names) else '?'}) "
                  f"plays {json.dumps(record['move'])}")
    return EXIT_OK if verdict.ok and signed else EXIT_FAILED


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
            try:
                spec = parse_bot_spec(bot, log.header["game"])
            except BotSpecError:
                if "=" in text:
                    raise
                # The seat was not played by a bot (a person at the terminal): there is nothing to start.
                raise RerunError(f"--bot {text}: seat {seat} was played by {bot!r}, not a bot that can be re-run; "
                                 f"name one, as in {seat}=BOT") from None
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
