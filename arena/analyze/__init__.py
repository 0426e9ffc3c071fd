"""`arena analyze`: solvers and studies of single positions, one module per game."""
