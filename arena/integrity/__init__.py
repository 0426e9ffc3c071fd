"""Collusion detection (`arena integrity DIR`): pairs whose results against each other the rest do not explain.

`records` reads a tournament's results directory (a contest server's is read by
arena/server/checks/integrity.py into the same records), `blunders` replays the logs with a game's
exact solver, `model` fits the ratings, `stats` holds the tests and `report` puts them
together (docs/integrity.md). It reads results; it never changes one.
"""
