"""Tiles (Tegelspel): the game's rules, bots, views, drawing, analyzer, docs and tests."""
