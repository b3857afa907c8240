"""Standing orders and the table: the order "accept takeback" (the server's forced
``@accept takeback`` carrying the order, once), conditional orders and moves taken back (only
the next move that *stands* counts), and the archives the verifier refuses when a server
forges such entries."""

import copy
import json
import secrets

import pytest

from shared.archive import ArchiveError, verify_archive
from shared.envelope import entry_hash, make_envelope, sign_envelope
from shared.messages import sign_document
from shared.orders import CANCEL_DOMAIN, make_cancel
from tests.fixtures import pig
from tests.helpers.api import start_pig
from tests.helpers.orders import _finish, _log, _resign
from tests.server.talk_helpers import order


def _status(player, game_id):
    return [(o["text"], o["status"], o["played"])
            for o in player.get(f"/api/games/{game_id}/orders").get_json()["orders"]]


def _view(player, game_id):
    return player.get(f"/api/games/{game_id}/view").get_json()


@pytest.fixture
def north_rolls_one_first(monkeypatch):
    """Pig's die, made a function of the state so that the server and the verifier (in this
    process) agree: north's rolls are 1 until a seat has scored (so north's first roll ends
    its turn); every other roll is the real one."""
    real = pig.APPLIES["roll"]

    def roll(state, seat, move, plan, rng):
        if seat == "north" and not any(state["scores"].values()):
            rng.die(6)  # the same draws as the real roll
            state["events"].append({"public": f"{seat} rolled 1"})
            state["pot"] = 0
            pig._next_turn(state)
        else:
            real(state, seat, move, plan, rng)
    monkeypatch.setitem(pig.APPLIES, "roll", roll)


def _accepting_game(make_player):
    """A Pig game where east (bob) leaves "accept takeback" and north (ann) holds at once
    and asks to take the hold back; returns (game id, ann, bob, the order's hash)."""
    game_id, (ann, bob) = start_pig(make_player, target=12)
    r = order(bob, game_id, "east", "accept the next takeback")
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["order"]["text"] == "accept takeback" and r.get_json()["played"] == 0
    digest = r.get_json()["order"]["hash"]
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 0, pot 0
    r = ann.play(game_id, "north", "@takeback 0")                          # seq 1
    assert r.status_code == 201, r.get_json()
    return game_id, ann, bob, digest


def test_accept_takeback_answers_the_next_request_once(make_player, app):
    game_id, ann, bob, digest = _accepting_game(make_player)
    log = _log(ann, game_id)
    assert log[2] == (2, "east", "@accept takeback", digest)  # forced, marked with the order
    assert json.loads(ann.get(f"/api/games/{game_id}/log").get_json()["entries"][2][
        "envelope"])["forced"] is True
    info = _view(ann, game_id)
    assert info["view"]["to_act"] == ["north"] and "takeback" not in info["view"]
    assert _status(bob, game_id) == [("accept takeback", "done", 1)]
    # a process that played it and died before marking it: the log says it is spent
    from server.db import db
    from server.db.models import StandingOrder
    with app.app_context():
        db.session.execute(db.update(StandingOrder).values(done=False, played=0))
        db.session.commit()
    # the next request is east's own to answer: the order is spent
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 3
    assert ann.play(game_id, "north", "@takeback 3").status_code == 201    # seq 4
    assert len(_log(ann, game_id)) == 5 and _view(bob, game_id)["view"]["to_act"] == ["east"]
    assert bob.play(game_id, "east", "@refuse takeback").status_code == 201
    _finish(game_id, {"north": ann, "east": bob})
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert report["complete"] and report["order_entries"] == 1


def test_an_order_written_while_a_request_waits_answers_it(make_player):
    game_id, (ann, bob) = start_pig(make_player, target=12)
    assert ann.play(game_id, "north", "hold").status_code == 201
    assert ann.play(game_id, "north", "@takeback 0").status_code == 201
    r = order(bob, game_id, "east", "accept takeback")
    assert r.status_code == 201 and r.get_json()["played"] == 1
    assert _log(ann, game_id)[2][2] == "@accept takeback"
    # while a request waits no rules move is played for an order: a roll order waits for it
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 3
    order(bob, game_id, "east", "roll")
    assert _log(ann, game_id)[-1][1:3] == ("east", "roll")                # east's turn: rolled


