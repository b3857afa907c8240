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
still a ``shared.move.Move``.  Moves compare by value: the same kind and args are equal.
"""

from collections import namedtuple


class Move(namedtuple("Move", ("kind", "args"), defaults=((),))):
    """One move: ``kind`` (the word that picks the rule) and ``args`` (a tuple of plain values).

    A named tuple underneath (fast to make and read, immutable, hashable); compare moves by
    value, build them as ``Move(kind, args)`` with ``args`` a tuple.
    """

    __slots__ = ()

    #: set by :meth:`bind`: text -> Move (raises shared.InvalidMove) and Move -> text
    _parse = None
    _format = None

    def __repr__(self):
        kind, args = self
        if args:
            return f"Move({kind!r}, {args!r})"
        return f"Move({kind!r})"

    def __str__(self):
        if self._format is None:
            return " ".join([self[0], *(str(a) for a in self[1])])
        return self._format(self)

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


def quoted(word, limit=32):
    """``word`` quoted for an error message, at most ``limit`` characters (escapes count)."""
    text = repr(word)
    if len(text) <= limit:
        return text
    cut = word[:limit]
    while cut and len(repr(cut + "...")) > limit:
        cut = cut[:-1]
    return repr(cut + "...")


def unknown_move_text(word, words):
    """What every game says of a move word it does not know, with its own list of move words:
    ``unknown move 'fly'; the moves are roll, bank, ... or end``."""
    words = list(words)
    listed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else "".join(words)
    return f"unknown move {quoted(word)}; the moves are {listed}"
