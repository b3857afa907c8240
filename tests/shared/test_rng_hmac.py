"""Rng computes HMAC-SHA256 from keyed hash states made once per key: the draws must be the
ones ``hmac.new`` gives (the outcomes of every recorded game depend on them)."""

import hashlib
import hmac
import random

from shared.rng import Rng


def _reference_draws(key, label, bounds):
    """randbelow for each bound, written from the definition with hmac.new."""
    if isinstance(label, tuple):
        label = b"move|%d|" % label[0] + label[1]
    label = b"pbem-rng-v1|" + label + b"|"
    stream = b"".join(hmac.new(key, label + block.to_bytes(8, "big"), hashlib.sha256).digest()
                      for block in range(8))
    pos, out = 0, []
    for n in bounds:
        nbytes = ((n - 1).bit_length() + 7) // 8
        limit = (256 ** nbytes // n) * n
        while True:
            x = int.from_bytes(stream[pos:pos + nbytes], "big")
            pos += nbytes
            if x < limit:
                out.append(x % n)
                break
    return out


def test_draws_are_hmac_sha256_of_the_seed_for_any_key_length_and_label():
    r = random.Random(1)
    for t in range(1500):
        key = bytes(r.randrange(256) for _ in range(r.choice([0, 5, 32, 64, 65, 100])))
        label = (r.randrange(1000), b"e%d" % t) if t % 3 else b"label%d" % t
        bounds = [r.choice([2, 3, 6, 7, 100, 255, 256, 257, 1000, 70000]) for _ in range(20)]
        for k in (key, key.hex()):        # bytes, or a state's hex seed
            rng = Rng(k, label)
            assert [rng.randbelow(n) for n in bounds] == _reference_draws(key, label, bounds)


def test_a_second_generator_with_the_same_key_draws_the_same():
    a = Rng("00ff" * 16, (3, b"x"))
    first = [a.die(6) for _ in range(50)]
    b = Rng("00ff" * 16, (3, b"x"))
    assert [b.die(6) for _ in range(50)] == first
    c = Rng("00ff" * 16, (4, b"x"))
    assert [c.die(6) for _ in range(50)] != first
