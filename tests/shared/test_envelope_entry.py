"""``verify_entry``: the one check of a log entry (the server's append path, the archive
verifier, the client's log and head checks), against the envelope vectors and hostile input."""

import json
from pathlib import Path

import pytest

import shared
from shared.envelope import (
    EntryError,
    EnvelopeError,
    make_envelope,
    public_key_hex,
    read_envelope,
    sign_envelope,
    verify_entry,
)

V = json.loads((Path(shared.__file__).parent / "vectors" / "envelope-v1.json").read_text("utf-8"))
KEY = bytes.fromhex(V["private_key"])
OTHER = bytes([9]) * 32
KEYS = {s["seat"]: s["public_key"] for s in V["header"]["seats"]}
GAME = V["header"]["game"]


def entry(i):
    e = V["entries"][i]
    return e["envelope"], e["signature"], e["hash"]


def full(i, **overrides):
    """verify_entry with everything the archive verifier knows about entry ``i``."""
    text, sig, digest = entry(i)
    prev = V["genesis"] if i == 0 else V["entries"][i - 1]["hash"]
    kwargs = dict(game_id=GAME, seq=i, prev=prev, seat_keys=KEYS, server_key=V["header"]
                  ["server_key"], expected_hash=digest, subject=f"entry {i}")
    kwargs.update(overrides)
    return verify_entry(kwargs.pop("text", text), kwargs.pop("signature", sig), **kwargs)


@pytest.mark.parametrize("i", [0, 1])
def test_the_vector_entries_verify_and_hash_to_their_recorded_hash(i):
    env, digest = full(i)
    assert env == V["entries"][i]["envelope_object"] and digest == V["entries"][i]["hash"]


def test_only_the_checks_asked_for_run():
    """The client knows no keys: it checks links and hashes only; the server no hash."""
    text, sig, digest = entry(1)
    assert verify_entry(text, sig)[1] == digest
    assert verify_entry(text, "0" * 128, game_id=GAME)[0]["seq"] == 1  # no keys: no signature


@pytest.mark.parametrize("override, code, words", [
    ({"game_id": "another"}, "wrong_game", "entry 0 belongs to game 'vectorgame', not another"),
    ({"seq": 3}, "wrong_seq", "entry 0 carries seq 0: entries are missing or out of order"),
    ({"prev": "0" * 64}, "broken_link", "entry 0 does not link to the entry before it"),
    ({"seat_keys": {"east": KEYS["east"]}}, "unknown_seat",
     "entry 0 is signed for seat 'north', which is not in this game"),
    ({"seat_keys": {"north": public_key_hex(OTHER)}}, "bad_signature",
     "entry 0 has a bad signature (not signed by seat north)"),
    ({"signature": "f" * 128}, "bad_signature", "entry 0 has a bad signature"),
    ({"signature": "zz"}, "bad_signature", "entry 0 has a bad signature"),
    ({"expected_hash": "0" * 64}, "wrong_hash", "entry 0 has a wrong hash"),
    ({"forced": True}, "forced_reserved", "only the server may sign a forced move"),
])
def test_each_fault_has_its_code_and_names_the_entry(override, code, words):
    with pytest.raises(EntryError) as info:
        full(0, **override)
    assert info.value.code == code and words in info.value.message


def test_a_forced_entry_must_be_signed_by_the_server_key():
    server = bytes([7]) * 32
    env = make_envelope(GAME, 2, V["entries"][1]["hash"], "north", "hold", "n", 1, forced=True)
    text, sig = sign_envelope(server, env)
    ok, _ = verify_entry(text, sig, seat_keys=KEYS, server_key=public_key_hex(server))
    assert ok["forced"] is True
    for key in (None, KEYS["north"]):  # no server key known, or the seat's key: refused
        with pytest.raises(EntryError, match="not signed by the server"):
            verify_entry(text, sig, seat_keys=KEYS, server_key=key)
    with pytest.raises(EntryError) as info:  # a player may not post a forced move
        verify_entry(text, sig, forced=False, seat_keys=KEYS, server_key=public_key_hex(server))
    assert info.value.code == "forced_reserved"
    text, sig = sign_envelope(KEY, {k: v for k, v in env.items() if k != "forced"})
    with pytest.raises(EntryError):  # nor the server post a seat's move as forced
        verify_entry(text, sig, forced=True, seat_keys=KEYS, server_key=public_key_hex(server))


@pytest.mark.parametrize("text, code", [
    (None, "bad_envelope"), (12, "bad_envelope"), (b"{}", "bad_envelope"),
    ("", "not_canonical"), ("not json", "not_canonical"), ('{"b":1,"a":2}', "not_canonical"),
    ("[" * 5000 + "]" * 5000, "not_canonical"), ('{"a":1.5}', "not_canonical"),
    ('"\\ud800"', "not_canonical"), ("[]", "bad_envelope"), ("{}", "bad_envelope"),
    ("Ωμέγα", "not_canonical"), ("٣", "not_canonical"), ("3", "bad_envelope"),
    ("移動", "not_canonical"),
])
def test_hostile_envelope_text_is_an_envelope_error_never_a_crash(text, code):
    with pytest.raises(EnvelopeError) as info:
        verify_entry(text, "0" * 128, game_id=GAME, seat_keys=KEYS, expected_hash="0" * 64)
    assert info.value.code == code and not isinstance(info.value, EntryError)


def test_a_nul_character_anywhere_in_the_envelope_is_refused():
    env = make_envelope(GAME, 0, V["genesis"], "north", "roll\x00", "n", 1)
    text, sig = sign_envelope(KEY, env)
    with pytest.raises(EnvelopeError) as info:
        read_envelope(text)
    assert info.value.code == "bad_characters"


@pytest.mark.parametrize("signature", [None, 5, b"0" * 128, "é" * 128, "\u0663" * 128])
def test_a_signature_that_is_not_ascii_text_is_refused_before_hashing(signature):
    text, _, _ = entry(0)
    with pytest.raises(EntryError) as info:
        verify_entry(text, signature)
    assert info.value.code == "bad_signature"


@pytest.mark.parametrize("signature", ["\x00" * 128, "a" * 128 + "\n", " " + "a" * 127])
def test_a_signature_not_of_128_hex_digits_is_refused_even_unverified(signature):
    """Not even hashed: "SIG\n" would verify as SIG (bytes.fromhex skips white space) while
    hashing as another entry."""
    text, _, _ = entry(0)
    for keys in (None, KEYS):
        with pytest.raises(EntryError, match="bad signature"):
            verify_entry(text, signature, seat_keys=keys)
