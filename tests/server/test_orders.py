"""Standing orders over the API: carried out by the server as marked entries, secret
while the game runs, cancelled, in the archive, and refused when tampered with."""

import copy
import json
import secrets

import pytest

from shared.archive import ArchiveError, verify_archive
from shared.envelope import entry_hash, make_envelope, sign_envelope
from tests.helpers.api import start_pig
from tests.helpers.orders import _finish, _log, _resign
from tests.server.talk_helpers import cancel, hash_of, order, order_doc


def test_a_roll_order_plays_at_the_start_of_the_turn_only(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    r = order(bob, game_id, "east", "roll")
    assert r.status_code == 201 and r.get_json()["played"] == 0
    digest = r.get_json()["order"]["hash"]
    assert ann.play(game_id, "north", "hold").status_code == 201
    log = _log(ann, game_id)
    assert log[1] == (1, "east", "roll", digest)  # right after the move that called for it
    assert len(log) == 2                            # not again: east's own roll came last
    listed = bob.get(f"/api/games/{game_id}/orders").get_json()["orders"]
    assert listed[0]["played"] == 1 and listed[0]["status"] == "in force"


def test_orders_are_secret_from_the_other_seats_until_the_end(make_player):
    game_id, (ann, bob) = start_pig(make_player, target=3)
    assert order(bob, game_id, "east", "roll").status_code == 201
    assert ann.get(f"/api/games/{game_id}/orders").get_json()["orders"] == []
    assert ann.get(f"/api/games/{game_id}/orders", signed=False).status_code == 401
    for reader in (ann.get(f"/api/games/{game_id}/archive").get_json(),
                   ann.get(f"/api/games/{game_id}/archive", signed=False).get_json()):
        assert reader["orders"] == []
    assert len(bob.get(f"/api/games/{game_id}/archive").get_json()["orders"]) == 1
    # a running archive without the order still verifies as a prefix, and says why
    assert ann.play(game_id, "north", "hold").status_code == 201
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert not report["complete"] and "standing orders this archive does not show" in \
        report["note"]
    _finish(game_id, {"north": ann, "east": bob})
    final = ann.get(f"/api/games/{game_id}/archive", signed=False).get_json()
    assert [d["body"]["text"] for d in final["orders"]] == ["roll"]
    report = verify_archive(final)
    assert report["complete"] and report["orders"] == 1 and report["order_entries"] >= 1


def test_cancelled_orders_stop(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    r = order(bob, game_id, "east", "roll")
    digest = r.get_json()["order"]["hash"]
    assert ann.get(f"/api/games/{game_id}/orders").get_json()["orders"] == []
    # only its own player cancels it
    assert cancel(ann, game_id, "north", digest).status_code == 404
    assert cancel(ann, game_id, "east", digest).status_code == 403
    r = cancel(bob, game_id, "east", digest)
    assert r.status_code == 200 and r.get_json()["status"] == "cancelled"
    assert cancel(bob, game_id, "east", digest).status_code == 409
    assert ann.play(game_id, "north", "hold").status_code == 201
    assert len(_log(ann, game_id)) == 1
    _finish(game_id, {"north": ann, "east": bob})
    final = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert [d["body"]["kind"] for d in final["orders"]] == ["order", "cancel"]
    assert verify_archive(final)["complete"]


def test_a_conditional_order_replies_once_and_is_spent_by_another_move(make_player):
    game_id, (ann, bob) = start_pig(make_player, target=50)
    first = order(bob, game_id, "east", "if hold then roll").get_json()["order"]["hash"]
    assert ann.play(game_id, "north", "hold").status_code == 201
    assert _log(ann, game_id)[1] == (1, "east", "roll", first)
    listed = bob.get(f"/api/games/{game_id}/orders").get_json()["orders"]
    assert listed[0]["status"] == "done"
    # a second one, whose move does not come: ann rolls instead, and the order is spent
    _to_norths_turn(game_id, ann, bob)
    order(bob, game_id, "east", "if hold then roll")
    seq = len(_log(ann, game_id))
    ann.play(game_id, "north", "roll")
    listed = bob.get(f"/api/games/{game_id}/orders").get_json()["orders"]
    assert listed[1]["status"] == "done" and listed[1]["played"] == 0
    assert all(o is None for s, _, _, o in _log(ann, game_id)[seq:])


def _to_norths_turn(game_id, ann, bob):
    for _ in range(100):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["view"]["to_act"] == ["north"]:
            return
        bob.play(game_id, "east", "hold")


def test_bad_orders_are_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    url = f"/api/games/{game_id}/orders"
    assert order(ann, game_id, "north", "decline offers").get_json()["error"]["code"] == \
        "unsupported_order"
    assert order(ann, game_id, "north", "sing a song").get_json()["error"]["code"] == \
        "bad_order"
    assert order(ann, game_id, "north", "if dance then roll").status_code == 422
    assert ann.post(url, order_doc(ann, game_id, "north", "roll", key=bytes(32))).get_json()[
        "error"]["code"] == "bad_signature"
    assert bob.post(url, order_doc(ann, game_id, "north", "roll")).get_json()["error"][
        "code"] == "not_your_seat"
    assert order(ann, game_id, "north", "roll", at=3).status_code == 409
    doc = order_doc(ann, game_id, "north", "roll")
    doc["body"]["text"] = "if hold then hold"
    assert ann.post(url, doc).get_json()["error"]["code"] == "bad_signature"


# --- the tampered order: archives re-signed by someone holding the server's key --------------


def test_a_tampered_order_or_an_entry_it_does_not_explain_is_refused(make_player, app):
    game_id, (ann, bob) = start_pig(make_player, target=3)
    assert order(bob, game_id, "east", "roll").status_code == 201
    assert ann.play(game_id, "north", "hold").status_code == 201
    _finish(game_id, {"north": ann, "east": bob})
    good = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(good)["complete"]
    index = next(i for i, e in enumerate(good["entries"]) if "order" in json.loads(e["envelope"]))

    # 1. the order's text changed after it was signed
    bad = copy.deepcopy(good)
    bad["orders"][0]["body"]["text"] = "if hold then roll"
    with pytest.raises(ArchiveError, match="bad signature"):
        verify_archive(bad)
    # 2. the order left out of a finished game's archive
    bad = copy.deepcopy(good)
    bad["orders"] = []
    with pytest.raises(ArchiveError, match="not in the archive"):
        verify_archive(bad)
    # 3. an order forged in the seat's name (another key)
    bad = copy.deepcopy(good)
    from shared.messages import sign_document
    from shared.orders import ORDER_DOMAIN
    bad["orders"][0] = sign_document(bytes(32), ORDER_DOMAIN, bad["orders"][0]["body"])
    with pytest.raises(ArchiveError, match="bad signature"):
        verify_archive(bad)
    # 4. an order entry in a v2 archive, which cannot carry orders
    bad = copy.deepcopy(good)
    bad["format"] = "pbem-archive-v2"
    del bad["orders"], bad["messages"], bad["documents"]  # v4: and the set's signature
    with pytest.raises(ArchiveError, match="cannot hold"):
        verify_archive(bad)
    # 5. the server claims the order for a move it does not explain: east's "roll" becomes
    #    "hold", re-signed by the server's key, the later entries re-linked
    bad = copy.deepcopy(good)
    forged = bad["entries"][index]
    env = json.loads(forged["envelope"])
    env["move"] = "hold"
    forged["envelope"] = json.dumps(env, sort_keys=True, separators=(",", ":"))
    bad["entries"] = bad["entries"][:index + 1]
    try:
        _resign(app, bad, index)
    except AssertionError:
        pytest.skip("the forged entry cannot be re-linked to a seat's move")
    with pytest.raises(ArchiveError, match="does not follow from its order"):
        verify_archive(bad)
    # 6. the server plays the order where its situation did not hold: a forced "roll" for
    #    east in the middle of east's own turn, claiming the order
    from server.db.keys import server_key
    bad = copy.deepcopy(good)
    bad["entries"] = bad["entries"][:index + 1]
    with app.app_context():
        priv = server_key()[0]
    last = bad["entries"][-1]
    env = make_envelope(game_id, index + 1, last["hash"], "east", "roll",
                        secrets.token_hex(8), 1, forced=True, order=env["order"])
    text, sig = sign_envelope(priv, env)
    bad["entries"].append({"seq": index + 1, "envelope": text, "signature": sig,
                           "hash": entry_hash(text.encode(), sig)})
    _resign(app, bad, index + 1)
    with pytest.raises(ArchiveError, match="does not follow from its order|out of turn|"
                                           "illegal"):
        verify_archive(bad)
    # 7. an order cancelled before the entry that claims it
    bad = copy.deepcopy(good)
    from shared.orders import CANCEL_DOMAIN, make_cancel
    cancel_body = make_cancel(game_id, "east", index - 1 if index else 0,
                              hash_of(good["orders"][0]), "n0nce123", 1)
    bad["orders"].append(sign_document(bob.key, CANCEL_DOMAIN, cancel_body))
    with pytest.raises(ArchiveError, match="not in force"):
        verify_archive(bad)
