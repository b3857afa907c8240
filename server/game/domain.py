"""The services' errors: what went wrong, in the service's own terms (no HTTP here).

Every refusal the services (``server/game/lifecycle.py``, ``server/game/append.py``,
``server/game/views.py``, ``server/game/archives.py``) raise is a :class:`DomainError`: a short
``code`` a program can test, a one-sentence ``message`` for a person, and ``details``.
``server/http/errors.py`` maps each kind to its HTTP status for the API and the pages; the
notice worker and mail-in catch them as they are.
"""


class DomainError(Exception):
    """A request the service refuses.  ``seat`` is the seat whose signature verified before
    the refusal (a refused move's sender, when known); ``private`` marks a reason only that
    seat's player may read (a rules refusal may name their hidden hand)."""

    def __init__(self, code, message, details=None, *, seat=None, private=False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}
        self.seat = seat
        self.private = private


class Malformed(DomainError):
    """The input cannot be read (a broken envelope, a wrong game id inside it)."""


class Unauthenticated(DomainError):
    """The caller must prove who they are first."""


class Forbidden(DomainError):
    """The caller is known, and may not do this (another seat's move or view)."""


class NotFound(DomainError):
    """There is no such game (or game type)."""


class Conflict(DomainError):
    """Not possible in the game's present state (started, full, over, moved on)."""


class Refused(DomainError):
    """Well formed, and refused: by the rules, or by a setting."""
