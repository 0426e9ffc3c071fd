"""Reference bots for arrows: random, greedy (one-step look-ahead) and alphabeta (iterative-deepening search)."""

from .alphabeta import AlphaBetaBot
from .simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, AlphaBetaBot]
