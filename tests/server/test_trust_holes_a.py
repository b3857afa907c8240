"""Holes a hostile player found (part A): seats of rated games, rating farming, device keys
revoked by the wrong seat, a revoked device's standing orders, unsigned moves losing races."""

from server.db import db
from server.db.models import Game
from server.game import ratings
from tests.helpers.games import play_pig_to_end
from tests.helpers.mail import tick

# --- one player, two seats of a rated game -----------------------------------------------------

def test_a_rated_game_refuses_a_second_seat_for_one_player(app, make_player):
    """The attack: ann joins her own rated game again, sees both hands against bob, and the
    rating counts the game twice with the last seat's result."""
    ann, bob = make_player("ann"), make_player("bob")
    r = ann.post("/api/games", {"type": "pig", "seats": 3, "options": {"target": 1}})
    game_id = r.get_json()["id"]
    assert r.get_json()["rated"] is True
    for seat in (None, "south", "east", "north"):
        body = {} if seat is None else {"seat": seat}
        r = ann.post(f"/api/games/{game_id}/join", body)
        assert r.status_code == 409, r.get_json()
        assert r.get_json()["error"]["code"] in ("already_seated", "seat_taken")
    r = ann.post(f"/api/games/{game_id}/join", {})
    assert r.get_json()["error"]["code"] == "already_seated"
    assert r.get_json()["error"]["message"].startswith("you hold seat ")
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    r = bob.post(f"/api/games/{game_id}/join", {})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "already_seated"
    seats = ann.get(f"/api/games/{game_id}").get_json()["seats"]
    assert sorted(s["player"] or "" for s in seats) == ["", "ann", "bob"]


def test_two_joins_of_one_player_at_once_take_one_seat_of_a_rated_game(app, make_player,
                                                                       clock):
    """The race: ann posts two joins of her rated game at the same moment, for two seats;
    one takes a seat, the other is refused (already_seated or seat_taken), on both
    databases."""
    import threading

    from tests.conftest import Player
    ann = make_player("ann")
    creator = make_player("cat")
    r = creator.post("/api/games", {"type": "pig", "seats": 3, "options": {"target": 1}})
    game_id = r.get_json()["id"]
    barrier, codes = threading.Barrier(2), []

    def join(seat):
        me = Player(app.test_client(), clock, "ann")
        me.key, me.public_key = ann.key, ann.public_key
        barrier.wait()
        codes.append(me.post(f"/api/games/{game_id}/join", {"seat": seat}).status_code)

    threads = [threading.Thread(target=join, args=(seat,)) for seat in ("east", "south")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200, 409], codes
    seats = creator.get(f"/api/games/{game_id}").get_json()["seats"]
    assert [s["player"] for s in seats].count("ann") == 1


def test_an_unrated_game_may_still_seat_one_player_twice(app, make_player):
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "rated": False})
    game_id = r.get_json()["id"]
    r = ann.post(f"/api/games/{game_id}/join", {})
    assert r.status_code == 200, r.get_json()
    info = ann.get(f"/api/games/{game_id}").get_json()
    assert info["status"] == "playing" and [s["player"] for s in info["seats"]] == ["ann"] * 2


def test_a_rated_game_with_one_player_in_two_seats_is_not_rated(app, make_player):
    """A game seated before the rule (one player twice, rated) changes no rating."""
    app.config.update(PBEM_RATING_MIN_DAYS=0, PBEM_RATING_MIN_GAMES=0)  # no history asked
    ann, bob = make_player("ann"), make_player("bob")
    r = ann.post("/api/games", {"type": "pig", "seats": 3, "options": {"target": 1},
                                "rated": False})
    game_id = r.get_json()["id"]
    assert ann.post(f"/api/games/{game_id}/join", {}).status_code == 200
    assert bob.post(f"/api/games/{game_id}/join", {}).status_code == 200
    with app.app_context():
        db.session.get(Game, game_id).rated = True
        db.session.commit()
    by_seat = {s["seat"]: (ann if s["player"] == "ann" else bob)
               for s in ann.get(f"/api/games/{game_id}").get_json()["seats"]}
    play_pig_to_end(game_id, by_seat)
    tick(app)
    with app.app_context():
        assert db.session.get(Game, game_id).rated_at is not None
        assert ratings.leaderboard("pig")["ratings"] == []


# --- rating farming ------------------------------------------------------------------------

DAY = 24 * 3600


def _pig(make_player, players, rated):
    r = players[0].post("/api/games", {"type": "pig", "seats": len(players),
                                       "options": {"target": 1}, "rated": rated})
    assert r.status_code == 201, r.get_json()
    game_id = r.get_json()["id"]
    for p in players[1:]:
        assert p.post(f"/api/games/{game_id}/join", {}).status_code == 200
    by_name = {p.name: p for p in players}
    seats = {s["seat"]: by_name[s["player"]]
             for s in players[0].get(f"/api/games/{game_id}").get_json()["seats"]}
    return play_pig_to_end(game_id, seats)


