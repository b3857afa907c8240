"""Substitutes through the API (server/game/substitutes.py): a seat whose player left or
timed out, offered through a one-time link and claimed by another player, with the attacks:
a stranger's offer, a wrong or used token, a hand-over to a player who claimed nothing."""

import pytest

from shared.archive import verify_archive
from tests.helpers.bots import bot_key, game_of, log_of, play_due, two_seat_game


@pytest.fixture(autouse=True)
def fresh_worker_memory():
    from server.workers import bots as bot_worker
    bot_worker._given_up.clear()
    yield
    bot_worker._given_up.clear()


def offer(who, game_id, seat):
    return who.post(f"/api/games/{game_id}/seats/{seat}/offer", {})


def token_of(r):
    assert r.status_code == 201, r.get_json()
    return r.get_json()["path"].rsplit("/", 1)[1]


def leave(ann, game_id, seat="north"):
    bot = bot_key(ann)
    r = ann.play(game_id, seat, f"@handover bot-random {bot['public_key']}")
    assert r.status_code == 201, r.get_json()


def test_a_left_seat_is_offered_claimed_and_signed_over_by_its_old_player(make_player, app):
    ann, bob, carol = make_player("ann"), make_player("bob"), make_player("carol")
    game_id = two_seat_game(ann, bob)
    # a seat nobody left is not offered, and a stranger offers nothing
    r = offer(bob, game_id, "north")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "seat_not_free"
    leave(ann, game_id)
    r = offer(carol, game_id, "north")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "not_your_game"
    r = offer(ann, game_id, "nowhere")
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "unknown_seat"
    first = token_of(offer(bob, game_id, "north"))  # a seated player offers it
    token = token_of(offer(ann, game_id, "north"))  # the seat's own player, again: new link
    assert offer(ann, game_id, "north").get_json()["signer"] == "ann"
    token = token_of(offer(ann, game_id, "north"))
    seen = carol.get(f"/api/offers/{token}", signed=False).get_json()
    assert (seen["seat"], seen["status"], seen["held_by"]) == ("north", "open", "bot-random")
    # a wrong token, an old (voided) token, a seated claimant
    r = carol.post("/api/offers/" + "x" * 32 + "/claim", {})
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "unknown_offer"
    r = carol.post(f"/api/offers/{first}/claim", {})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "offer_used"
    r = bob.post(f"/api/offers/{token}/claim", {})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "seated_already"
    # nobody may push a player into a seat they did not claim
    r = ann.play(game_id, "north", f"@handover carol {carol.public_key}")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "no_claim", r.get_json()
    # unsigned, with a body, or offered unsigned: refused, and the link still open
    r = carol.post(f"/api/offers/{token}/claim", {}, signed=False)
    assert r.status_code == 401 and r.get_json()["error"]["code"]
    r = carol.post(f"/api/offers/{token}/claim", {"seat": "east"})
    assert 400 <= r.status_code < 500 and r.get_json()["error"]["code"], r.get_json()
    r = carol.post(f"/api/games/{game_id}/seats/north/offer", {}, signed=False)
    assert r.status_code == 401
    assert carol.get(f"/api/offers/{token}", signed=False).get_json()["status"] == "open"
    r = carol.post(f"/api/offers/{token}/claim", {})
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["status"], r.get_json()["signer"]) == ("claimed", "ann")
    r = make_player("dave").post(f"/api/offers/{token}/claim", {})  # a link is claimed once
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "offer_used"
    waiting = ann.get(f"/api/games/{game_id}/claims").get_json()["offers"]
    assert [(w["seat"], w["claimant"], w["claimant_key"]) for w in waiting] == [
        ("north", "carol", carol.public_key)]
    assert bob.get(f"/api/games/{game_id}/claims").get_json()["offers"] == []
    # the bot's key (the server's) cannot sign it: only ann's
    r = ann.play(game_id, "north", f"@handover carol {carol.public_key}")
    assert r.status_code == 201, r.get_json()
    game = game_of(carol, game_id)
    assert [s["player"] for s in game["seats"]] == ["carol", "bob"] and game["you"] == ["north"]
    assert carol.get(f"/api/offers/{token}", signed=False).get_json()["status"] == "done"
    assert carol.play(game_id, "north", "roll").status_code == 201
    assert ann.play(game_id, "north", "roll").get_json()["error"]["code"] in (
        "bad_signature", "not_your_turn")
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert [(h["seat"], h["forced"]) for h in report["handovers"]] == [("north", False)] * 2


