"""Device keys by delegation (shared/delegation.py, verify_entry): the golden vectors
(shared/vectors/delegation-v1.json), every way a delegated move must be refused, and an archive
with device moves verifying offline."""

import copy
import json
from pathlib import Path

import pytest

import shared
from shared.archive import ArchiveError, verify_archive
from shared.delegation import (
    DelegationError,
    check_shape,
    delegation_message,
    fingerprint,
    make_delegation,
    verify_delegation,
)
from shared.envelope import (
    EntryError,
    EnvelopeError,
    canonical_json,
    entry_hash,
    make_envelope,
    move_entropy,
    public_key_hex,
    read_envelope,
    sign_envelope,
    verify_entry,
)
from tests.helpers.archives import ArchiveBuilder

V = json.loads((Path(shared.__file__).parent / "vectors" / "delegation-v1.json")
               .read_text("utf-8"))
MAIN = bytes.fromhex(V["main_private_key"])
DEVICE = bytes.fromhex(V["device_private_key"])
STRANGER = bytes(range(100, 132))
SEAT_KEYS = {s["seat"]: s["public_key"] for s in V["header"]["seats"]}


# --- the vectors ------------------------------------------------------------------------------

def test_delegation_vector():
    assert public_key_hex(MAIN) == V["main_public_key"]
    assert public_key_hex(DEVICE) == V["device_public_key"]
    assert delegation_message(V["delegation_body"]).hex() == V["delegation_message_hex"]
    body = V["delegation_body"]
    made = make_delegation(MAIN, body["player"], body["device_key"], body["label"],
                           body["not_after"])
    assert made == V["delegation"]
    assert verify_delegation(V["delegation"], V["main_public_key"], "ann") == V["delegation"]
    assert fingerprint(V["device_public_key"]) == V["device_fingerprint"]


def test_delegated_envelopes_sign_hash_and_chain_to_the_vectors():
    prev = V["genesis"]
    for seq, e in enumerate(V["entries"]):
        text, sig = sign_envelope(DEVICE, e["envelope_object"])
        assert (text, sig) == (e["envelope"], e["signature"])
        env, digest = verify_entry(text, sig, game_id="vectorgame", seq=seq, prev=prev,
                                   seat_keys=SEAT_KEYS, expected_hash=e["hash"])
        assert env["delegation"] == V["delegation"] and digest == e["hash"]
        prev = digest


@pytest.mark.parametrize("case", V["canonical"], ids=lambda c: list(c["object"])[0])
def test_canonical_cases(case):
    """The cases keys.js is checked against in the browser (tests/web/test_device_browser.py)."""
    assert canonical_json(case["object"]).decode("utf-8") == case["canonical"]


def make_vectors():
    """The contents of shared/vectors/delegation-v1.json (how it was made; the test below
    checks that the file still says exactly this)."""
    envelope_vectors = json.loads((Path(shared.__file__).parent / "vectors" /
                                   "envelope-v1.json").read_text("utf-8"))
    main, dev = bytes(range(32)), bytes(range(32, 64))
    dkey = public_key_hex(dev)
    d = make_delegation(main, "ann", dkey, "phone \u2713", 1800000100)
    body = {k: d[k] for k in ("player", "device_key", "label", "not_after")}
    genesis = envelope_vectors["genesis"]
    entries, prev = [], genesis
    for seq, (move, ts) in enumerate([("roll", 1800000000), ("hold", 1800000001)]):
        env = make_envelope("vectorgame", seq, prev, "north", move, f"dev-nonce-{seq}", ts,
                            delegation=d)
        text, sig = sign_envelope(dev, env)
        prev = entry_hash(text.encode(), sig)
        entries.append({"envelope_object": env, "envelope": text, "signature": sig,
                        "hash": prev})
    expired = make_envelope("vectorgame", 0, genesis, "north", "roll", "late", 1800000101,
                            delegation=d)
    et, es = sign_envelope(dev, expired)
    canon = [
        {"a": 1, "b": [1, 2, {"z": "x", "y": None}], "c": True, "d": False},
        {"\u00e9": "\u00e9", "\u2713": "hold \u2713", "quote": "\"\\/",
         "ctl": "\n\t\r\b\f\u0001\u001f\u007f"},
        {"line": "\u2028\u2029", "emoji": "\U0001f600", "\uff61": 1, "\U0001f600": 2,
         "~": 3, "": 0},
        {"big": 9007199254740991, "neg": -5, "zero": 0, "nested": [[], {}, [[{"k": [0]}]]]},
        env,
    ]
    return {
        "comment": "Golden vectors for delegated moves (shared/delegation.py). Main key = "
                   "bytes 0..31 (the seats' key of envelope-v1.json), device key = bytes "
                   "32..63. Changing these breaks every archive with device moves.",
        "main_private_key": main.hex(), "main_public_key": public_key_hex(main),
        "device_private_key": dev.hex(), "device_public_key": dkey,
        "device_fingerprint": fingerprint(dkey),
        "header": envelope_vectors["header"], "genesis": genesis,
        "delegation_body": body,
        "delegation_message_hex": delegation_message(body).hex(),
        "delegation": d,
        "entries": entries,
        "expired_entry": {"envelope": et, "signature": es},
        "canonical": [{"object": o, "canonical": canonical_json(o).decode("utf-8")}
                      for o in canon],
    }


