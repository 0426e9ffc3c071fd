"""Headless Chromium for the viewer tests: where it is, how it is started, what a page did."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("ARENA_CHROMIUM", "/usr/bin/chromium")
# Never let Playwright fetch a browser, and keep Chromium from phoning home on its own.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync"]


def missing() -> str:
    """Why the browser tests cannot run here, or "" when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright Python package is not installed (pip install playwright)"
    if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return ""


@dataclass
class Watched:
    """A page and what it did: console errors, uncaught exceptions, requests."""

    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def network(self) -> list[str]:
        """Requests that left the local files (there must be none)."""
        return [url for url in self.requests if not url.startswith("file://")]
