"""Reference bots for tenten (1010!): random and the seed's round-greedy player."""

from bots.tenten.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot]
