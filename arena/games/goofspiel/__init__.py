"""Goofspiel: the game's rules, bots, views, drawing, docs and tests."""
