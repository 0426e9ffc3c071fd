"""Tests of the reference bots."""
