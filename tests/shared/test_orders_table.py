"""Side documents and orders against the table state, offline: messages and orders
signed after a key rotation or by a device (checked with the keys the table held at their
``at``), and conditional orders over moves taken back (the next move that stands)."""

import pytest

from shared.archive import V3_FORMAT, ArchiveError, verify_archive
from shared.delegation import make_delegation
from shared.envelope import public_key_hex
from shared.messages import (
    MESSAGE_DOMAIN,
    DocumentError,
    KeyHistory,
    make_message,
    read_message,
    sign_document,
)
from shared.orders import (
    ORDER_DOMAIN,
    Order,
    OrderBook,
    conditional,
    make_order,
    parse_order,
    reply,
)
from tests.helpers.table import TableBuilder, key

NORTH, EAST = key(1), key(2)
NEW_NORTH = key(41)
DEVICE = key(42)


def _v3(b, messages=(), orders=()):
    archive = b.archive()
    archive["format"] = V3_FORMAT
    archive["messages"], archive["orders"] = list(messages), list(orders)
    return archive


def _message(b, signer, at, text, seat="north", delegation=None, ts=1_800_000_000):
    body = make_message(b.header["game"], seat, None, at, text, f"n-{at}-{text[:8]}", ts,
                        delegation)
    return sign_document(signer, MESSAGE_DOMAIN, body)


def _order(b, signer, at, text, seat="north", delegation=None):
    body = make_order(b.header["game"], seat, at, text, f"o-{at}", 1_800_000_000, delegation)
    return sign_document(signer, ORDER_DOMAIN, body)


def _delegation(main=NORTH, not_after=1_900_000_000, device=DEVICE):
    return make_delegation(main, "p0", public_key_hex(device), "phone", not_after)


# --- which key signs a side document --------------------------------------------------------

def test_documents_after_a_rotation_verify_with_the_new_key_only():
    b = TableBuilder()
    b.move("north", "hold")                                             # 0
    b.move("east", "hold")                                              # 1
    b.move("north", f"@rotate {public_key_hex(NEW_NORTH)}")             # 2, by the old key
    b.keys["north"] = NEW_NORTH
    before = _message(b, NORTH, 2, "written before the rotation")      # at 2: old key
    after = _message(b, NEW_NORTH, 3, "written after it")               # at 3: new key
    order = _order(b, NEW_NORTH, 3, "roll")
    b.finish()
    report = verify_archive(_v3(b, [before, after], [order]))
    assert report["complete"] and len(report["messages"]) == 2 and report["orders"] == 1
    # the old key no longer signs for north after the rotation; the new one not before it
    for bad in (_message(b, NORTH, 3, "old key, too late"),
                _message(b, NEW_NORTH, 2, "new key, too early")):
        with pytest.raises(ArchiveError, match="bad signature"):
            verify_archive(_v3(b, [bad]))
    with pytest.raises(ArchiveError, match="bad signature"):
        verify_archive(_v3(b, [], [_order(b, NORTH, 4, "roll")]))


def test_a_devices_documents_verify_until_it_is_revoked():
    b = TableBuilder()
    delegation = _delegation()
    b.move("north", "hold")                                             # 0
    ok = _message(b, DEVICE, 1, "from my phone", delegation=delegation)
    order = _order(b, DEVICE, 1, "roll", delegation=delegation)
    b.move("east", "hold")                                              # 1
    b.move("north", f"@revoke {public_key_hex(DEVICE)}")                # 2
    at_revocation = _message(b, DEVICE, 2, "still before it", delegation=delegation)
    b.finish()
    report = verify_archive(_v3(b, [ok, at_revocation], [order]))
    assert report["complete"] and report["orders"] == 1
    cases = {
        "device_revoked": _message(b, DEVICE, 3, "after the revoke", delegation=delegation),
        "delegation_expired": _message(b, DEVICE, 1, "late", ts=1_950_000_000,
                                       delegation=delegation),
        # a delegation east's key signed does not let the device speak for north
        "bad_delegation": _message(b, DEVICE, 1, "forged", delegation=_delegation(main=EAST)),
        # the device's delegation but another key's signature
        "bad_signature": _message(b, key(43), 1, "not the device", delegation=delegation),
    }
    keys = KeyHistory({"north": public_key_hex(NORTH), "east": public_key_hex(EAST)})
    keys.observe(2, {"keys": dict(keys.seats()), "revoked": [public_key_hex(DEVICE)]})
    for code, doc in cases.items():
        with pytest.raises(ArchiveError):
            verify_archive(_v3(b, [doc]))
        with pytest.raises(DocumentError) as caught:
            read_message(doc, keys, b.header["game"])
        assert caught.value.code == code
    # an order from the device after its revocation is refused as well
    with pytest.raises(ArchiveError, match="revoked"):
        verify_archive(_v3(b, [], [_order(b, DEVICE, 4, "roll", delegation=delegation)]))


