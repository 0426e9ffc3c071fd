"""Reference bots for tiles: random, greedy, perfect (exact search) and montecarlo (the assignment's playouts)."""

from bots.tiles.montecarlo import MonteCarloBot
from bots.tiles.perfect import PerfectBot
from bots.tiles.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, PerfectBot, MonteCarloBot]
