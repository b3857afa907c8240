"""Rematches (seats rotated, kept for the same players) and ratings (openskill, per game type)."""

from server.db import db
from server.db.models import Game
from server.game import ratings
from tests.helpers.games import play_pig_to_end
from tests.helpers.mail import tick


def new_pig(make_player, names, **extra):
    players = [make_player(n) for n in names]
    r = players[0].post("/api/games", {"type": "pig", "seats": len(names),
                                       "options": {"target": 1}, **extra})
    assert r.status_code == 201, r.get_json()
    game = r.get_json()
    for p in players[1:]:
        assert p.post(f"/api/games/{game['id']}/join", {}).status_code == 200
    seats = {s["seat"]: next(p for p in players if p.name == s["player"])
             for s in players[0].get(f"/api/games/{game['id']}").get_json()["seats"]}
    return game["id"], players, seats


def test_a_rated_game_changes_ratings_once(app, make_player):
    # fresh accounts: no history asked here (test_trust_holes_a.py tests the history rule)
    app.config.update(PBEM_RATING_MIN_DAYS=0, PBEM_RATING_MIN_GAMES=0)
    game_id, (ann, bob), seats = new_pig(make_player, ["ann", "bob"])
    assert ann.get(f"/api/games/{game_id}").get_json()["rated"] is True
    over = play_pig_to_end(game_id, seats)
    winner = over["result"]["winners"][0]
    assert tick(app)["rated"] == 1
    assert tick(app)["rated"] == 0  # counted once
    table = ann.get("/api/ratings/pig").get_json()
    assert [e["player"] for e in table["ratings"]] == [seats[winner].name,
                                                       next(p.name for s, p in seats.items()
                                                            if s != winner)]
    best, other = table["ratings"]
    assert best["rating"] > other["rating"] and best["wins"] == 1 and other["wins"] == 0
    assert best["games"] == other["games"] == 1
    profile = ann.get(f"/api/players/{seats[winner].name}").get_json()
    assert profile["ratings"]["pig"]["games"] == 1


def test_unrated_and_bot_games_change_nothing(app, make_player):
    game_id, _, seats = new_pig(make_player, ["ann", "bob"], rated=False)
    play_pig_to_end(game_id, seats)
    tick(app)
    assert make_player("cat").get("/api/ratings/pig").get_json()["ratings"] == []
    dan = make_player("dan")
    r = dan.post("/api/games", {"type": "pig", "seats": 2, "bots": 1, "rated": True})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "not_rated"
    r = dan.post("/api/games", {"type": "pig", "seats": 2, "bots": 1})
    assert r.status_code == 201 and r.get_json()["rated"] is False


def test_cooperative_games_keep_team_records(app, make_player):
    ann, bob = make_player("ann"), make_player("bob")
    r = ann.post("/api/games", {"type": "title_of_liberty", "seats": 2, "rated": True})
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "not_rated"
    r = ann.post("/api/games", {"type": "title_of_liberty", "seats": 2})
    game_id = r.get_json()["id"]
    assert r.get_json()["rated"] is False
    bob.post(f"/api/games/{game_id}/join", {})
    with app.app_context():  # the game's end, as the rules would write it
        game = db.session.get(Game, game_id)
        game.status, game.result, game.rated = "over", {"winners": ["red", "blue"]}, True
        db.session.commit()
        seats = [s.seat for s in game.seats]
        game.result = {"winners": seats, "outcome": "nephites"}
        db.session.commit()
        assert ratings.rate_finished_games() == 1
    table = ann.get("/api/ratings/title_of_liberty").get_json()
    assert table["cooperative"] is True and table["ratings"] == []
    (two,) = table["teams"]
    assert two["team_size"] == 2 and two["games"] == 1 and two["wins"] == 1
    assert ann.get("/api/players/bob").get_json()["team_records"]["title_of_liberty"] == [
        {"team_size": 2, "games": 1, "wins": 1}]