def test_a_delegation_made_by_a_rotated_away_key_no_longer_holds():
    b = TableBuilder()
    b.move("north", "hold")
    b.move("east", "hold")
    b.move("north", f"@rotate {public_key_hex(NEW_NORTH)}")
    b.keys["north"] = NEW_NORTH
    old = _message(b, DEVICE, 3, "old delegation", delegation=_delegation(main=NORTH))
    new = _message(b, DEVICE, 3, "new delegation", delegation=_delegation(main=NEW_NORTH))
    b.finish()
    assert verify_archive(_v3(b, [new]))["complete"]
    with pytest.raises(ArchiveError, match="delegation that does not hold"):
        verify_archive(_v3(b, [old]))


# --- conditional orders over moves taken back -------------------------------------------------

def _when_hold_roll(b, at=0):
    """east's order "if hold then roll", written at ``at``; (document, book, hash)."""
    doc = _order(b, EAST, at, "if hold then roll", seat="east")
    book = OrderBook([doc], KeyHistory({"north": public_key_hex(NORTH),
                                        "east": public_key_hex(EAST)}), b.game)
    return doc, book, next(iter(book.orders))


def test_a_move_taken_back_is_not_the_next_move():
    b = TableBuilder()
    order = parse_order(b.game, "if hold then roll")
    history = []

    def track(seat, text, **kw):
        history.append(b.move(seat, text, **kw))

    track("north", "peek")                       # 0: reveals, not taken back
    track("north", "hold")                       # 1: the next move, but it may be taken back
    assert conditional(b.game, "east", order, 0, history, b.log.table) == "spent"
    assert conditional(b.game, "east", order, 1, history, b.log.table) == "due"
    track("north", "@takeback 1")                # 2
    track("east", "@accept takeback")            # 3
    # hold 1 never stood: the order written at 1 waits for north's next move
    assert conditional(b.game, "east", order, 1, history, b.log.table) == "waiting"
    assert reply(b.game, b.state, "east", order, 1, history, b.log.table) is None
    track("north", "hold")                       # 4: the next move that stands
    assert conditional(b.game, "east", order, 1, history, b.log.table) == "due"
    assert reply(b.game, b.state, "east", order, 1, history, b.log.table) == "roll"


def test_the_verifier_counts_the_next_move_that_stands():
    from shared.envelope import entry_hash, make_envelope, sign_envelope
    from tests.helpers.table import SERVER

    def build(variant):
        b = TableBuilder()
        b.move("north", "hold")                  # 0
        doc, book, digest = _when_hold_roll(b, at=1)
        b.move("east", "hold")                   # 1
        b.move("north", "hold")                  # 2: hold, the order's move
        if variant != "stands":
            b.move("north", "@takeback 2")       # 3: ... taken back
            b.move("east", "@accept takeback")   # 4
            if variant == "peek instead":
                b.move("north", "peek")          # 5: the next move that stands
            b.move("north", "hold")
        # the server's reply (late: it could have replied after entry 2), claiming the order
        seq = len(b.entries)
        env = make_envelope(b.header["game"], seq, b.prev, "east", "roll", f"t-{seq}",
                            1_800_000_000 + seq, forced=True, order=digest)
        raw, sig = sign_envelope(SERVER, env)
        b.log.step(env)
        b.state = b.log.state
        digest2 = entry_hash(raw.encode("utf-8"), sig)
        b.entries.append({"seq": seq, "envelope": raw, "signature": sig, "hash": digest2})
        b.prev = digest2
        b.finish()
        return _v3(b, [], [doc])

    # right after the hold that stands: it follows from the order
    assert verify_archive(build("stands"))["order_entries"] == 1
    # the hold was taken back and played again: the hold that stands is the next move
    assert verify_archive(build("hold again"))["order_entries"] == 1
    # the hold was taken back and north peeked instead: the next move that stands was the
    # peek, and a reply after the later hold does not follow from the order
    with pytest.raises(ArchiveError, match="does not follow from its order"):
        verify_archive(build("peek instead"))


def test_accept_takeback_orders_parse_and_reply_only_to_a_request_owed():
    b = TableBuilder()
    order = parse_order(b.game, "Accept takeback")
    assert order == Order("accept_takeback", ())
    assert reply(b.game, b.state, "east", order, 0, [], b.log.table) is None
    b.move("north", "hold")
    b.move("north", "@takeback 0")
    assert reply(b.game, b.state, "east", order, 0, [], b.log.table) == "@accept takeback"
    assert reply(b.game, b.state, "north", order, 0, [], b.log.table) is None
    # no rules move for any other order while a request waits
    assert reply(b.game, b.state, "east", parse_order(b.game, "roll"), 0, [],
                 b.log.table) is None


@pytest.mark.parametrize("kind", [["message"], {"a": 1}, None, 3, "note"])
def test_a_document_kind_that_is_no_known_name_is_refused_in_a_sentence(kind):
    """The full-count fuzz run sent ``"kind": [null, null]``: an unhashable kind made the
    lookup raise TypeError (a 500); every kind that is not one of the names is refused."""
    doc = {"body": {"kind": kind, "game": "g", "seat": "north", "at": 0}, "signature": "0" * 128}
    with pytest.raises(DocumentError, match="kind must be one of"):
        read_message(doc, {"north": public_key_hex(bytes(32))}, "g")
