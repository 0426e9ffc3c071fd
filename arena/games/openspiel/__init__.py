"""Any OpenSpiel game (the `open_spiel` package) as a family of games: rules, bots, docs and tests."""
