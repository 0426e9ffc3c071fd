"""Reference bots for arrows: random, greedy (one-step look-ahead) and alphabeta (iterative-deepening search)."""

from bots.arrows.alphabeta import AlphaBetaBot
from bots.arrows.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, AlphaBetaBot]
