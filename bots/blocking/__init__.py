"""Reference bots for blocking: the assignment's three strategies and perfect (Sprague–Grundy play)."""

from bots.blocking.perfect import PerfectBot
from bots.blocking.simple import MaxBlockBot, RandomBot, SequentialBot

BOTS = [SequentialBot, RandomBot, MaxBlockBot, PerfectBot]
