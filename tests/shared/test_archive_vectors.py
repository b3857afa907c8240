"""The archive's signed messages and a whole v2 archive against their golden vectors
(shared/vectors/archive-v2.json).

The vectors were written by ``python -m tests.helpers.archives --write`` from the
keys, seed and moves they list; a test rebuilds every byte from those inputs, so a change to
the format, a domain prefix or the canonical form shows here before it breaks an archive.
"""

import copy
import json

import pytest

from shared.archive import ArchiveError, check_chain, verify_archive
from shared.envelope import (
    canonical_json,
    envelope_message,
    final_head_message,
    genesis_hash,
    head_message,
    running_head_message,
    sign,
    start_message,
    verify,
)
from tests.helpers.archives import (
    V,
    make_vectors,
    prefix,
)


def test_the_vectors_rebuild_byte_for_byte():
    """Every byte of the file follows from its keys, seed and moves (Ed25519 is deterministic,
    so the server may sign these messages when it exports rather than store them)."""
    assert canonical_json(make_vectors()) == canonical_json(V)


def test_start_message_and_signature():
    s = V["start"]
    msg = start_message(s["game"], s["genesis"])
    assert msg.hex() == s["message_hex"]
    assert msg.startswith(b"pbem-start-v1\n")
    assert sign(bytes.fromhex(V["keys"]["server"]), msg) == s["signature"]
    assert s["genesis"] == genesis_hash(V["archive"]["header"])


def test_running_head_message_and_signature():
    h = V["running_head"]
    msg = running_head_message(h["game"], h["length"], h["hash"])
    assert msg.hex() == h["message_hex"]
    assert msg == (b'pbem-running-head-v1\n{"game":"vectorarchive","hash":"' + h["hash"].encode()
                   + b'","length":2,"status":"playing"}')
    assert verify(V["public_keys"]["server"], msg, h["signature"])


def test_final_head_message_and_signature():
    h = V["final_head"]
    msg = final_head_message(h["game"], h["length"], h["hash"], h["result"], h["seed"])
    assert msg.hex() == h["message_hex"]
    assert msg.startswith(b"pbem-final-head-v1\n")
    assert json.loads(msg.split(b"\n", 1)[1]) == {
        "game": h["game"], "length": h["length"], "hash": h["hash"], "status": "over",
        "result": h["result"], "seed": h["seed"]}
    assert verify(V["public_keys"]["server"], msg, h["signature"])


def test_no_signed_message_stands_for_another():
    """Domain separation: each server signature verifies as its own message only."""
    server = V["public_keys"]["server"]
    s, r, f = V["start"], V["running_head"], V["final_head"]
    messages = {
        "start": start_message(s["game"], s["genesis"]),
        "running": running_head_message(r["game"], r["length"], r["hash"]),
        "final": final_head_message(f["game"], f["length"], f["hash"], f["result"], f["seed"]),
        "live head (running)": head_message(r["game"], r["length"], r["hash"]),
        "live head (final)": head_message(f["game"], f["length"], f["hash"]),
        "running at the final length": running_head_message(f["game"], f["length"],
                                                             f["hash"]),
        "move": envelope_message(canonical_json({"game": s["game"]})),
        "forced move": envelope_message(canonical_json({"game": s["game"]}), forced=True),
    }
    signatures = {"start": s["signature"], "running": r["signature"],
                  "final": f["signature"]}
    for name, sig in signatures.items():
        assert [m for m, msg in messages.items() if verify(server, msg, sig)] == [name]


def test_the_golden_archive_is_complete_and_verified():
    report = verify_archive(copy.deepcopy(V["archive"]))
    assert report["complete"] and report["replayed"] and report["status"] == "over"
    assert report["result"] == V["final_head"]["result"]
    assert report["entries"] == V["final_head"]["length"] == len(V["moves"])
    assert V["moves"][1] == ["north", "roll", True]  # a forced move, signed by the server
    assert report["head"] == {"length": V["final_head"]["length"],
                              "hash": V["final_head"]["hash"]}
    assert verify_archive(V["archive"], server_key=V["public_keys"]["server"])["complete"]
    with pytest.raises(ArchiveError, match="not by the expected key"):
        verify_archive(V["archive"], server_key=V["public_keys"]["north"])


def test_a_running_prefix_is_verified_but_not_complete():
    r = V["running_head"]
    cut = prefix(V["archive"], r["length"], {r["length"]: r["signature"]})
    report = verify_archive(cut)
    assert not report["complete"] and report["status"] == "playing"
    assert report["entries"] == 2 and report["head"] == {"length": 2, "hash": r["hash"]}
    assert "still running" in report["note"] and not report["replayed"]
    assert len(check_chain(cut)) == 2
