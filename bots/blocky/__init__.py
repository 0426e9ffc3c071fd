"""Reference bots for blocky: the seed's random and smart players."""

from bots.blocky.simple import RandomBot, SmartBot

BOTS = [RandomBot, SmartBot]
