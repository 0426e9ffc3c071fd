"""Checks of a game's folder: everything the arena does with a game (rules, bots, view, drawing, docs), tried."""
