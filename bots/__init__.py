"""The reference bots, one package per game, registered through the `arena.bots` entry points."""
