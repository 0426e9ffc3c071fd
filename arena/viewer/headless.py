"""Headless Chromium, driven by Playwright: does a viewer page draw every frame of its match?

Used by `arena check-game` on a game's draw.js. Playwright (the Python package) and a Chromium
(Debian's `chromium`, or ARENA_CHROMIUM) are needed; without them the check says so.
"""

from __future__ import annotations

import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Never let Playwright fetch a browser, and keep Chromium from phoning home on its own.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]
CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")
PAGE_TIMEOUT_MS = 60_000


def chromium_path() -> str | None:
    """The Chromium to run: ARENA_CHROMIUM, else the first one installed."""
    wanted = os.environ.get("ARENA_CHROMIUM")
    for candidate in ([wanted] if wanted else CANDIDATES):
        found = candidate if Path(candidate).is_file() else shutil.which(candidate)
        if found:
            return found
    return None


def missing_browser() -> str:
    """Why a page cannot be drawn here, or "" when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    if chromium_path() is None:
        where = os.environ.get("ARENA_CHROMIUM") or "/usr/bin/chromium"
        return f"no Chromium at {where} (apt-get install chromium, or set ARENA_CHROMIUM)"
    return ""


@dataclass
class Drawn:
    """What the page did while every frame was shown: errors, and the frames it drew as text instead."""

    frames: int
    errors: list[str] = field(default_factory=list)
    seat_views: int = 0  # the seats whose own view was stepped through too (a game of hidden information)


def draw_every_frame(page_path: Path, frames: int) -> Drawn:
    """Open a viewer page and step through every frame; any script error or fallback to text is an error.

    In a game of hidden information every seat's view of every frame is drawn as well (its key).
    """
    # Playwright's sync API refuses a thread that already runs one (a test session's browser): use a thread of its own.
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(_draw_every_frame, page_path, frames).result()


def _draw_every_frame(page_path: Path, frames: int) -> Drawn:
    from playwright.sync_api import sync_playwright

    drawn = Drawn(frames)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.on("pageerror", lambda exc: drawn.errors.append(f"script error: {exc}"))
            page.on("console", lambda m: drawn.errors.append(f"console {m.type}: {m.text}")
                    if m.type == "error" else None)
            page.goto(page_path.resolve().as_uri())
            seats = page.evaluate("() => kit.data.hidden ? kit.data.names.length : 0")
            drawn.seat_views = seats
            for view in ["", *map(str, range(seats))]:
                if view:
                    page.keyboard.press("Home")
                    page.keyboard.press(view)
                if not _step(page, frames, drawn, f"seat {view}'s view, " if view else ""):
                    break
        finally:
            browser.close()
    return drawn


def _step(page: Any, frames: int, drawn: Drawn, which: str) -> bool:
    """Step through every frame of the view shown; False at the first that is not drawn."""
    for ply in range(frames):
        if ply:
            page.keyboard.press("ArrowRight")
        note = page.eval_on_selector("#drawing-note", "n => n.hidden ? '' : n.textContent")
        shown = page.eval_on_selector("#board", "b => [b.getAttribute('data-ply'), b.childElementCount]")
        if note:
            drawn.errors.append(f"{which}ply {ply}: {note}")
            return False
        if shown != [str(ply), shown[1]] or not shown[1]:
            drawn.errors.append(f"{which}ply {ply}: the board is empty or shows ply {shown[0]}")
            return False
    return True
