"""Table entries through the HTTP API (shared/table.py on the server): takebacks asked,
answered, refused and refused by the deadline; what the views, the legal list, the log and the
notices say; key rotation (by the main key and by the recovery key) and its registration; the
hostile cases.  Runs on SQLite, and on PostgreSQL with PBEM_TEST_DATABASE_URL."""


import pytest

from shared.archive import verify_archive
from shared.envelope import public_key_hex, sign
from shared.table import key_rotation_message, recovery_message
from tests.helpers.api import start_pig


def _view(player, game_id):
    return player.get(f"/api/games/{game_id}/view").get_json()


def _hold_with_a_pot(game_id, ann, bob):
    """north (ann) rolls until it has a pot, then holds; returns (seq of the hold, pot)."""
    while True:
        r = ann.play(game_id, "north", "roll")
        assert r.status_code == 201, r.get_json()
        info = _view(ann, game_id)
        if info["view"]["pot"]:
            break
        assert bob.play(game_id, "east", "hold").status_code == 201
    pot = info["view"]["pot"]
    r = ann.play(game_id, "north", "hold")
    assert r.status_code == 201
    return r.get_json()["seq"], pot


def test_a_takeback_asked_accepted_and_shown(make_player, app):
    ann = make_player("ann")
    bob = make_player("bob", email="bob@example.org")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    hold, pot = _hold_with_a_pot(game_id, ann, bob)
    from server.workers.notify import compose_turn_notices
    with app.app_context():
        compose_turn_notices()  # east was told it owes a roll; the request tells it again
    r = ann.play(game_id, "north", f"@takeback {hold}")
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["events"] == ["north asks to take back 1 move (move %d)" % hold]
    info = _view(bob, game_id)
    assert info["game"]["to_act"] == ["east"]
    assert info["view"]["takeback"]["seat"] == "north"
    assert "@accept takeback" in info["view"]["owes"]["east"]
    assert bob.get(f"/api/games/{game_id}/legal").get_json()["moves"] == \
        ["@accept takeback", "@refuse takeback"]
    assert ann.get(f"/api/games/{game_id}/legal").get_json()["moves"] == []
    # the game page shows the request to everyone
    page = bob.client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "asks to take back" in page and "Waiting for:" in page
    # no rules move while the request waits
    r = bob.play(game_id, "east", "roll")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "takeback_pending"
    # the other seat owes an answer: a duty, hence a turn notice
    from server.db.models import Duty, Notice
    from server.workers.notify import compose_turn_notices
    with app.app_context():
        from server.db import db
        duties = db.session.execute(db.select(Duty).filter_by(game_id=game_id)).scalars().all()
        assert [d.seat for d in duties] == ["east"]
        compose_turn_notices()
        notice = db.session.execute(db.select(Notice).filter_by(game_id=game_id)
                                    .order_by(Notice.id.desc())).scalars().first()
        assert notice.to_address == "bob@example.org"
        assert "north's request to take back 1 move" in notice.subject
        # the subject reads as a sentence: "...: your move: answer north's request ..."
        assert f"{game_id}: your move: " in notice.subject and "you owe" not in notice.subject
        assert "@accept takeback" in notice.body and "@refuse takeback" in notice.body
    r = bob.play(game_id, "east", "@accept takeback")
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["events"][-1] == f"north takes back 1 move (move {hold})"
    info = _view(ann, game_id)
    assert info["game"]["to_act"] == ["north"] and info["view"]["pot"] == pot
    assert info["view"]["scores"]["north"] == 0 and "takeback" not in info["view"]
    log = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert [e["move"] for e in log[-2:]] == [f"@takeback {hold}", "@accept takeback"]
    # play on to the end; the archive verifies with the takeback in it
    _play_to_end(game_id, {"north": ann, "east": bob})
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert report["complete"] and report["table"]["taken_back"] == [hold]


