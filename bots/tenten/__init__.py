"""Reference bots for tenten (1010!): random, the assignment's round-greedy player, lookahead and optimal."""

from bots.tenten.lookahead import LookaheadBot
from bots.tenten.optimal import OptimalBot
from bots.tenten.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot, LookaheadBot, OptimalBot]