def test_the_vector_file_is_what_make_vectors_makes():
    assert make_vectors() == V


# --- refusals ---------------------------------------------------------------------------------

def _entry(delegation=None, signer=DEVICE, ts=1800000000, seat="north"):
    env = make_envelope("vectorgame", 0, V["genesis"], seat, "roll", "n-1", ts,
                        delegation=delegation if delegation is not None else V["delegation"])
    return sign_envelope(signer, env)


def _code(text, sig, **kw):
    with pytest.raises(EntryError) as info:
        verify_entry(text, sig, seat_keys=kw.pop("seat_keys", SEAT_KEYS), **kw)
    return info.value.code


def test_expired_delegation_is_refused():
    e = V["expired_entry"]
    assert _code(e["envelope"], e["signature"]) == "delegation_expired"
    # its last second still counts
    text, sig = _entry(ts=V["delegation"]["not_after"])
    verify_entry(text, sig, seat_keys=SEAT_KEYS)


def test_revoked_device_is_refused():
    e = V["entries"][0]
    assert _code(e["envelope"], e["signature"],
                 revoked={V["device_public_key"]}) == "device_revoked"
    verify_entry(e["envelope"], e["signature"], seat_keys=SEAT_KEYS,
                 revoked={public_key_hex(STRANGER)})


def test_a_delegation_not_signed_by_the_seat_key_is_refused():
    # a stranger delegates their own device for ann's seat
    forged = make_delegation(STRANGER, "ann", public_key_hex(DEVICE), "phone", 1900000000)
    text, sig = _entry(forged)
    assert _code(text, sig) == "bad_delegation"
    # a genuine delegation with a changed field (a longer date, another key, another label)
    for field, value in (("not_after", 1900000000), ("label", "tablet"),
                         ("device_key", public_key_hex(STRANGER)), ("player", "bob")):
        changed = dict(V["delegation"], **{field: value})
        text, sig = _entry(changed, signer=STRANGER if field == "device_key" else DEVICE)
        assert _code(text, sig) == "bad_delegation", field


def test_the_delegation_holds_only_for_its_own_seat_key():
    keys = dict(SEAT_KEYS, east=public_key_hex(STRANGER))
    text, sig = _entry(seat="east")
    assert _code(text, sig, seat_keys=keys) == "bad_delegation"


def test_the_device_key_must_sign_the_envelope():
    # signed by the main key (not the delegated device) or by a stranger
    for signer in (MAIN, STRANGER):
        text, sig = _entry(signer=signer)
        assert _code(text, sig) == "bad_signature"
    # a genuine device envelope, its delegation swapped for another device's
    other = make_delegation(MAIN, "ann", public_key_hex(STRANGER), "other", 1900000000)
    env = read_envelope(V["entries"][0]["envelope"])
    env["delegation"] = other
    assert _code(canonical_json(env).decode(), V["entries"][0]["signature"]) == "bad_signature"


def test_stripping_the_delegation_breaks_the_signature():
    env = read_envelope(V["entries"][0]["envelope"])
    del env["delegation"]
    assert _code(canonical_json(env).decode(), V["entries"][0]["signature"]) == "bad_signature"


