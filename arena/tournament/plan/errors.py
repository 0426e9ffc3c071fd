"""The error every part of a tournament raises when the run cannot start or go on."""


class TournamentError(RuntimeError):
    """The tournament cannot start or cannot go on (results so far are kept)."""
