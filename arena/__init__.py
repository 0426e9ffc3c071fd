"""The arena: a referee, bots as processes, timed tournaments for five turn-based games."""

__version__ = "0.1.0"
