"""The tests of the family of OpenSpiel games (they need the `open_spiel` package: required under CI)."""

from __future__ import annotations

import os

import pytest


def require_openspiel() -> None:
    """Skip the calling test module without open_spiel, but fail under CI, where the test extra installs it."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("open_spiel is missing under CI (pip install -e '.[test]' installs it)", pytrace=False)
        pytest.skip("open_spiel is not installed (pip install 'arena[openspiel]')", allow_module_level=True)
