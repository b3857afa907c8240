"""The envelope format against its golden vectors (shared/vectors/envelope-v1.json)."""

import json
from pathlib import Path

import pytest

import shared
from shared.archive import ArchiveError, check_chain
from shared.envelope import (
    EnvelopeError,
    canonical_json,
    entry_hash,
    envelope_message,
    genesis_hash,
    head_message,
    move_entropy,
    parse_canonical,
    public_key_hex,
    request_message,
    seed_commitment,
    sign,
    sign_envelope,
    verify,
)
from shared.rng import Rng

V = json.loads((Path(shared.__file__).parent / "vectors" / "envelope-v1.json").read_text("utf-8"))
KEY = bytes.fromhex(V["private_key"])


def test_keys_commitment_and_genesis():
    assert public_key_hex(KEY) == V["public_key"]
    assert seed_commitment(bytes.fromhex(V["seed"])) == V["seed_commitment"]
    assert genesis_hash(V["header"]) == V["genesis"]


@pytest.mark.parametrize("i", [0, 1])
def test_envelopes_sign_and_hash_to_the_vectors(i):
    e = V["entries"][i]
    text, sig = sign_envelope(KEY, e["envelope_object"])
    assert text == e["envelope"] and sig == e["signature"]
    assert canonical_json(e["envelope_object"]).decode() == e["envelope"]
    assert entry_hash(text.encode(), sig) == e["hash"]
    assert move_entropy(V["header"]["game"], i, e["envelope_object"]["prev"]).decode() == \
        e["entropy"]
    assert verify(V["public_key"], envelope_message(text.encode()), sig)


def test_one_changed_byte_breaks_the_signature():
    e = V["entries"][0]
    for field, value in (("game", "othergame"), ("seq", 5), ("prev", "0" * 64),
                         ("seat", "east"), ("move", "rolm")):
        changed = dict(e["envelope_object"], **{field: value})
        assert not verify(V["public_key"], envelope_message(canonical_json(changed)),
                          e["signature"]), field
    # a server-signed (forced) move uses another domain: a seat signature does not carry over
    assert not verify(V["public_key"], envelope_message(e["envelope"].encode(), forced=True),
                      e["signature"])


def test_request_and_head_vectors():
    r = V["request"]
    msg = request_message(r["method"], r["path"], r["ts"], r["nonce"], r["body"].encode())
    assert msg.hex() == r["message_hex"] and sign(KEY, msg) == r["signature"]
    h = V["head"]
    assert sign(KEY, head_message(h["game"], h["length"], h["hash"])) == h["signature"]


@pytest.mark.parametrize("text", V["non_canonical"])
def test_non_canonical_input_is_refused(text):
    with pytest.raises(EnvelopeError):
        parse_canonical(text)


def test_vector_chain_checks():
    archive = {"format": "pbem-archive-v1", "header": V["header"], "genesis": V["genesis"],
               "entries": [{"seq": i, "envelope": e["envelope"], "signature": e["signature"],
                            "hash": e["hash"]} for i, e in enumerate(V["entries"])],
               "head": {"length": 2, "hash": V["head"]["hash"],
                        "signature": V["head"]["signature"], "game": V["head"]["game"]},
               "seed": None, "result": None}
    assert len(check_chain(archive)) == 2  # the old format's chain and live head still check
    archive["entries"].reverse()
    with pytest.raises(ArchiveError, match="entry 0"):
        check_chain(archive)


def test_rng_is_deterministic_and_unbiased_enough():
    a = [Rng(b"k", b"label").die(6) for _ in range(3)]
    rng = Rng(b"k", b"label")
    rolls = [rng.die(6) for _ in range(6000)]
    assert a == [Rng(b"k", b"label").die(6)] * 3
    assert set(rolls) == {1, 2, 3, 4, 5, 6}
    assert all(800 < rolls.count(f) < 1200 for f in range(1, 7))
    assert Rng(b"k", b"other").randbelow(10**9) != Rng(b"k", b"label").randbelow(10**9)


def test_rng_draw_from_counts_is_uniform_over_items():
    rng = Rng(b"k", b"draw")
    seen = [0, 0, 0]
    for _ in range(3000):
        seen[rng.draw([2, 0, 1])] += 1
    assert seen[1] == 0 and 1800 < seen[0] < 2200
    counts = [3, 1, 0, 2]
    drawn = Rng(b"k", b"many").draw_many(counts, 4)
    assert sum(drawn) == 4 and all(d <= c for d, c in zip(drawn, counts))
    assert counts == [3, 1, 0, 2]  # the caller's counts are left alone
