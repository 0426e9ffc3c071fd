"""The server's engine: intake builds and validates versions, the ladder draws, pairs and rates its games, the finals and remote entrants play."""