def _play_to_end(game_id, by_seat):
    for _ in range(2000):
        info = _view(by_seat["north"], game_id)
        if info["game"]["status"] == "over":
            return
        seat = info["game"]["to_act"][0]
        move = "hold" if info["view"]["pot"] >= 8 else "roll"
        assert by_seat[seat].play(game_id, seat, move).status_code == 201
    pytest.fail("the game did not end")


def test_the_snapshot_is_a_cache_even_after_a_takeback(make_player, app):
    game_id, (ann, bob) = start_pig(make_player)
    hold, pot = _hold_with_a_pot(game_id, ann, bob)
    ann.play(game_id, "north", f"@takeback {hold}")
    before = _view(ann, game_id)["view"]
    from server.db import db
    from server.db.models import Snapshot
    with app.app_context():
        db.session.execute(db.delete(Snapshot))
        db.session.commit()
        app.extensions.pop("pbem_state_cache", None)
    assert _view(ann, game_id)["view"] == before
    assert bob.play(game_id, "east", "@accept takeback").status_code == 201
    with app.app_context():
        db.session.execute(db.delete(Snapshot))
        db.session.commit()
        app.extensions.pop("pbem_state_cache", None)
    assert _view(ann, game_id)["view"]["pot"] == pot


def test_refusal_and_the_rate_limit(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    hold, pot = _hold_with_a_pot(game_id, ann, bob)
    assert ann.play(game_id, "north", f"@takeback {hold}").status_code == 201
    r = bob.play(game_id, "east", "@refuse takeback")
    assert r.status_code == 201 and "refuses" in r.get_json()["events"][0]
    r = ann.play(game_id, "north", f"@takeback {hold}")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "takeback_rate_limited"
    assert _view(ann, game_id)["game"]["to_act"] == ["east"]


def test_a_late_answer_is_refused_by_the_server(make_player, app, clock):
    a, b = make_player("ann"), make_player("bob")
    r = a.post("/api/games", {"type": "pig", "seats": 2, "options": {"target": 20},
                              "move_hours": 24})
    game_id = r.get_json()["id"]
    assert b.post(f"/api/games/{game_id}/join", {}).status_code == 200
    hold, pot = _hold_with_a_pot(game_id, a, b)
    assert a.play(game_id, "north", f"@takeback {hold}").status_code == 201
    clock.advance(25 * 3600)
    from server.workers.notify import sweep_deadlines
    with app.app_context():
        forced, _ = sweep_deadlines()
    assert forced == 1
    log = a.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert log[-1]["move"] == "@refuse takeback" and log[-1]["forced"]
    assert "late" in log[-1]["events"][0]
    assert _view(a, game_id)["game"]["to_act"] == ["east"]
    assert verify_archive(a.get(f"/api/games/{game_id}/archive").get_json())["entries"] == \
        len(log)


def test_hostile_table_entries_are_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    mallory = make_player("mallory")
    hold, pot = _hold_with_a_pot(game_id, ann, bob)
    # a stranger's takeback, signed with her own key for a seat of the game
    r = mallory.play(game_id, "north", f"@takeback {hold}")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    # a takeback of another seat's moves
    r = bob.play(game_id, "east", f"@takeback {hold}")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "cannot_take_back"
    # across a roll
    r = ann.play(game_id, "north", f"@takeback {hold - 1}")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "cannot_take_back"
    # malformed
    r = ann.play(game_id, "north", "@takeback  1")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "bad_table_entry"
    assert ann.play(game_id, "north", f"@takeback {hold}").status_code == 201
    # answering twice, answering one's own request
    own = ann.play(game_id, "north", "@accept takeback")
    assert own.get_json()["error"]["code"] == "own_request"
    assert bob.play(game_id, "east", "@accept takeback").status_code == 201
    r = bob.play(game_id, "east", "@accept takeback")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "no_takeback"


# --- keys: recovery codes, rotation ------------------------------------------------------------

def _register_recovery(player, recovery):
    rpub = public_key_hex(recovery)
    return {"recovery_key": rpub, "recovery_cert": sign(player.key, recovery_message(
        player.name, rpub))}


def _rotation_body(player, new_key, signer, recovery):
    """A rotation of ``player``'s main key to ``new_key``, proven by ``signer``: bound to the
    key the server has now and to its rotation count (read from the public profile)."""
    new_pub = public_key_hex(new_key)
    profile = player.client.get(f"/api/players/{player.name}").get_json()
    return {"public_key": new_pub,
            "proof": sign(signer, key_rotation_message(
                player.name, profile["public_key"], new_pub, profile["key_rotations"])),
            "recovery_cert": sign(new_key, recovery_message(player.name,
                                                            public_key_hex(recovery)))}


def test_a_rotated_seat_old_key_is_refused_after_the_rotation(make_player, client, clock):
    from tests.conftest import Player
    ann = Player(client, clock, "ann")
    recovery = bytes([9]) * 32
    assert ann.register(**_register_recovery(ann, recovery)).status_code == 201
    bob = make_player("bob")
    r = ann.post("/api/games", {"type": "pig", "seats": 2})
    game_id = r.get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    profile = client.get("/api/players/ann").get_json()
    assert profile["recovery_key"] == public_key_hex(recovery)
    new = bytes([10]) * 32
    old = ann.key
    r = ann.play(game_id, "north", "@rotate " + public_key_hex(new))
    assert r.status_code == 201, r.get_json()
    r = ann.post("/api/players/ann/key", _rotation_body(ann, new, old, recovery))
    assert r.status_code == 200, r.get_json()
    # the old key: no longer signs requests, nor moves in the game
    assert ann.get("/api/players/me").status_code == 401
    from client.signing import signed_move
    info = _view(bob, game_id)
    body = signed_move(old, game_id, info["next_seq"], info["prev"], "north", "roll",
                       ts=clock())
    r = client.post(f"/api/games/{game_id}/moves", json=body)
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    ann.key = new
    assert ann.play(game_id, "north", "roll").status_code == 201
    assert ann.get("/api/players/me").get_json()["public_key"] == public_key_hex(new)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert archive["header"]["seats"][0]["public_key"] == public_key_hex(old)
    assert verify_archive(archive)["entries"] == 2


def test_rotation_with_the_recovery_key_when_the_main_key_is_lost(make_player, client, clock):
    from tests.conftest import Player
    ann = Player(client, clock, "ann")
    recovery = bytes([9]) * 32
    assert ann.register(**_register_recovery(ann, recovery)).status_code == 201
    bob = make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    new = bytes([10]) * 32
    rpub = public_key_hex(recovery)
    cert = client.get("/api/players/ann").get_json()["recovery_certs"][ann.public_key]
    text = f"@rotate {public_key_hex(new)} recovery {rpub} {cert}"
    from client.signing import signed_move
    info = _view(bob, game_id)
    body = signed_move(recovery, game_id, info["next_seq"], info["prev"], "north", text,
                       ts=clock())
    r = client.post(f"/api/games/{game_id}/moves", json=body)
    assert r.status_code == 201, r.get_json()
    # the server learns of the new key from a proof by the recovery key (no signed request)
    body = _rotation_body(ann, new, recovery, recovery)
    body["by"] = "recovery"
    r = client.post("/api/players/ann/key", json=body)
    assert r.status_code == 200, r.get_json()
    ann.key, ann.public_key = new, public_key_hex(new)
    assert ann.play(game_id, "north", "roll").status_code == 201
    # a forged rotation: a proof by a stranger's key is refused
    forged = _rotation_body(ann, bytes([11]) * 32, bytes([66]) * 32, recovery)
    r = client.post("/api/players/ann/key", json=dict(forged, by="recovery"))
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_proof"
    r = client.post("/api/players/ann/key", json=dict(forged, by="main"))
    assert r.status_code == 403


def test_forged_rotation_entries_are_refused(make_player, client, clock):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    # bob signs a rotation of ann's seat with his key
    r = bob.play(game_id, "north", "@rotate " + public_key_hex(bytes([12]) * 32))
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    # a recovery rotation whose certificate bob made with his own key
    rpub = public_key_hex(bytes([13]) * 32)
    cert = sign(bob.key, recovery_message("ann", rpub))
    from client.signing import signed_move
    info = _view(bob, game_id)
    body = signed_move(bytes([13]) * 32, game_id, info["next_seq"], info["prev"], "north",
                       f"@rotate {public_key_hex(bytes([12]) * 32)} recovery {rpub} {cert}",
                       ts=clock())
    r = client.post(f"/api/games/{game_id}/moves", json=body)
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    assert "recovery certificate" in r.get_json()["error"]["message"]
    # registration with a certificate not made by the registered key
    carl = make_player("carl", register=False)
    bad = {"recovery_key": rpub, "recovery_cert": sign(bob.key, recovery_message("carl", rpub))}
    r = carl.register(**bad)
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "bad_recovery_cert"


def test_a_rotation_proof_is_good_once_and_cannot_bring_back_an_old_key(client, clock):
    """The attack: rotate by recovery to K2, then K2 -> K3, then post the first body again.
    Version 1 proofs signed only the player and the new key, so the replay made K2 (the key
    the player rotated away from, perhaps because it leaked) the account's key again."""
    from tests.conftest import Player
    ann = Player(client, clock, "ann")
    recovery = bytes([9]) * 32
    assert ann.register(**_register_recovery(ann, recovery)).status_code == 201
    k2, k3 = bytes([20]) * 32, bytes([21]) * 32
    first = dict(_rotation_body(ann, k2, recovery, recovery), by="recovery")
    r = client.post("/api/players/ann/key", json=first)
    assert r.status_code == 200, r.get_json()
    assert client.get("/api/players/ann").get_json()["key_rotations"] == 1
    ann.key, ann.public_key = k2, public_key_hex(k2)
    second = _rotation_body(ann, k3, k2, recovery)
    r = client.post("/api/players/ann/key", json=second)
    assert r.status_code == 200, r.get_json()
    for replay in (first, second):
        r = client.post("/api/players/ann/key", json=replay)
        assert r.status_code == 403, r.get_json()
        assert r.get_json()["error"]["code"] == "bad_proof"
    profile = client.get("/api/players/ann").get_json()
    assert profile["public_key"] == public_key_hex(k3) and profile["key_rotations"] == 2
    # a version 1 proof (player and new key only) is refused too
    from shared.envelope import canonical_json
    v1 = b"pbem-key-rotation-v1\n" + canonical_json({"player": "ann",
                                                      "public_key": public_key_hex(k2)})
    old_style = dict(first, proof=sign(recovery, v1))
    assert client.post("/api/players/ann/key", json=old_style).status_code == 403
    assert client.get("/api/players/ann").get_json()["public_key"] == public_key_hex(k3)


def test_the_games_listing_carries_what_each_table_asks_when_asked(make_player):
    """GET /api/games?asked=true: each playing game of the caller's with the takeback
    pending and the decisions, as its table route has them; not for others, not unasked."""
    ann, bob = make_player("ann"), make_player("bob")
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2}).get_json()["id"]
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    hold, _ = _hold_with_a_pot(game_id, ann, bob)
    assert ann.play(game_id, "north", f"@takeback {hold}").status_code == 201
    listed = {g["id"]: g for g in bob.get("/api/games?asked=true").get_json()["games"]}
    table = bob.get(f"/api/games/{game_id}/table").get_json()
    asked = listed[game_id]["asked"]
    assert asked == {k: table[k] for k in ("seat", "pending", "decisions")}
    assert asked["seat"] == "east" and "east" in asked["pending"]["owed"]
    assert "asked" not in bob.get("/api/games").get_json()["games"][0]  # not asked for
    unsigned = bob.get("/api/games?status=playing&asked=true", signed=False).get_json()
    assert all("asked" not in g for g in unsigned["games"])  # nobody's seat: nothing asked
    r = bob.get("/api/games?asked=perhaps")
    assert r.status_code == 400 and r.get_json()["error"]["message"]
