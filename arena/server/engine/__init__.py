"""The server's engine: intake builds and validates versions; the ladder and the finals play."""
