"""The report's matches table in real Chromium: the first rows, "show all", the filter, failures only."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.viewer.report import SHOWN_AT_FIRST
from tests.helpers import ROOT, badbot
from tests.viewer.test_browser import wait_until


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-bot tournament of 108 matches, one bot crashing in some of them, drawn as a report page."""
    tmp = tmp_path_factory.mktemp("report")
    config = tmp / "t.toml"
    config.write_text(f'game = "blocking"\nsandbox = "none"\ngames_per_pairing = 36\n'
                      f'bots = ["random", "sequential", {{ spec = "{badbot("crash_at_init")}", name = "crasher" }}]\n'
                      '[setups]\nfixed = { rows = 3, cols = 4 }\n[strikes]\nmax_strikes = 0\n')
    run = [sys.executable, "-m", "arena.cli"]
    done = subprocess.run([*run, "tournament", str(config), "--out", str(tmp / "out"), "--quiet"],
                          capture_output=True, text=True, cwd=ROOT, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    view = subprocess.run([*run, "view", str(tmp / "out")], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert view.returncode == 0, view.stderr
    return tmp / "out" / "report.html"


def visible(page: Any) -> int:
    return int(page.evaluate("[...document.querySelectorAll('#match-table tbody tr')].filter(r => !r.hidden).length"))


def test_the_matches_table_filters_in_place(open_page, report: Path) -> None:
    watched = open_page(report)
    page = watched.page
    wait_until(lambda: visible(page) == SHOWN_AT_FIRST)
    assert page.inner_text("#match-count") == f"showing {SHOWN_AT_FIRST} of 108"
    page.click("#match-more")
    wait_until(lambda: visible(page) == 108)
    page.fill("#match-search", "crasher b0")  # every word must occur: the crasher's matches against bot 0
    wait_until(lambda: visible(page) == 36)
    page.fill("#match-search", "")
    page.check("#match-failures")
    crashes = int(page.evaluate("[...document.querySelectorAll('#match-table tbody tr')]"
                                ".filter(r => r.dataset.failure === '1').length"))
    assert crashes > 0
    wait_until(lambda: visible(page) == crashes)
    assert watched.errors == [] and watched.network() == []
