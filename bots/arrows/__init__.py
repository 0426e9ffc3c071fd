"""Reference bots for arrows: uniformly random and a one-step greedy look-ahead."""

from bots.arrows.simple import GreedyBot, RandomBot

BOTS = [RandomBot, GreedyBot]
