"""Deterministic, provably fair randomness from a secret per-game seed.

Every random outcome is derived with HMAC-SHA256 keyed by the game's secret
seed over a label.  The label of a move mixes in the move's ply and the
*entropy* the platform passes to ``play`` (the server passes the game id, the
seq and the hash of the previous log entry), so the server could not have
chosen a favourable seed before the players moved.  The published seed
commitment is a *different* function of the seed (see ``shared.envelope``),
so knowing it reveals nothing about the outcomes.

Example::

    rng = Rng(b"secret", b"move|3|...")
    rng.die(6)          # 1..6
    rng.randbelow(10)   # 0..9
"""

import hashlib

_DOMAIN = b"pbem-rng-v1|"


_KEYED = {}
_IPAD = bytes(x ^ 0x36 for x in range(256))
_OPAD = bytes(x ^ 0x5C for x in range(256))


def _keyed(key):
    """The inner and outer SHA-256 states of HMAC with ``key`` (bytes, or text of hex digits).

    HMAC hashes the padded key before every message; a game draws with one key at every
    move, so the two states are made once per key and copied (RFC 2104; the same digests as
    ``hmac.new``).  Kept for the last few hundred keys of this process.
    """
    pads = _KEYED.get(key)
    if pads is None:
        raw = bytes.fromhex(key) if isinstance(key, str) else bytes(key)
        if len(raw) > 64:
            raw = hashlib.sha256(raw).digest()
        raw = raw.ljust(64, b"\0")
        pads = (hashlib.sha256(raw.translate(_IPAD)), hashlib.sha256(raw.translate(_OPAD)))
        if len(_KEYED) >= 512:
            _KEYED.clear()
        _KEYED[key] = pads
    return pads


class Rng:
    """A stream of unbiased random integers from (seed, label)."""

    __slots__ = ("_key", "_label", "_block", "_buf", "_pos", "used")

    def __init__(self, seed, label=b""):
        # the key and label are made ready on the first draw (``_refill``): most moves draw
        # nothing, and every move gets a generator
        self._key = seed
        self._label = label
        self._block = 0
        self._buf = b""
        self._pos = 0
        #: True once anything was drawn (even a draw with one possible outcome): a move that
        #: drew revealed an outcome nobody knew before (``shared.base.Game.reveals``)
        self.used = False

    @classmethod
    def for_move(cls, state, entropy=b""):
        """The generator for the move about to be applied to ``state``.

        ``state["seed"]`` is the hex seed and ``state["ply"]`` the number of
        moves applied so far; both are conventions every game state keeps.
        """
        return cls(state["seed"], (state["ply"], entropy))

    def _refill(self):
        if self._block == 0:
            key, label = self._key, self._label
            if isinstance(label, tuple):  # (ply, entropy), from for_move
                ply, entropy = label
                if isinstance(entropy, str):
                    entropy = entropy.encode()
                label = b"move|%d|" % ply + entropy
            elif isinstance(label, str):
                label = label.encode()
            self._key = _keyed(key)
            self._label = _DOMAIN + label + b"|"
        # HMAC-SHA256(key, label + block), from the key's two hashes made once (see _keyed)
        inner, outer = self._key
        inner = inner.copy()
        inner.update(self._label + self._block.to_bytes(8, "big"))
        outer = outer.copy()
        outer.update(inner.digest())
        self._buf = outer.digest()
        self._block += 1
        self._pos = 0

    def _bytes(self, n):
        out = b""
        while len(out) < n:
            if self._pos >= len(self._buf):
                self._refill()
            take = min(n - len(out), len(self._buf) - self._pos)
            out += self._buf[self._pos:self._pos + take]
            self._pos += take
        return out

    def randbelow(self, n):
        """A uniform integer in [0, n), by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs a positive bound")
        self.used = True
        if n == 1:
            return 0
        if n <= 256:            # one byte a try (a die, a small hand)
            limit = (256 // n) * n
            while True:
                if self._pos >= len(self._buf):
                    self._refill()
                x = self._buf[self._pos]
                self._pos += 1
                if x < limit:
                    return x % n
        nbytes = ((n - 1).bit_length() + 7) // 8
        limit = (256 ** nbytes // n) * n
        while True:
            x = int.from_bytes(self._bytes(nbytes), "big")
            if x < limit:
                return x % n

    def die(self, sides):
        """One roll of a fair die with ``sides`` faces: 1..sides."""
        return self.randbelow(sides) + 1

    def choice(self, seq):
        """A uniformly chosen element of a non-empty sequence."""
        return seq[self.randbelow(len(seq))]

    def draw(self, counts):
        """Draw one item from a multiset given as a list of counts; return its index.

        Each remaining item is equally likely (the pile is never shuffled in
        advance, so every draw depends on this move's entropy).  The caller
        removes the item.  Example: ``rng.draw([2, 0, 1])`` is 0 two times in three.
        """
        k = self.randbelow(sum(counts))
        i = 0
        while k >= counts[i]:
            k -= counts[i]
            i += 1
        return i

    def draw_many(self, counts, n):
        """Draw ``n`` items without replacement; return how many of each (a new list)."""
        left = list(counts)
        out = [0] * len(left)
        for _ in range(n):
            i = self.draw(left)
            left[i] -= 1
            out[i] += 1
        return out

    def shuffle(self, items):
        """Shuffle a list in place (Fisher-Yates) and return it."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
        return items
