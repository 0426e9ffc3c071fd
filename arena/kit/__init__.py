"""Kits a game's folder builds on: the terminal view, the drawing contract, analyzers, in-process tests."""