@pytest.mark.parametrize("change", [
    {"extra": 1}, {"not_after": True}, {"not_after": -1}, {"not_after": 2 ** 53},
    {"not_after": "1800000000"}, {"label": ""}, {"label": "x" * 41}, {"label": "a\nb"},
    {"label": " phone"}, {"player": "a\x00"}, {"player": ""}, {"player": 5},
    {"device_key": "zz" * 32}, {"device_key": "ab" * 31},
    {"device_key": V["device_public_key"].upper()},
    {"signature": "ab"}, {"signature": V["delegation"]["signature"].upper()},
])
def test_malformed_delegations_are_refused_as_envelopes(change):
    bad = dict(V["delegation"], **change)
    with pytest.raises(DelegationError):
        check_shape(bad)
    env = dict(read_envelope(V["entries"][0]["envelope"]), delegation=bad)
    with pytest.raises(EnvelopeError) as info:
        read_envelope(canonical_json(env).decode())
    assert info.value.code == "bad_delegation"


def test_missing_fields_and_non_objects():
    for bad in (None, [], "x", {k: v for k, v in V["delegation"].items() if k != "label"}):
        with pytest.raises(DelegationError):
            check_shape(bad)


def test_a_forced_move_carries_no_delegation():
    env = dict(read_envelope(V["entries"][0]["envelope"]), forced=True)
    with pytest.raises(EnvelopeError, match="carries no delegation"):
        read_envelope(canonical_json(env).decode())


def test_without_seat_keys_only_the_shape_is_checked():
    """The client's head checks (client/heads.py) link entries without keys."""
    e = V["expired_entry"]
    env, digest = verify_entry(e["envelope"], e["signature"])
    assert digest == entry_hash(e["envelope"].encode(), e["signature"])


# --- archives ---------------------------------------------------------------------------------

class DelegatingBuilder(ArchiveBuilder):
    """An ArchiveBuilder whose seats may move with a device key and its delegation."""

    def device_move(self, seat, text, device_key, delegation, ts=None):
        seq = len(self.entries)
        env = make_envelope(self.header["game"], seq, self.prev, seat, text, f"dev-{seq}",
                            ts or 1_800_000_000 + seq, delegation=delegation)
        raw, sig = sign_envelope(device_key, env)
        self.state = self.game.play(self.state, seat, text,
                                    move_entropy(self.header["game"], seq, self.prev))
        digest = entry_hash(raw.encode("utf-8"), sig)
        self.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest})
        self.prev = digest
        if self.game.result(self.state) is None:
            self.running_heads[len(self.entries)] = self.head_signature(len(self.entries),
                                                                        digest)


NORTH, EAST, SERVER = bytes(range(32)), bytes(range(32, 64)), bytes(range(64, 96))
PHONE = bytes(range(150, 182))


def _pig_with_device_moves(ts=None):
    b = DelegatingBuilder("pig", "devgame", {"north": NORTH, "east": EAST}, SERVER,
                          bytes([1]) * 32, {"target": 12}, players={"north": "ann",
                                                                    "east": "bob"})
    phone = make_delegation(NORTH, "ann", public_key_hex(PHONE), "phone", 1_800_000_500)
    i = 0
    while b.game.result(b.state) is None:
        seat = b.game.to_act(b.state)[0]
        move = "hold" if b.state["pot"] >= 4 else "roll"
        if seat == "north" and i % 2 == 0:
            b.device_move(seat, move, PHONE, phone, ts)
        else:
            b.move(seat, move)
        i += 1
    return b


def test_an_archive_with_device_moves_verifies_offline():
    b = _pig_with_device_moves()
    archive = b.archive()
    assert any("delegation" in json.loads(e["envelope"]) for e in archive["entries"])
    report = verify_archive(archive, server_key=public_key_hex(SERVER))
    assert report["complete"] and report["replayed"]


def test_an_archive_with_an_expired_device_move_is_refused():
    archive = _pig_with_device_moves(ts=1_800_000_501).archive()
    with pytest.raises(ArchiveError, match="after its delegation ended"):
        verify_archive(archive)


def test_an_archive_whose_delegation_was_altered_is_refused():
    archive = _pig_with_device_moves().archive()
    tampered = copy.deepcopy(archive)
    for entry in tampered["entries"]:
        env = json.loads(entry["envelope"])
        if "delegation" in env:
            env["delegation"]["not_after"] += 10 ** 6
            entry["envelope"] = canonical_json(env).decode()
            break
    with pytest.raises(ArchiveError, match="delegation that does not hold"):
        verify_archive(tampered)