def test_rematch_rotates_seats_and_starts_when_all_accept(app, make_player):
    game_id, (ann, bob, cat), seats = new_pig(make_player, ["ann", "bob", "cat"])
    old_order = [s["player"] for s in ann.get(f"/api/games/{game_id}").get_json()["seats"]]
    r = ann.post(f"/api/games/{game_id}/rematch", {})
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "not_over"
    play_pig_to_end(game_id, seats)
    stranger = make_player("eve")
    r = stranger.post(f"/api/games/{game_id}/rematch", {})
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "not_in_game"
    r = bob.post(f"/api/games/{game_id}/rematch", {})
    assert r.status_code == 200, r.get_json()
    new = r.get_json()
    assert new["status"] == "open" and new["rematch_of"] == game_id
    assert new["options"] == {"target": 1} and new["rated"] is True
    assert ann.get(f"/api/games/{game_id}").get_json()["rematch"] == new["id"]
    # kept seats: a stranger may not take them, and the open list does not show the game
    r = stranger.post(f"/api/games/{new['id']}/join", {})
    assert r.status_code == 409
    assert new["id"] not in [g["id"] for g in stranger.get("/api/games", signed=False)
                             .get_json()["games"]]
    # the others accept by asking for the rematch too (the same game comes back)
    assert ann.post(f"/api/games/{game_id}/rematch", {}).get_json()["id"] == new["id"]
    final = cat.post(f"/api/games/{game_id}/rematch", {}).get_json()
    assert final["id"] == new["id"] and final["status"] == "playing"
    assert [s["player"] for s in final["seats"]] == old_order[-1:] + old_order[:-1]
    # a second finished-game rematch request now returns the started game
    assert ann.post(f"/api/games/{game_id}/rematch", {}).get_json()["id"] == new["id"]


def test_a_declined_rematch_is_withdrawn_and_can_be_offered_again(app, make_player, smtp):
    ann, bob = make_player("ann"), make_player("bob", email="bob@example.org")
    r = ann.post("/api/games", {"type": "pig", "seats": 2, "options": {"target": 1}})
    game_id = r.get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    play_pig_to_end(game_id, {
        s["seat"]: (ann if s["player"] == "ann" else bob)
        for s in ann.get(f"/api/games/{game_id}").get_json()["seats"]})
    tick(app)
    smtp.messages.clear()
    first = ann.post(f"/api/games/{game_id}/rematch", {}).get_json()["id"]
    tick(app)
    (notice,) = [m for m in smtp.messages if "rematch" in m["Subject"]]
    assert notice["To"] == "bob@example.org" and "ann offers a rematch" in notice["Subject"]
    assert f"pbem rematch {game_id} --decline" in notice.get_content()
    r = bob.post(f"/api/games/{game_id}/rematch", {"decline": True})
    assert r.status_code == 200 and r.get_json()["rematch"] is None
    assert ann.get(f"/api/games/{first}").status_code == 404
    r = bob.post(f"/api/games/{game_id}/rematch", {"decline": True})
    assert r.status_code == 404 and r.get_json()["error"]["code"] == "no_rematch"
    second = bob.post(f"/api/games/{game_id}/rematch", {}).get_json()
    assert second["id"] != first and second["status"] == "open"


def test_the_game_page_links_the_rematch(app, client, make_player):
    game_id, (ann, bob), seats = new_pig(make_player, ["ann", "bob"])
    assert "· rated" in client.get(f"/g/{game_id}").get_data(as_text=True)
    play_pig_to_end(game_id, seats)
    assert f"pbem rematch {game_id}" in client.get(f"/g/{game_id}").get_data(as_text=True)
    new = ann.post(f"/api/games/{game_id}/rematch", {}).get_json()["id"]
    page = client.get(f"/g/{game_id}").get_data(as_text=True)
    assert f'href="/g/{new}"' in page
    assert f'href="/g/{game_id}"' in client.get(f"/g/{new}").get_data(as_text=True)
    assert new not in client.get("/").get_data(as_text=True)  # not open to strangers
