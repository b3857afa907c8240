"""The pbem rules library: pure game logic shared by the server and the client.

Nothing in this package does I/O, reads a clock or uses a global random
generator.  It imports nothing from ``server`` or ``client``.
"""


class IllegalMove(ValueError):
    """A move that cannot be played now.

    ``code`` is a short machine-readable reason (``"not_your_turn"``,
    ``"cannot_afford"`` ...); ``str(exc)`` / ``exc.message`` is one sentence
    in the game's own words, safe to show to the player who sent the move:
    it never reveals another seat's hidden information.
    """

    default_code = "illegal_move"

    def __init__(self, message, code=None, details=None):
        super().__init__(message)
        self.message = message
        self.code = code or self.default_code
        self.details = details or {}


class InvalidMove(IllegalMove):
    """The move text does not parse in the game's notation."""

    default_code = "bad_notation"


__all__ = ["IllegalMove", "InvalidMove"]