def test_fresh_accounts_cannot_farm_a_rating(app, make_player, clock):
    """The attack: two fresh accounts of one person finish a rated game, and the winner went
    from 0 to +3.4.  A rated game changes ratings only between accounts with history: seven
    days old and three other finished games (unrated ones count)."""
    ann, bob = make_player("ann"), make_player("bob")
    assert _pig(make_player, [ann, bob], rated=True)["status"] == "over"
    assert tick(app)["rated"] == 1  # counted (once), and changes nothing
    assert ann.get("/api/ratings/pig").get_json()["ratings"] == []
    assert ann.get("/api/players/ann").get_json()["ratings"] == {}
    for _ in range(2):  # three finished games each now, but the accounts are a day old
        _pig(make_player, [ann, bob], rated=False)
    clock.advance(DAY)
    _pig(make_player, [ann, bob], rated=True)
    tick(app)
    assert ann.get("/api/ratings/pig").get_json()["ratings"] == []
    clock.advance(7 * DAY)  # old enough, with history: the next rated game counts
    cat = make_player("cat")  # ... but not against a fresh account
    _pig(make_player, [ann, cat], rated=True)
    tick(app)
    assert ann.get("/api/ratings/pig").get_json()["ratings"] == []
    _pig(make_player, [ann, bob], rated=True)
    tick(app)
    table = ann.get("/api/ratings/pig").get_json()["ratings"]
    assert sorted(e["player"] for e in table) == ["ann", "bob"]
    assert all(e["games"] == 1 for e in table)


# --- device keys: who may revoke them, and what a revocation ends -----------------------------

def _code(resp):
    return resp.get_json()["error"]["code"]


def _to_turn(game_id, seat, by_seat):
    """Play (roll, then hold) until ``seat`` owes the move."""
    ann = next(iter(by_seat.values()))
    ann = getattr(ann, "player", ann)  # a device reads through its player
    for _ in range(100):
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        if info["view"]["to_act"] == [seat]:
            return
        mover = info["view"]["to_act"][0]
        r = by_seat[mover].play(game_id, mover, "hold" if info["view"]["pot"] else "roll")
        assert r.status_code == 201, r.get_json()
    raise AssertionError(f"{seat} never came to move")


def _device_order(device, game_id, seat, text):
    from shared.messages import sign_document
    from shared.orders import ORDER_DOMAIN, make_order
    from tests.server.talk_helpers import length
    body = make_order(game_id, seat, length(device.player, game_id), text, "n0nce" * 3,
                      device.player.clock(), delegation=device.delegation)
    return device.player.post(f"/api/games/{game_id}/orders",
                              sign_document(device.key, ORDER_DOMAIN, body))


def _entries(player, game_id):
    import json
    return [dict(e, env=json.loads(e["envelope"]))
            for e in player.get(f"/api/games/{game_id}/log").get_json()["entries"]]


def test_a_seat_cannot_revoke_another_players_device_or_a_bots_key(app, make_player):
    """The attack: bob signs @revoke for ann's phone key (public in the log once the phone
    moved): 201, and ann's phone got 403 from then on; the same for bot-greedy's key, and
    ann's @handover to that bot was then refused."""
    from shared.archive import verify_archive
    from tests.helpers.api import start_pig
    from tests.helpers.bots import bot_key
    from tests.helpers.devices import Device
    game_id, (ann, bob) = start_pig(make_player)
    phone = Device(ann)
    assert phone.register().status_code == 201
    assert phone.play(game_id, "north", "roll").status_code == 201
    _to_turn(game_id, "east", {"north": phone, "east": bob})
    r = bob.play(game_id, "east", f"@revoke {phone.public_key}")
    assert r.status_code == 403 and _code(r) == "not_your_device", r.get_json()
    bot = bot_key(ann, level="random")
    r = bob.play(game_id, "east", f"@revoke {bot['public_key']}")
    assert r.status_code == 403 and _code(r) == "not_your_device", r.get_json()
    r = bob.play(game_id, "east", f"@revoke {ann.public_key}")
    assert r.status_code in (403, 409) and _code(r) in ("not_your_device", "main_key")
    # a key the registry does not know and the log never showed: bob's revocation binds
    # only bob's delegations, never ann's
    tablet = Device(ann, label="tablet")
    r = bob.play(game_id, "east", f"@revoke {tablet.public_key}")
    assert r.status_code == 201, r.get_json()
    _to_turn(game_id, "north", {"north": phone, "east": bob})
    assert tablet.play(game_id, "north", "roll").status_code == 201
    _to_turn(game_id, "north", {"north": phone, "east": bob})
    assert phone.play(game_id, "north", "roll").status_code == 201
    # ann hands her seat to the bot bob tried to revoke
    _to_turn(game_id, "north", {"north": ann, "east": bob})
    r = ann.play(game_id, "north", f"@handover bot-random {bot['public_key']}")
    assert r.status_code == 201, r.get_json()
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(archive)["entries"] == len(_entries(ann, game_id))


