"""What the server tells: one line per event on stderr (text or JSON), the latest ones kept for the admin page.

An event is a record of a logger under `arena` carrying an event name (`tell`); a record
without one (a warning, an error, a line of the web server) is an event named by its level.
The levels: the default shows the events of the contest (uploads, builds, validations,
versions, the ladder's progress and rest, the finals, the admin's actions, every warning and
error); -v adds each ladder game and the web server's access lines; -q keeps warnings and
errors. The start and stop lines are shown at every level. The admin page shows the latest
RECENT events of INFO and above, whatever the terminal's level.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

EVENTS = logging.getLogger("arena.server.events")
RECENT = 200  # events the admin page can show
ALWAYS = ("start", "stop")  # shown even with -q: where the server listens, and that it ended
FORMATS = ("text", "json")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def tell(event: str, message: str, *args: Any, level: int = logging.INFO, exc_info: bool = False,
         **fields: Any) -> None:
    """Tell one event: message %-formatted with args; fields are added to its JSON form (exc_info: the exception)."""
    EVENTS.log(level, message, *args, exc_info=exc_info, extra={"event": event, "fields": fields})


def event_of(record: logging.LogRecord) -> str:
    """The event name of a record: its own, else its level's (error, warning), else its logger's."""
    named = getattr(record, "event", "")
    if named:
        return str(named)
    if record.levelno >= logging.WARNING:
        return "error" if record.levelno >= logging.ERROR else "warning"
    return record.name.split(".")[0]


def stamp(created: float) -> str:
    """A record's time as the lines show it (local time, to the second)."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(created))


def one_line(text: str) -> str:
    """Text as one printable line: line breaks become ' | ', other control characters \\xNN.

    An event may quote what an entrant wrote (a file's name, an archive's build command): a
    terminal escape in it must not reach the organiser's terminal as one.
    """
    if "\n" in text or "\r" in text:
        text = " | ".join(part for part in text.splitlines() if part.strip())
    return CONTROL.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


def summary(record: logging.LogRecord) -> str:
    """The record's message, with its exception's last line when it carries one."""
    message = one_line(record.getMessage())
    if record.exc_info and record.exc_info[1] is not None:
        error = record.exc_info[1]
        message += f": {type(error).__name__}: {one_line(str(error))}"
    return message


class TextFormat(logging.Formatter):
    """`2026-05-04 10:00:03 INFO build: alice v2: built in 0.8 s` (with -v, an error's traceback below it)."""

    def __init__(self, tracebacks: bool = False) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        """One line (and a traceback with -v)."""
        line = f"{stamp(record.created)} {record.levelname} {event_of(record)}: {summary(record)}"
        if self.tracebacks and record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


class JsonFormat(logging.Formatter):
    """One JSON object per line: time, level, event, message and the event's own fields."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as one JSON line."""
        data: dict[str, Any] = {"time": stamp(record.created), "level": record.levelname.lower(),
                                "event": event_of(record), "message": summary(record)}
        data |= getattr(record, "fields", {}) or {}
        if record.exc_info:
            data["traceback"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str)


@dataclass(frozen=True)
class Event:
    """An event as the admin page shows it."""

    time: str
    level: str
    event: str
    message: str


class Recent(logging.Handler):
    """The latest events of INFO and above, newest last."""

    def __init__(self, size: int = RECENT) -> None:
        super().__init__(logging.INFO)
        self.events: deque[Event] = deque(maxlen=size)
        self.guard = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        """Keep one record."""
        event = Event(stamp(record.created), record.levelname.lower(), event_of(record), summary(record))
        with self.guard:
            self.events.append(event)

    def latest(self, count: int = 50) -> list[Event]:
        """The latest count events, newest first."""
        with self.guard:
            return list(self.events)[-count:][::-1]


class Always(logging.Filter):
    """Passes records at the handler's level, and the start and stop lines at any level."""

    def __init__(self, level: int) -> None:
        super().__init__()
        self.level = level

    def filter(self, record: logging.LogRecord) -> bool:
        """Whether the terminal shows the record."""
        return record.levelno >= self.level or getattr(record, "event", "") in ALWAYS


RECENT_EVENTS = Recent()


def keep_recent() -> Recent:
    """The process's recent events, kept from the arena's loggers and the web server's errors (idempotent)."""
    for name in ("arena", "uvicorn.error"):
        logger = logging.getLogger(name)
        if RECENT_EVENTS not in logger.handlers:
            logger.addHandler(RECENT_EVENTS)
    arena = logging.getLogger("arena")
    if arena.getEffectiveLevel() > logging.INFO:  # the events are made even when the terminal shows fewer
        arena.setLevel(logging.INFO)
    return RECENT_EVENTS


def configure(verbosity: int, form: str = "text") -> None:
    """Log every event to stderr, one line each: verbosity 1 (-v) adds games and access lines, -1 (-q) only warnings."""
    level = logging.DEBUG if verbosity > 0 else logging.WARNING if verbosity < 0 else logging.INFO
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormat() if form == "json" else TextFormat(tracebacks=verbosity > 0))
    handler.addFilter(Always(level))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.WARNING)  # other libraries' information and debugging stay out, -v or not
    logging.getLogger("arena").setLevel(logging.DEBUG if verbosity > 0 else logging.INFO)
    web = logging.INFO if verbosity > 0 else logging.WARNING  # its start-up lines and access log: with -v
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).setLevel(web)
    keep_recent()
