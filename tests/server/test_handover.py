"""Handing a seat to a bot: ``@handover BOT KEY`` through the API, the bot accounts'
keys (GET /api/bots), the seat owners seen by a second process (its per-process cache), and
the missed-deadline hand-over of a game whose option ``on_timeout`` says so."""

import pytest

from shared.archive import verify_archive
from tests.helpers.bots import bot_key, game_of, log_of, play_due, two_seat_game


@pytest.fixture(autouse=True)
def fresh_worker_memory():
    from server.workers import bots as bot_worker
    bot_worker._given_up.clear()
    yield
    bot_worker._given_up.clear()


def test_the_bot_accounts_and_their_keys(make_player, app):
    ann = make_player("ann")
    every = ann.get("/api/bots", signed=False).get_json()
    assert every["levels"] == ["random", "greedy", "strong"]
    assert [b["player"] for b in every["bots"]] == ["bot-random", "bot-greedy", "bot-strong"]
    again = ann.get("/api/bots", signed=False).get_json()
    assert again == every  # made once, with their keys
    profile = ann.get("/api/players/bot-greedy", signed=False).get_json()
    assert profile["public_key"] == every["bots"][1]["public_key"]
    pig = ann.get("/api/bots?game=pig", signed=False).get_json()
    assert pig["levels"] == ["random"] and [b["level"] for b in pig["bots"]] == ["random"]
    for query, status in (("?game=chess", 404), ("?game=", 422)):
        r = ann.get("/api/bots" + query, signed=False)
        assert r.status_code in (status, 400), (query, r.get_json())
        assert r.is_json and r.get_json()["error"]["code"]


def test_a_player_hands_the_seat_to_a_bot_which_plays_it(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, rated=True)
    assert game_of(ann, game_id)["rated"] is True
    bot = bot_key(ann)
    r = ann.play(game_id, "north", f"@handover bot-random {bot['public_key']}")
    assert r.status_code == 201, r.get_json()
    game = game_of(ann, game_id)
    assert [s["player"] for s in game["seats"]] == ["bot-random", "bob"]
    assert game["you"] == [] and game["rated"] is False
    # ann holds the seat no more: her key signs nothing for it
    r = ann.play(game_id, "north", "roll")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    # the duty of north is the bot's: the worker plays it, then bob's turn comes
    with app.app_context():
        from server.db import db
        from server.db.models import Duty, Player
        bot_id = db.session.execute(db.select(Player.id).filter_by(name="bot-random")).scalar()
        assert {d.seat: d.player_id for d in db.session.execute(
            db.select(Duty).filter_by(game_id=game_id)).scalars()} == {"north": bot_id}
    for _ in range(2000):
        game = game_of(bob, game_id)
        if game["status"] == "over":
            break
        if "east" in game["to_act"]:
            last = log_of(bob, game_id)[-1]
            move = "hold" if last["seat"] == "east" and last["move"] == "roll" else "roll"
            assert bob.play(game_id, "east", move).status_code == 201
        else:
            assert play_due(app) >= 1
    assert game["status"] == "over"
    # ann reads the game as anyone does, and the archive verifies with the handover in it
    assert ann.get(f"/api/games/{game_id}").status_code == 200
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    report = verify_archive(archive)
    assert report["complete"] and report["table"]["players"]["north"] == "bot-random"
    assert archive["header"]["seats"][0]["player"] == "ann"
    with app.app_context():
        from server.game import ratings
        assert ratings.has_bot(game_id)
    # the pages show the game with its handover (no 500)
    for path in (f"/g/{game_id}", f"/archive/{game_id}"):
        page = ann.get(path, signed=False)
        assert page.status_code == 200, path
        assert "bot-random" in page.get_data(as_text=True), path


@pytest.mark.parametrize("how, code", [
    ("another bot's key", "not_the_bot_key"),
    ("a level pig has no bot for", "bad_bot_level"),
    ("a player's name", "seated_already"),
    ("the other seat", "bad_signature"),
])
def test_bad_handovers_are_refused_and_change_nothing(make_player, app, how, code):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob)
    bots = {b["level"]: b for b in ann.get("/api/bots", signed=False).get_json()["bots"]}
    seat, text, who = "north", None, ann
    if how == "another bot's key":
        text = f"@handover bot-random {bots['greedy']['public_key']}"
    elif how == "a level pig has no bot for":
        text = f"@handover bot-greedy {bots['greedy']['public_key']}"
    elif how == "a player's name":
        text = f"@handover bob {bob.public_key}"
    else:
        seat, text = "east", f"@handover bot-random {bots['random']['public_key']}"
    r = who.play(game_id, seat, text)
    assert 400 <= r.status_code < 500 and r.get_json()["error"]["code"] == code, r.get_json()
    game = game_of(ann, game_id)
    assert [s["player"] for s in game["seats"]] == ["ann", "bob"] and log_of(ann, game_id) == []


