"""Refereeing: the seats' links (ZeroMQ, stdio, remote), the referee, one match end to end."""