def _forced(app, game_id, seq, prev, seat, move, digest=None):
    from server.db.keys import server_key
    with app.app_context():
        priv = server_key()[0]
    env = make_envelope(game_id, seq, prev, seat, move, secrets.token_hex(8), 1, forced=True,
                        **({"order": digest} if digest else {}))
    text, sig = sign_envelope(priv, env)
    return {"seq": seq, "envelope": text, "signature": sig,
            "hash": entry_hash(text.encode(), sig)}


def _forge(app, good, game_id, at, seat, move, digest=None):
    """``good`` cut before entry ``at``, with a server-forced entry ``at`` in its place."""
    bad = copy.deepcopy(good)
    bad["entries"] = bad["entries"][:at]
    bad["orders"] = [d for d in bad["orders"] if d["body"]["at"] <= at + 1]
    bad["entries"].append(_forced(app, game_id, at, bad["entries"][-1]["hash"], seat, move,
                                  digest))
    return _resign(app, bad, at)


def test_forged_forced_accepts_are_refused(make_player, app):
    game_id, ann, bob, digest = _accepting_game(make_player)
    # north leaves an order too (it never answers a request: nobody asks it)
    other = order(ann, game_id, "north", "accept takeback").get_json()["order"]["hash"]
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 3
    assert ann.play(game_id, "north", "@takeback 3").status_code == 201    # seq 4
    assert bob.play(game_id, "east", "@accept takeback").status_code == 201  # seq 5: by hand
    _finish(game_id, {"north": ann, "east": bob})
    good = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(good)["complete"]

    # 1. a forced accept that names no order: the server may not consent for a seat
    with pytest.raises(ArchiveError, match="may only refuse a takeback"):
        verify_archive(_forge(app, good, game_id, 2, "east", "@accept takeback"))
    # ... nor refuse for one in an order's name
    with pytest.raises(ArchiveError, match="no standing order refuses"):
        verify_archive(_forge(app, good, game_id, 2, "east", "@refuse takeback", digest))
    # 2. a forced accept for east that names north's order
    with pytest.raises(ArchiveError, match="order of seat north"):
        verify_archive(_forge(app, good, game_id, 2, "east", "@accept takeback", other))
    # 3. the order spent: the second request answered in its name too
    with pytest.raises(ArchiveError, match="already carried out"):
        verify_archive(_forge(app, good, game_id, 5, "east", "@accept takeback", digest))
    # 4. the order cancelled before the entry that claims it (a cancellation east signed)
    bad = copy.deepcopy(good)
    body = make_cancel(game_id, "east", 1, digest, "n0nce123", 1)
    bad["orders"].append(sign_document(bob.key, CANCEL_DOMAIN, body))
    with pytest.raises(ArchiveError, match="not in force"):
        verify_archive(bad)
    # 5. a forced accept where no request waits (the order's situation did not hold)
    with pytest.raises(ArchiveError, match="no takeback request|situation did not hold"):
        verify_archive(_forge(app, good, game_id, 1, "east", "@accept takeback", digest))


