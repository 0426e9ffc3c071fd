"""The contest server: entrants submit bots, the sandbox builds and validates them, a ladder plays them."""