def test_the_verifier_refuses_a_revocation_of_another_players_device():
    """The same rule offline: a log in which east revokes a key the log shows delegated by
    north's player is refused, and a revocation of an unseen key binds only its maker."""
    import pytest

    from shared.delegation import make_delegation
    from shared.envelope import public_key_hex
    from shared.table import LogReplay, TableError, revoked_for
    from tests.fixtures.pig import GAME
    ann_key, bob_key, phone_key = bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32
    header = {"game": "g1", "options": {"target": 20}, "seats": [
        {"seat": "north", "player": "ann", "public_key": public_key_hex(ann_key)},
        {"seat": "east", "player": "bob", "public_key": public_key_hex(bob_key)}]}
    phone = public_key_hex(phone_key)
    replay = LogReplay(GAME, header)
    replay.step({"seat": "north", "seq": 0, "prev": "0" * 64, "move": "roll",
                 "delegation": make_delegation(ann_key, "ann", phone, "phone", 2 ** 40)})
    with pytest.raises(TableError) as refused:
        replay.step({"seat": "east", "seq": 1, "prev": "0" * 64, "move": f"@revoke {phone}"})
    assert refused.value.code == "not_your_device"
    unseen = public_key_hex(bytes([4]) * 32)
    replay.step({"seat": "east", "seq": 1, "prev": "0" * 64, "move": f"@revoke {unseen}"})
    assert unseen in revoked_for(replay.table, "east")
    assert unseen not in revoked_for(replay.table, "north")
    replay.step({"seat": "north", "seq": 2, "prev": "0" * 64, "move": f"@revoke {phone}"})
    assert phone in revoked_for(replay.table, "north")


def test_revoking_a_device_ends_the_standing_orders_it_signed(app, make_player):
    """The attack: after pbem device revoke and the @revoke entry, the server still played
    the order the device wrote, as a server-signed entry, and GET /orders showed it in
    force."""
    from shared.archive import verify_archive
    from tests.helpers.api import start_pig
    from tests.helpers.devices import Device
    game_id, (ann, bob) = start_pig(make_player)
    phone = Device(ann)
    assert phone.register().status_code == 201
    _to_turn(game_id, "east", {"north": ann, "east": bob})
    r = _device_order(phone, game_id, "north", "roll")
    assert r.status_code == 201, r.get_json()
    digest = r.get_json()["order"]["hash"]
    r = ann.post("/api/devices/phone/revoke")  # the registry, then the log (as the CLI does)
    assert r.status_code == 200
    assert r.get_json()["orders_ended"] == [{"game": game_id, "seat": "north",
                                             "order": "roll", "hash": digest}]
    listed = ann.get(f"/api/games/{game_id}/orders").get_json()["orders"]
    assert [o["status"] for o in listed] == ["done"]
    before = len(_entries(ann, game_id))
    r = ann.play(game_id, "north", f"@revoke {phone.public_key}")
    assert r.status_code == 201, r.get_json()
    _to_turn(game_id, "north", {"north": ann, "east": bob})
    assert all("order" not in e["env"] for e in _entries(ann, game_id)[before:])
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(archive)["entries"] == len(_entries(ann, game_id))


def test_a_revoke_entry_alone_ends_the_devices_orders_and_a_deadline_bot_obeys(
        app, make_player, clock):
    """The @revoke entry alone (a device the registry never knew) ends its orders too; then
    a deadline passes under on_timeout=bot:random: the forced hand-over and the bot play
    the seat, and nothing is played for the revoked key's order."""
    from server.workers import notify
    from shared.archive import verify_archive
    from tests.helpers.bots import play_due, two_seat_game
    from tests.helpers.devices import Device
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "on_timeout": "bot:random"},
                            move_hours=24)
    phone = Device(ann)  # not registered: its delegation travels in what it signs
    _to_turn(game_id, "east", {"north": ann, "east": bob})
    r = _device_order(phone, game_id, "north", "roll")
    assert r.status_code == 201, r.get_json()
    r = ann.play(game_id, "north", f"@revoke {phone.public_key}")
    assert r.status_code == 201, r.get_json()
    listed = ann.get(f"/api/games/{game_id}/orders").get_json()["orders"]
    assert [o["status"] for o in listed] == ["done"]
    revoked_at = len(_entries(ann, game_id))
    _to_turn(game_id, "north", {"north": ann, "east": bob})
    clock.advance(25 * 3600)  # north's deadline passes: the seat goes to the bot
    with app.app_context():
        forced, _ = notify.sweep_deadlines()
    assert forced == 1
    assert play_due(app) >= 1
    after = _entries(ann, game_id)[revoked_at:]
    assert any(e["move"].startswith("@handover bot-random ") for e in after)
    assert all("order" not in e["env"] for e in after)
    assert any(e["seat"] == "north" and not e["move"].startswith("@") for e in after)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(archive)["entries"] == len(_entries(ann, game_id))


