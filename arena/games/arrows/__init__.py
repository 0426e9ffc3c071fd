"""Arrows (swawolne strzały, the 2001 Pascal module contest): the game's rules, bots, views, drawing, docs and tests."""