def test_a_handover_in_a_game_that_is_over_is_refused(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 1})
    while game_of(ann, game_id)["status"] != "over":
        game = game_of(ann, game_id)
        seat = game["to_act"][0]
        (ann if seat == "north" else bob).play(game_id, seat, "roll")
        game = game_of(ann, game_id)
        if game["status"] != "over" and seat in game["to_act"]:
            (ann if seat == "north" else bob).play(game_id, seat, "hold")
    bot = bot_key(ann)
    r = ann.play(game_id, "north", f"@handover bot-random {bot['public_key']}")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "game_over"


def second_app(app, clock):
    """Another process of the same server: its own caches, the same database."""
    from server import create_app
    return create_app({"TESTING": True,
                       "SQLALCHEMY_DATABASE_URI": app.config["SQLALCHEMY_DATABASE_URI"],
                       "PBEM_CLOCK": clock, "RATELIMIT_ENABLED": False,
                       "PBEM_PUSH_HOLD": 0.5})


def test_another_process_sees_the_new_owner_after_a_handover(make_player, app, clock):
    """Process B learnt the seat owners before the handover (its cache, its remembered head);
    the handover is appended by process A; B must not keep the old owner."""
    from flask import current_app

    from tests.conftest import Player
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob)
    other = second_app(app, clock)
    bob_b = Player(other.test_client(), clock, "bob")
    bob_b.key, bob_b.public_key = bob.key, bob.public_key
    ann_b = Player(other.test_client(), clock, "ann")
    ann_b.key, ann_b.public_key = ann.key, ann.public_key
    # B appends moves of the game: its seat-owner cache and its head memory hold ann for north
    assert ann_b.play(game_id, "north", "hold").status_code == 201
    assert bob_b.play(game_id, "east", "hold").status_code == 201
    with other.app_context():
        from server.db import db
        from server.db.models import Game
        from server.db.models import Player as P
        from server.db.state_cache import load_log
        from server.game.append import seat_owners
        ids = dict(db.session.execute(db.select(P.name, P.id)).all())
        cached = current_app.extensions["pbem_seat_owners"]
        assert {"north": ids["ann"], "east": ids["bob"]} in list(cached.values())
    # A: ann hands north to the bot
    bot = bot_key(ann)
    assert ann.play(game_id, "north", f"@handover bot-random {bot['public_key']}")\
        .status_code == 201
    with other.app_context():
        ids = dict(db.session.execute(db.select(P.name, P.id)).all())
        game = db.session.get(Game, game_id)
        owners = seat_owners(game_id, load_log(game).table["players"])
        assert owners == {"north": ids["bot-random"], "east": ids["bob"]}
        assert seat_owners(game_id) == owners
    # B: the bot's worker in B plays north (B's remembered head is older than the handover)
    assert play_due(other) >= 1
    with other.app_context():
        game = db.session.get(Game, game_id)
        assert game.status == "playing" and game.to_act == ["east"]
    # bob's hold, appended by B, makes north owe anew: B writes its duty for the bot, not ann
    assert bob_b.play(game_id, "east", "hold").status_code == 201
    with other.app_context():
        from server.db.models import Duty
        duties = {d.seat: d.player_id for d in db.session.execute(
            db.select(Duty).filter_by(game_id=game_id)).scalars()}
        assert duties == {"north": ids["bot-random"]}
    # ann, through B, signs nothing for north any more
    r = ann_b.play(game_id, "north", "roll")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    with other.app_context():
        db.engine.dispose()