def test_the_verifier_refuses_an_order_entry_after_its_device_was_revoked():
    """Offline: an entry claiming an order a device signed, after that device's @revoke by
    the seat's player, is refused (the server no longer makes one; a forged archive might)."""
    import pytest

    from shared.archive import ArchiveError, _check_order_holder
    from shared.table import new_table

    class Book:
        orders = {"h1": ({"seat": "north", "at": 0, "delegation": {
            "device_key": "d" * 64, "label": "phone"}}, None)}

    header = {"seats": [{"seat": "north", "player": "ann", "public_key": "a" * 64},
                        {"seat": "east", "player": "bob", "public_key": "b" * 64}]}
    table = new_table(header)
    env = {"seat": "north", "seq": 5, "order": "h1"}
    _check_order_holder(table, env, Book, "entry 5")  # before any revocation: fine
    table["revoked"].append("d" * 64)
    table["revoked_by"]["d" * 64] = ["bob"]  # bob's revocation binds only bob's devices
    _check_order_holder(table, env, Book, "entry 5")
    table["revoked_by"]["d" * 64].append("ann")
    with pytest.raises(ArchiveError) as refused:
        _check_order_holder(table, env, Book, "entry 5")
    assert "revoked" in str(refused.value)


# --- moves the game page posts (no signed headers) that lose a race ----------------------------

def test_a_verified_move_that_loses_a_race_never_counts_as_unverified(tmp_path, clock,
                                                                      monkeypatch):
    """The attack: the game page posts moves without signed headers; each one with a valid
    seat signature that lost a race (409 stale_seq) counted as unverified against the
    address, and after PBEM_LIMIT_UNVERIFIED the address was locked out, reads included.
    A move whose signature verified counts for its seat (PBEM_LIMIT_MOVES), or not at all."""
    from flask_migrate import upgrade

    from client.signing import signed_move
    from server import create_app
    from server.db import db
    from tests.conftest import database_url
    from tests.helpers.limits import _dispose, client_from, start_pig_on
    for name, value in {"UNVERIFIED": "5/minute", "MOVES": "100/minute",
                        "REGISTER": "100/hour"}.items():
        monkeypatch.setenv(f"PBEM_LIMIT_{name}", value)
    url, cleanup = database_url(tmp_path)
    app = create_app({"TESTING": True, "PBEM_CLOCK": clock, "SQLALCHEMY_DATABASE_URI": url,
                      "RATELIMIT_STORAGE_URI": None})
    try:
        with app.app_context():
            upgrade()
        game_id, ann, bob = start_pig_on(client_from(app, "10.0.0.1"), clock)
        page = client_from(app, "10.0.0.2")  # the game page: no signed headers
        info = ann.get(f"/api/games/{game_id}/view").get_json()
        seat = info["view"]["to_act"][0]
        key = {"north": ann, "east": bob}[seat].key
        first = signed_move(key, game_id, info["next_seq"], info["prev"], seat, "roll",
                            ts=clock(), nonce="first0000000")
        assert page.post(f"/api/games/{game_id}/moves", json=first).status_code == 201
        codes = []
        for i in range(12):  # each a valid signature for the seq just taken: a lost race
            late = signed_move(key, game_id, info["next_seq"], info["prev"], seat, "roll",
                               ts=clock(), nonce=f"late{i:08d}")
            codes.append(page.post(f"/api/games/{game_id}/moves", json=late).status_code)
        assert set(codes) == {409}, codes
        assert page.get(f"/api/games/{game_id}").status_code == 200  # not locked out
        # a forged signature still counts against the address, and is refused past the limit
        forged = [page.post(f"/api/games/{game_id}/moves", json=signed_move(
            bytes(range(32)), game_id, info["next_seq"] + 1, "0" * 64, seat, "roll",
            ts=clock(), nonce=f"forged{i:06d}")).status_code for i in range(8)]
        assert forged[:5] == [403] * 5 and 429 in forged, forged
    finally:
        _dispose(app, db)
        cleanup()
