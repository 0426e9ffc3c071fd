"""Looking at match logs: the HTML match viewer, the tournament report page, re-running a bot."""

from arena.viewer.frames import match_data
from arena.viewer.page import match_page, write_match_page

__all__ = ["match_data", "match_page", "write_match_page"]
