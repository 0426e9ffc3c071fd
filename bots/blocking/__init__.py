"""Reference bots for blocking: the seed's three strategies."""

from bots.blocking.simple import MaxBlockBot, RandomBot, SequentialBot

BOTS = [SequentialBot, RandomBot, MaxBlockBot]
