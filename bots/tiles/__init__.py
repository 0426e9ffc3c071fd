"""Reference bots for tiles: uniformly random and greedy (make a row as full as possible)."""

from bots.tiles.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot]
