"""Fixtures of the viewer tests: Debian's /usr/bin/chromium driven by Playwright.

Without Chromium or the playwright package the browser tests skip on a workstation, but
fail under CI (the CI variable set): there they are part of what must pass.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.viewer.browser import Watched


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[[Path, str], Watched]]:
    """Open a local HTML file in a fresh page that records errors and requests."""
    contexts = []

    def opener(path: Path, fragment: str = "") -> Watched:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        contexts.append(context)
        page = context.new_page()
        watched = Watched(page)
        page.on("console", lambda m: watched.errors.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: watched.errors.append(f"page error: {e}"))
        page.on("request", lambda r: watched.requests.append(r.url))
        page.goto(path.resolve().as_uri() + fragment)
        return watched

    yield opener
    for context in contexts:
        context.close()
