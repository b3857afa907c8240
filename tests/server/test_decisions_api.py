"""The table's decisions through the HTTP API (shared/table.py on the server): what a
resignation does to the seat's duties (its timeout moves, no notice), how an agreed pause moves
the deadlines and a resume gives them back, an abort left unrated by the rating pass, the
notices the other seats get, the archive; the hostile cases.  Runs on SQLite, and on
PostgreSQL with PBEM_TEST_DATABASE_URL."""

from datetime import timedelta

from shared.archive import verify_archive
from tests.helpers.api import start_pig


def _new(make_player, seats=2, move_hours=24):
    players = [make_player(n, email=f"{n}@example.org") for n in ("ann", "bob", "cyd")[:seats]]
    r = players[0].post("/api/games", {"type": "pig", "seats": seats,
                                       "options": {"target": 50}, "move_hours": move_hours})
    game_id = r.get_json()["id"]
    for p in players[1:]:
        assert p.post(f"/api/games/{game_id}/join", {}).status_code == 200
    return game_id, players


def _ok(r):
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def _duties(app, game_id):
    from server.db import db
    from server.db.models import Duty
    with app.app_context():
        return {d.seat: d.due_at for d in db.session.execute(
            db.select(Duty).filter_by(game_id=game_id)).scalars()}


def _notices(app, game_id):
    from server.db import db
    from server.db.models import Notice
    with app.app_context():
        return [(n.to_address, n.kind, n.subject, n.body) for n in db.session.execute(
            db.select(Notice).filter_by(game_id=game_id, channel="email")
            .order_by(Notice.id)).scalars()]


def test_a_resigned_seat_is_played_by_its_timeout_moves_untold(make_player, app):
    from server.workers.notify import sweep_deadlines
    game_id, (ann, bob, cyd) = _new(make_player, seats=3)
    _ok(bob.play(game_id, "east", "@resign"))
    told = [n for n in _notices(app, game_id) if n[1] == "table"]
    assert sorted(n[0] for n in told) == ["ann@example.org", "cyd@example.org"]
    assert "east resigned" in told[0][2]
    _ok(ann.play(game_id, "north", "hold"))  # east owes now: its duty falls due at once
    r = bob.play(game_id, "east", "hold")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "resigned"
    before = len(_notices(app, game_id))
    with app.app_context():
        forced, _ = sweep_deadlines()
    assert forced >= 1
    log = ann.get(f"/api/games/{game_id}/log").get_json()["entries"]
    assert log[-1]["seat"] == "east" and log[-1]["forced"]
    assert not [n for n in _notices(app, game_id)[before:] if n[0] == "bob@example.org"]


def test_an_agreed_pause_moves_the_deadlines_and_resume_gives_them_back(make_player, app,
                                                                         clock):
    from server.workers.notify import sweep_deadlines
    game_id, (ann, bob) = _new(make_player)
    due = _duties(app, game_id)["north"]
    _ok(ann.play(game_id, "north", "@pause 3"))
    asked = [n for n in _notices(app, game_id) if n[1] == "table"]
    assert asked[-1][0] == "bob@example.org" and "pbem pause" in asked[-1][3]
    clock.advance(3600)
    _ok(bob.play(game_id, "east", "@pause 3"))
    assert _duties(app, game_id)["north"] == due + timedelta(days=3)
    view = ann.get(f"/api/games/{game_id}/view").get_json()["view"]
    assert view["table"]["paused"]["days"] == 3
    page = ann.client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "pause the game for 3 days: the clocks stop until" in page
    clock.advance(25 * 3600)  # past the old deadline: the clocks are stopped
    with app.app_context():
        assert sweep_deadlines()[0] == 0
    _ok(bob.play(game_id, "east", "@resume"))
    # the clocks stood still for the 25 hours of the pause: north gets them back
    assert _duties(app, game_id)["north"] == due + timedelta(hours=25)
    with app.app_context():
        assert sweep_deadlines()[0] == 0
    clock.advance(23 * 3600 + 1)  # the clocks run again
    with app.app_context():
        assert sweep_deadlines()[0] == 1


def test_an_aborted_game_is_unrated_and_its_archive_says_so(make_player, app):
    from server.db import db
    from server.db.models import Game, Rating
    from server.game.ratings import rate_finished_games
    game_id, (ann, bob) = _new(make_player)
    entry = _ok(ann.play(game_id, "north", "@abort"))
    assert entry["events"][-1].startswith("Game over: aborted by north")
    game = ann.get(f"/api/games/{game_id}").get_json()
    assert game["status"] == "over" and game["result"]["rated"] is False
    with app.app_context():
        rate_finished_games()
        assert db.session.get(Game, game_id).rated is False
        assert not db.session.execute(db.select(Rating)).scalars().all()
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert report["complete"] and "unrated" in report["result"]["reason"]
    page = bob.client.get(f"/g/{game_id}").get_data(as_text=True)
    assert "aborted by north" in page


def test_a_draw_told_accepted_and_archived(make_player, app):
    game_id, (ann, bob) = _new(make_player)
    _ok(ann.play(game_id, "north", "@draw offer"))
    table = bob.get(f"/api/games/{game_id}/table").get_json()
    assert table["decisions"]["draw"]["owed"] == ["east"] and table["own_moves"]["east"] == 0
    _ok(bob.play(game_id, "east", "@draw accept"))
    told = [n for n in _notices(app, game_id) if n[1] == "table"]
    assert told[0][0] == "bob@example.org" and "north offers a draw" in told[0][2]
    assert told[-1][0] == "ann@example.org" and "drawn by agreement" in told[-1][2]
    report = verify_archive(ann.get(f"/api/games/{game_id}/archive").get_json())
    assert report["complete"] and report["result"]["reason"] == "drawn by agreement"
    page = ann.client.get(f"/archive/{game_id}").get_data(as_text=True)
    assert "no seat won" in page and "Drawn by agreement." in page


def test_hostile_decisions_are_refused(make_player):
    game_id, (ann, bob) = start_pig(make_player)
    mallory = make_player("mallory")
    r = mallory.play(game_id, "east", "@resign")  # a resignation signed by a stranger
    assert r.status_code == 403 and r.get_json()["error"]["code"] == "bad_signature"
    r = ann.play(game_id, "north", "@pause 15")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "pause_limit"
    r = ann.play(game_id, "north", "@draw accept")
    assert r.status_code == 422 and r.get_json()["error"]["code"] == "no_draw"
    r = ann.play(game_id, "north", "@resign please")
    assert r.status_code == 422 and "@resign alone" in r.get_json()["error"]["message"]
    _ok(ann.play(game_id, "north", "@resign"))
    r = bob.play(game_id, "east", "@draw offer")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "game_over"


def test_a_resigned_seat_places_below_every_seat_that_raced():
    from server.game.ratings import places_of
    from tests.fixtures.pig import GAME
    seats = ["north", "east", "south"]
    result = {"winners": ["north"], "scores": {"north": 20, "east": 15, "south": 3},
              "resigned": ["east"]}
    assert places_of(GAME, result, seats) == {"north": 1, "south": 3, "east": 4}
    assert places_of(GAME, {**result, "resigned": []}, seats) == \
        {"north": 1, "east": 2, "south": 3}