def test_a_seat_a_bot_took_at_a_deadline_is_handed_over_by_the_server(make_player, app,
                                                                        clock):
    from server.workers import notify
    ann, bob, carol = make_player("ann"), make_player("bob"), make_player("carol")
    game_id = two_seat_game(ann, bob, options={"target": 30, "on_timeout": "bot"},
                            move_hours=24)
    clock.advance(25 * 3600)
    with app.app_context():
        assert notify.sweep_deadlines()[0] == 1
    assert game_of(ann, game_id)["seats"][0]["player"] == "bot-random"
    r = offer(bob, game_id, "north")
    assert r.get_json()["signer"] == "server"
    token = token_of(r)
    r = carol.post(f"/api/offers/{token}/claim", {})
    assert r.status_code == 200 and r.get_json()["status"] == "done", r.get_json()
    entries = log_of(ann, game_id)
    assert entries[-1]["forced"] and entries[-1]["move"] == f"@handover carol {carol.public_key}"
    game = game_of(carol, game_id)
    assert [s["player"] for s in game["seats"]] == ["carol", "bob"]
    # north still owes its first move: carol's now, told to her with a fresh deadline
    with app.app_context():
        from server.db import db
        from server.db.models import Duty, Player
        carol_id = db.session.execute(db.select(Player.id).filter_by(name="carol")).scalar()
        duty = db.session.execute(db.select(Duty).filter_by(game_id=game_id, seat="north")) \
            .scalar_one()
        assert (duty.player_id, duty.notified) == (carol_id, False)
        assert duty.due_at.timestamp() == clock() + 24 * 3600
        assert notify.compose_turn_notices() == 1
    assert play_due(app) == 0  # the bot plays the seat no more
    r = carol.post(f"/api/offers/{token}/claim", {})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "offer_used"
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert report["handovers"][-1]["forced"] is True


def test_the_pages_show_the_offer_and_the_record(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob)
    leave(ann, game_id)
    token = token_of(offer(bob, game_id, "north"))
    page = bob.get(f"/seat/{token}", signed=False)
    assert page.status_code == 200 and page.headers["Referrer-Policy"] == "no-referrer"
    text = page.get_data(as_text=True)
    assert "offers" in text and "north" in text and "bot-random" in text
    assert "Sign up" in text and "pbem claim" in text
    wrong = bob.get("/seat/" + "x" * 32, signed=False)
    assert wrong.status_code == 404 and "offers no seat" in wrong.get_data(as_text=True)
    mine = bob.get(f"/p/{bob.name}", signed=False)
    assert mine.status_code == 200 and "missed deadlines" in mine.get_data(as_text=True)
    assert bob.get("/p/nobody-here", signed=False).status_code == 404
    game_page = bob.get(f"/g/{game_id}", signed=False).get_data(as_text=True)
    assert f'href="/p/{bob.name}"' in game_page


def test_a_seat_that_timed_out_is_offered_and_its_player_signs_it_over(make_player, app,
                                                                         clock):
    from server.workers import notify
    ann, bob, carol = make_player("ann"), make_player("bob"), make_player("carol")
    game_id = two_seat_game(ann, bob, move_hours=24)  # on_timeout: the timeout move
    r = offer(bob, game_id, "north")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "seat_not_free"
    clock.advance(25 * 3600)
    with app.app_context():
        assert notify.sweep_deadlines()[0] == 1  # north's timeout move
    r = offer(bob, game_id, "north")
    assert r.get_json()["signer"] == "ann"
    token = token_of(r)
    assert carol.post(f"/api/offers/{token}/claim", {}).get_json()["status"] == "claimed"
    # the server may not sign it (the seat is a human's), bob's key neither: ann's does
    r = bob.play(game_id, "north", f"@handover carol {carol.public_key}")
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    r = ann.play(game_id, "north", f"@handover carol {carol.public_key}")
    assert r.status_code == 201, r.get_json()
    assert [s["player"] for s in game_of(ann, game_id)["seats"]] == ["carol", "bob"]
    assert ann.get(f"/api/players/{ann.name}", signed=False).get_json()["record"][
        "missed_deadlines"] == 1
