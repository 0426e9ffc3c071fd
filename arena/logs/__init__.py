"""Match logs: the format, its signatures, re-simulation and verification."""
