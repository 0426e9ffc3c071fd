"""`arena play`: a person against bots (or watching them) in the terminal."""
