"""Resource bundles: a hand, a cost or one side of a trade as a tuple of counts.

A game fixes the order of its resources once (Zarahemla: wood brick water wheat stone; Stone
Age: meat bone flint hide) and every bundle is a tuple (or list) of counts in that order.

    >>> has([2, 1, 0, 0], (1, 1, 0, 0))
    True
    >>> notation((2, 1, 0, 0), ("meat", "bone", "flint", "hide"))
    '2meat+1bone'
"""

from operator import ge


def has(hand, bundle):
    """True when ``hand`` holds at least ``bundle``."""
    return all(map(ge, hand, bundle))


def notation(bundle, names):
    """The bundle as the notation writes it: ``2wood+1brick`` ("" when empty)."""
    return "+".join([f"{n}{name}" for n, name in zip(bundle, names) if n])


def fields(bundle, names):
    """The bundle as a fact's fields: ``{"wood": 2, "brick": 1, ...}``, zeros included."""
    return dict(zip(names, bundle))


def transfer(src, dst, bundle):
    """Move ``bundle`` from the counts ``src`` to ``dst`` (a hand, a bank; checked before)."""
    for i, n in enumerate(bundle):
        if n:
            src[i] -= n
            dst[i] += n


def exchange(hand_a, give_a, hand_b, give_b):
    """A trade: ``hand_a`` gives ``give_a`` to ``hand_b``, which gives ``give_b`` back."""
    for i in range(len(hand_a)):
        hand_a[i] += give_b[i] - give_a[i]
        hand_b[i] += give_a[i] - give_b[i]
