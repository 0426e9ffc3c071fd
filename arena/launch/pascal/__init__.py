"""Pascal contest modules compiled in the sandbox into stdio bots, with the units generated around them."""
