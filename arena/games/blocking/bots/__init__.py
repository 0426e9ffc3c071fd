"""Reference bots for blocking: the assignment's three strategies and perfect (Sprague–Grundy play)."""

from .perfect import PerfectBot
from .simple import MaxBlockBot, RandomBot, SequentialBot

BOTS = [SequentialBot, RandomBot, MaxBlockBot, PerfectBot]
