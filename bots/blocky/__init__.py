"""Reference bots for blocky: the assignment's random and smart players, and a one-ply greedy."""

from bots.blocky.greedy import GreedyBot
from bots.blocky.simple import RandomBot, SmartBot

BOTS = [RandomBot, SmartBot, GreedyBot]
