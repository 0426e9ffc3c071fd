"""Reference bots for blocky: the assignment's random and smart players, and a one-ply greedy."""

from .greedy import GreedyBot
from .simple import RandomBot, SmartBot

BOTS = [RandomBot, SmartBot, GreedyBot]
