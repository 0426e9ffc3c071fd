"""Session-wide test settings."""

import os
import tempfile

# Logs of single matches are signed with the user's key: the tests (and every arena command
# they start, which inherits this) use a key of their own, never the real home's.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="arena-test-config-")

# The session adopts every orphan of the bots it starts (as a referee does), so the checks
# for surviving bot processes count them as descendants of this process, and only them.
from arena.launch.processes.isolation import become_subreaper  # noqa: E402

become_subreaper()


# --- one headless Chromium for every browser test (the viewer's pages, the contest server's) ---

from collections.abc import Iterator  # noqa: E402
from typing import Any  # noqa: E402

import pytest  # noqa: E402

from tests.viewer.browser import CHROMIUM, CHROMIUM_ARGS, missing  # noqa: E402


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole session."""
    why = missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"browser tests cannot run: {why}; CI must install it")
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def children() -> Iterator[list[Any]]:
    """Processes (subprocess.Popen) a test starts: killed if still running, and reaped, when it ends."""
    started: list[Any] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


@pytest.fixture(autouse=True)
def games_added_stay_in_their_test() -> Iterator[None]:
    """Game folders a test adds in-process (add_game_paths, a config's games key) are forgotten after it.

    Otherwise they stay found in that worker, and the sandbox shows them to later tests' bots.
    """
    from arena.games import registry

    extra, listed = list(registry._extra), os.environ.get(registry.ENV_VARIABLE)
    yield
    if registry._extra != extra or os.environ.get(registry.ENV_VARIABLE) != listed:
        registry._extra[:] = extra
        registry._found = None
        if listed is None:
            os.environ.pop(registry.ENV_VARIABLE, None)
        else:
            os.environ[registry.ENV_VARIABLE] = listed
