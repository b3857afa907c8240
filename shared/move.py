"""The one move type every game parses its notation into.

A :class:`Move` is small and immutable: a ``kind`` (the word that picks the rule, e.g.
``"roll"``, ``"settle"``) and ``args``, a tuple of plain values (ints, strs, tuples).  Its repr
can be pasted back into Python; its text is the game's notation::

    >>> from shared.stone_age.notation import Move
    >>> m = Move.parse("move 100-93-85")
    >>> m
    Move('move', ((100, 93, 85),))
    >>> str(m)
    'move 100-93-85'
    >>> Move.parse(str(m)) == m
    True

Each game binds the type to its notation once (:meth:`Move.bind`); the subclass it gets is
still a ``shared.move.Move`` (``isinstance`` holds, equal kinds and args compare equal across
games only by value, never by notation).
"""


class Move:
    """One move: ``kind`` and ``args``; text through the game's notation."""

    __slots__ = ("kind", "args")

    #: set by :meth:`bind`: text -> Move (raises shared.InvalidMove) and Move -> text
    _parse = None
    _format = None

    def __init__(self, kind, args=()):
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "args", tuple(args))

    def __setattr__(self, name, value):
        raise AttributeError("a Move cannot be changed")

    def __delattr__(self, name):
        raise AttributeError("a Move cannot be changed")

    def __eq__(self, other):
        if not isinstance(other, Move):
            return NotImplemented
        return (self.kind, self.args) == (other.kind, other.args)

    def __hash__(self):
        return hash((self.kind, self.args))

    def __repr__(self):
        if self.args:
            return f"Move({self.kind!r}, {self.args!r})"
        return f"Move({self.kind!r})"

    def __str__(self):
        if self._format is None:
            return " ".join([self.kind, *(str(a) for a in self.args)])
        return self._format(self)

    def __reduce__(self):
        return (type(self), (self.kind, self.args))

    @classmethod
    def parse(cls, text):
        """The move ``text`` names in this game's notation (raises shared.InvalidMove)."""
        return cls._parse(text)

    @classmethod
    def bind(cls, name, parse, format):  # noqa: A002 - the notation's own word
        """A subclass of Move whose text is ``format(move)`` and ``parse(text)``."""
        return type(name, (cls,), {"__slots__": (), "_parse": staticmethod(parse),
                                   "_format": staticmethod(format),
                                   "__module__": getattr(parse, "__module__", __name__)})