def test_a_missed_deadline_hands_the_seat_to_a_bot_when_the_game_says_so(make_player, app,
                                                                        clock):
    from server.workers import notify
    ann, bob = make_player("ann", email="ann@example.org"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "on_timeout": "bot"},
                            move_hours=24)
    game = game_of(ann, game_id)
    # bot alone: the strongest level the game has, greedy at most (Pig: random only)
    assert game["options"]["on_timeout"] == "bot:random" and game["to_act"] == ["north"]
    clock.advance(25 * 3600)
    with app.app_context():
        forced, _ = notify.sweep_deadlines()
    assert forced == 1
    entries = log_of(ann, game_id)
    assert entries[0]["forced"] and entries[0]["move"].startswith("@handover bot-random ")
    game = game_of(ann, game_id)
    assert [s["player"] for s in game["seats"]] == ["bot-random", "bob"]
    # the bot then plays the owed move (pig has random bots only: greedy falls back to it)
    assert play_due(app) >= 1
    assert log_of(ann, game_id)[1]["seat"] == "north"
    with app.app_context():
        from server.db import db
        from server.db.models import Notice
        notes = db.session.execute(db.select(Notice)).scalars().all()
        assert any("bot-random plays north" in n.body for n in notes)
    archive = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(archive)["entries"] == len(log_of(ann, game_id))


def test_a_missed_deadline_plays_the_timeout_move_by_default(make_player, app, clock):
    from server.workers import notify
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, move_hours=24)
    assert "on_timeout" not in game_of(ann, game_id)["options"]
    clock.advance(25 * 3600)
    with app.app_context():
        assert notify.sweep_deadlines()[0] == 1
    entries = log_of(ann, game_id)
    assert entries[0]["forced"] and not entries[0]["move"].startswith("@")
    assert [s["player"] for s in game_of(ann, game_id)["seats"]] == ["ann", "bob"]


def test_a_bad_on_timeout_option_is_a_400(make_player, app):
    ann = make_player("ann")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "options": {"on_timeout": "nap"}})
    assert r.status_code in (400, 422), r.get_json()
    assert "on_timeout" in r.get_json()["error"]["message"]


def test_a_handover_ends_the_seats_standing_orders(make_player, app):
    """bob's standing order for east is his: once east is the bot's, the server plays it no
    more, and an archive in which the server still plays it is refused."""
    import copy
    import json

    from shared.archive import ArchiveError
    from tests.helpers.orders import _resign
    from tests.server.talk_helpers import order
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 3})
    assert order(bob, game_id, "east", "roll").status_code == 201
    bot = bot_key(bob)
    assert bob.play(game_id, "east", f"@handover bot-random {bot['public_key']}")\
        .status_code == 201
    assert ann.play(game_id, "north", "hold").status_code == 201
    entries = log_of(ann, game_id)
    assert not any("order" in json.loads(e["envelope"]) for e in entries)  # no order played
    assert play_due(app) >= 1  # the bot plays east
    assert log_of(ann, game_id)[2]["seat"] == "east"
    with app.app_context():
        from server.db import db
        from server.db.models import StandingOrder
        assert [o.done for o in db.session.execute(db.select(StandingOrder)).scalars()] == \
            [True]
    for _ in range(400):
        game = game_of(ann, game_id)
        if game["status"] == "over":
            break
        if "north" in game["to_act"]:
            last = log_of(ann, game_id)[-1]
            move = "hold" if last["seat"] == "north" and last["move"] == "roll" else "roll"
            assert ann.play(game_id, "north", move).status_code == 201
        else:
            assert play_due(app) >= 1
    good = ann.get(f"/api/games/{game_id}/archive").get_json()
    assert verify_archive(good)["complete"] and len(good["orders"]) == 1
    # a forger with the server's key makes the bot's first move an entry of bob's order
    # (the order's own reply, roll, at the start of east's turn: only the handover rules it
    # out)
    from shared.messages import document_hash
    bad = copy.deepcopy(good)
    forged = bad["entries"][2]
    env = json.loads(forged["envelope"])
    assert env["seat"] == "east"
    env.update(forced=True, move="roll", order=document_hash(good["orders"][0]["body"]))
    forged["envelope"] = json.dumps(env, sort_keys=True, separators=(",", ":"))
    bad["entries"] = bad["entries"][:3]
    bad["result"] = None
    _resign(app, bad, 2)
    with pytest.raises(ArchiveError, match="handed to a bot at entry 0"):
        from shared.archive import replay_log
        from shared.games import get_game
        from shared.orders import OrderBook
        header = bad["header"]
        keys = {s["seat"]: s["public_key"] for s in header["seats"]}
        book = OrderBook(bad["orders"], keys, get_game("pig"), header["game"],
                         len(bad["entries"]))
        replay_log(get_game("pig"), header, bytes.fromhex(bad["seed"]),
                   [json.loads(e["envelope"]) for e in bad["entries"]], orders=book)
