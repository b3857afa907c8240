"""shared.envelope signs and checks through PyNaCl's compiled binding (``nacl._sodium``)
to spare every ``pbem`` command the import of PyNaCl's Python layer: it must give the
public API's answers, byte for byte, for good and hostile input alike."""

import hashlib

import nacl.exceptions
import nacl.signing
import pytest

from shared import envelope

SEEDS = [hashlib.sha256(b"seed %d" % i).digest() for i in range(8)]
MESSAGES = [b"", b"x", "mövë ✓".encode(), bytes(range(256)) * 9]


def _public_api_verify(pub_hex, message, sig_hex):
    try:
        nacl.signing.VerifyKey(bytes.fromhex(pub_hex)).verify(message, bytes.fromhex(sig_hex))
        return True
    except (nacl.exceptions.CryptoError, ValueError):
        return False


def test_the_binding_is_the_one_in_use():
    assert envelope._lib() is not None


@pytest.mark.parametrize("seed", SEEDS[:4])
@pytest.mark.parametrize("message", MESSAGES)
def test_signatures_and_keys_are_pynacls(seed, message):
    key = nacl.signing.SigningKey(seed)
    assert envelope.public_key_hex(seed) == key.verify_key.encode().hex()
    assert envelope.sign(seed, message) == key.sign(message).signature.hex()
    assert envelope.verify(key.verify_key.encode().hex(), message, envelope.sign(seed, message))


def test_hostile_signatures_get_the_public_apis_verdict():
    seed, other = SEEDS[0], SEEDS[1]
    pub = envelope.public_key_hex(seed)
    sig = envelope.sign(seed, b"move")
    small_order = "01" + "00" * 31   # the identity point: refused by the strict check
    cases = [
        (pub, b"move", sig),
        (pub, b"mover", sig),
        (envelope.public_key_hex(other), b"move", sig),
        (pub, b"move", sig[:-2] + ("00" if sig[-2:] != "00" else "01")),
        (small_order, b"move", "00" * 64),
        (small_order, b"move", "01" + "00" * 63),
        (pub, b"move", "ff" * 64),   # S far above the group order
    ]
    for pub_hex, message, sig_hex in cases:
        assert envelope.verify(pub_hex, message, sig_hex) is \
            _public_api_verify(pub_hex, message, sig_hex), (pub_hex, message, sig_hex)


@pytest.mark.parametrize("pub,sig", [
    ("00" * 31, "00" * 64), ("00" * 33, "00" * 64), ("zz" * 32, "00" * 64),
    ("٠١" * 32, "00" * 64), ("00" * 32, "00" * 63), ("00" * 32, "00" * 65),
    ("00" * 32, "ß" * 128), (None, "00" * 64), ("00" * 32, None), (b"\0" * 32, "00" * 64),
])
def test_malformed_keys_and_signatures_are_refused_not_raised(pub, sig):
    assert envelope.verify(pub, b"move", sig) is False


def test_a_private_key_of_the_wrong_length_is_a_value_error():
    with pytest.raises(ValueError):
        envelope.sign(b"\0" * 31, b"move")
    with pytest.raises(ValueError):
        envelope.public_key_hex(b"\0" * 33)
