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