def test_a_conditional_order_waits_for_the_next_move_that_stands(make_player, app,
                                                                  north_rolls_one_first):
    game_id, (ann, bob) = start_pig(make_player, target=12)
    when = order(bob, game_id, "east", "if roll then hold").get_json()["order"]["hash"]
    yes = order(bob, game_id, "east", "accept takeback").get_json()["order"]["hash"]
    # north's next move is a hold: not the order's move, but it may still be taken back
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 0
    assert ("if roll then hold", "in force", 0) in _status(bob, game_id)
    # ... and it is: the hold never stood, so the order still waits for north's next move
    assert ann.play(game_id, "north", "@takeback 0").status_code == 201    # seq 1
    assert _log(ann, game_id)[2] == (2, "east", "@accept takeback", yes)
    assert ("if roll then hold", "in force", 0) in _status(bob, game_id)
    # north rolls a 1 (the fixture's die): its turn ends, and the order replies at once
    assert ann.play(game_id, "north", "roll").status_code == 201          # seq 3
    assert _log(ann, game_id)[4] == (4, "east", "hold", when)
    assert ("if roll then hold", "done", 1) in _status(bob, game_id)

    # a second one, spent by a move that stands: north holds (may be taken back: it waits),
    # then east rolls, and the hold can no longer be taken back
    order(bob, game_id, "east", "if roll then hold")
    assert ann.play(game_id, "north", "hold").status_code == 201          # seq 5
    assert _status(bob, game_id)[-1] == ("if roll then hold", "in force", 0)
    assert bob.play(game_id, "east", "roll").status_code == 201
    assert _status(bob, game_id)[-1] == ("if roll then hold", "done", 0)
    _finish(game_id, {"north": ann, "east": bob})
    good = ann.get(f"/api/games/{game_id}/archive").get_json()
    report = verify_archive(good)
    assert report["complete"] and report["order_entries"] == 2

    # the verifier counts the same way: the reply claimed right after the hold that was
    # taken back (north's next move that stands was the roll, not that hold)
    with pytest.raises(ArchiveError, match="does not follow from its order"):
        verify_archive(_forge(app, good, game_id, 1, "east", "hold", when))


# --- side documents of a device, and after a rotation, over the API -------------------------

def test_device_documents_over_the_api(make_player, clock):
    from shared.messages import MESSAGE_DOMAIN, make_message
    from shared.orders import ORDER_DOMAIN, make_order
    from tests.helpers.devices import DAY, Device, _code
    from tests.server.talk_helpers import length
    game_id, (ann, bob) = start_pig(make_player, target=12)
    phone = Device(ann, days=1)
    assert phone.register().status_code == 201

    def doc(domain, make, *args, key=phone.key, delegation=phone.delegation):
        body = make(game_id, "north", *args, secrets.token_hex(8), ann.clock(), delegation)
        return sign_document(key, domain, body)

    def message(text, **kw):
        at = length(ann, game_id)
        return doc(MESSAGE_DOMAIN, lambda g, s, *a: make_message(g, s, None, at, text, *a),
                   **kw)

    url = f"/api/games/{game_id}/messages"
    r = ann.post(url, message("from the phone"))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["document"]["body"]["delegation"]["label"] == "phone"
    # unsigned too (the page's way): the device's delegation is the proof
    assert ann.post(url, message("unsigned, from the phone"), signed=False).status_code == 201
    # an order from the device, in a request signed by the device key
    r = phone.request("POST", f"/api/games/{game_id}/orders",
                      doc(ORDER_DOMAIN, lambda g, s, *a: make_order(g, s, 0, "roll", *a)))
    assert r.status_code == 201, r.get_json()
    # refused: the device's key without its delegation, a delegation bob's key signed, a
    # delegation past its date by the server's clock, a device revoked in the registry
    r = ann.post(url, message("no delegation", delegation=None))
    assert r.status_code == 403 and _code(r) == "bad_signature"
    other = Device(ann, signer=bob.key)
    r = ann.post(url, message("forged", key=other.key, delegation=other.delegation))
    assert r.status_code == 403 and _code(r) == "bad_delegation"
    late = message("signed in time, received late")
    clock.advance(DAY + 1)
    r = ann.post(url, late)
    assert r.status_code == 403 and _code(r) == "delegation_expired"
    tablet = Device(ann, label="tablet")
    assert tablet.register().status_code == 201
    ok = ann.post(url, message("tablet", key=tablet.key, delegation=tablet.delegation))
    assert ok.status_code == 201
    assert ann.post("/api/devices/tablet/revoke").status_code == 200
    # the registry refuses it at once, and the game's log records the revocation
    r = ann.post(url, message("revoked", key=tablet.key, delegation=tablet.delegation))
    assert r.status_code == 403 and _code(r) == "device_revoked"
    # ... and the archive verifies with the phone's, the tablet's and the order's documents
    # (the order's "roll" entry was played at once: north's turn had begun)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert [m["body"]["text"] for m in archive["messages"]] == [
        "from the phone", "unsigned, from the phone", "tablet"]
    assert verify_archive(archive)["messages"]
