"""Reference bots for tenten (1010!): random, the assignment's round-greedy player, lookahead and optimal."""

from .lookahead import LookaheadBot
from .optimal import OptimalBot
from .simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, LookaheadBot, OptimalBot]
