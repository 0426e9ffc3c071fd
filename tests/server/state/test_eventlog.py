"""The server's event lines: one per event, as text or JSON, at the levels -v and -q choose; the admin page's buffer."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.server.state.eventlog import RECENT_EVENTS, Recent, configure, tell
from tests.helpers import require
from tests.server.server import make_server


@pytest.fixture
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved = (root.handlers[:], root.level, {name: logging.getLogger(name).level
                                            for name in ("arena", "uvicorn", "uvicorn.error", "uvicorn.access")})
    yield
    root.handlers[:], root.level = saved[0], saved[1]
    for name, level in saved[2].items():
        logging.getLogger(name).setLevel(level)


def told(capsys: pytest.CaptureFixture[str], verbosity: int, form: str) -> list[str]:
    """The stderr lines of a few events told at the given level and form."""
    configure(verbosity, form)
    tell("start", "running on %s", "http://127.0.0.1:1/", url="http://127.0.0.1:1/")
    tell("build", "alice v2: built in %.1f s", 0.84, submission=7)
    tell("game", "game %d: alice v2 vs random", 12, level=logging.DEBUG, game=12)
    logging.getLogger("arena.server.engine.engine").warning("two lines\nof a warning")
    try:
        raise OSError("disk full")
    except OSError:
        tell("ladder", "stopped", level=logging.ERROR, exc_info=True)
    logging.getLogger("uvicorn.access").info('127.0.0.1 - "GET / HTTP/1.1" 200')
    return capsys.readouterr().err.splitlines()


def test_each_event_is_one_line_of_text_and_the_levels_choose_which(capsys: pytest.CaptureFixture[str],
                                                                    restore_logging: None) -> None:
    lines = told(capsys, 0, "text")
    assert [line.split(" ", 3)[2:] for line in lines] == [
        ["INFO", "start: running on http://127.0.0.1:1/"], ["INFO", "build: alice v2: built in 0.8 s"],
        ["WARNING", "warning: two lines | of a warning"], ["ERROR", "ladder: stopped: OSError: disk full"]]
    verbose = told(capsys, 1, "text")  # each game, the access lines, and the traceback under its error
    assert any("game: game 12" in line for line in verbose) and any("GET / HTTP/1.1" in line for line in verbose)
    assert "Traceback (most recent call last):" in verbose
    quiet = told(capsys, -1, "text")  # warnings and errors; where the server listens, always
    assert [line.split(" ", 3)[3].split(":")[0] for line in quiet] == ["start", "warning", "ladder"]


def test_json_lines_carry_the_event_and_its_fields(capsys: pytest.CaptureFixture[str], restore_logging: None) -> None:
    events = [json.loads(line) for line in told(capsys, 0, "json")]
    assert [(e["level"], e["event"]) for e in events] == [("info", "start"), ("info", "build"),
                                                          ("warning", "warning"), ("error", "ladder")]
    assert events[1]["submission"] == 7 and events[1]["message"] == "alice v2: built in 0.8 s"
    assert events[0]["url"] == "http://127.0.0.1:1/" and "OSError: disk full" in events[3]["traceback"]


def test_the_admin_page_keeps_the_latest_events_whatever_the_terminal_shows(capsys: pytest.CaptureFixture[str],
                                                                            restore_logging: None) -> None:
    told(capsys, -1, "text")
    latest = RECENT_EVENTS.latest(4)  # newest first; the game's line (debug) is not kept
    assert [(e.level, e.event, e.message) for e in latest] == [
        ("error", "ladder", "stopped: OSError: disk full"), ("warning", "warning", "two lines | of a warning"),
        ("info", "build", "alice v2: built in 0.8 s"), ("info", "start", "running on http://127.0.0.1:1/")]
    small = Recent(size=2)
    for number in range(5):
        small.emit(logging.makeLogRecord({"msg": f"event {number}", "levelno": logging.INFO, "levelname": "INFO",
                                          "name": "arena.server.events", "event": "ladder"}))
    assert [e.message for e in small.latest()] == ["event 4", "event 3"]


def test_what_an_entrant_wrote_reaches_the_terminal_as_text_not_as_escapes(capsys: pytest.CaptureFixture[str],
                                                                          restore_logging: None) -> None:
    configure(0, "text")
    tell("upload", "alice: %s refused", "bot\x1b[2J\x1b[1;1H.py\rversion: carol v9: active")  # clear, home, fake line
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "\x1b" not in line and "\r" not in line
    assert line.endswith("upload: alice: bot\\x1b[2J\\x1b[1;1H.py | version: carol v9: active refused\n")


def test_a_real_server_tells_at_the_level_its_options_choose(tmp_path: Path) -> None:
    """-q: the start and stop lines and warnings, no admin action, no access line; -v: the access lines too."""
    require("bwrap")
    lines = {}
    for level in ("-q", "-v"):
        (tmp_path / level).mkdir()
        server = make_server(tmp_path / level)
        server.start([level])
        try:
            assert server.get("/").status_code == 200
            paused = subprocess.run([sys.executable, "-m", "arena.cli", "serve", "pause", str(server.config)],
                                    capture_output=True, text=True, timeout=120)
            assert paused.returncode == 0, paused.stderr
        finally:
            server.stop()
        lines[level] = "".join(server.output).splitlines()
    quiet = [line.split(" ", 3)[2:] for line in lines["-q"]]
    assert all(level in ("WARNING", "ERROR") or event.startswith(("start: ", "stop: ")) for level, event in quiet)
    assert any(event.startswith("stop: the server stopped") for _, event in quiet)
    assert not any("admin: ladder paused" in line or '"GET / HTTP/1.1" 200' in line for line in lines["-q"])
    assert any("admin: ladder paused" in line for line in lines["-v"])
    assert any('"GET / HTTP/1.1" 200' in line for line in lines["-v"])
