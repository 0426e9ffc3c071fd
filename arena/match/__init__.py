"""Refereeing: the bots' transports (ZeroMQ, stdio), the referee, one match end to end."""
