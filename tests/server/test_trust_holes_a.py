"""Holes a hostile player found (part A): seats of rated games, rating farming, device keys
revoked by the wrong seat, a revoked device's standing orders, unsigned moves losing races."""

from server import ratings
from server.extensions import db
from server.models import Game

from tests.server.test_mail import tick
from tests.server.test_rematch_ratings import play_pig_to_end


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
