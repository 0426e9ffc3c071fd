"""1010! (tenten): the game's rules, bots, views, drawing, analyzer, docs and tests."""
