"""Collusion detection (`arena integrity DIR`); `solvers` reads a game's exact solver and checks its contract."""
