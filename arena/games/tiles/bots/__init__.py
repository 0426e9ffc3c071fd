"""Reference bots for tiles: random, greedy, perfect (exact search) and montecarlo (the assignment's playouts)."""

from .montecarlo import MonteCarloBot
from .perfect import PerfectBot
from .simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, PerfectBot, MonteCarloBot]
