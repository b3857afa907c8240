"""A game's time bank (server/game/timebank.py) spent before the timeout rule acts, and the
players' records (server/game/records.py) on their profiles."""

import pytest

from server.game.records import how_it_ended
from tests.helpers.bots import game_of, log_of, two_seat_game

HOUR = 3600


def sweep(app):
    from server.workers import notify
    with app.app_context():
        return notify.sweep_deadlines()[0]


def test_the_bank_is_spent_after_a_deadline_then_the_timeout_rule_acts(make_player, app,
                                                                        clock, caplog):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "time_bank": 10}, move_hours=24)
    game = game_of(ann, game_id)
    assert game["options"]["time_bank"] == 10
    assert game["time_bank"] == {"hours": 10, "left": {"north": 10 * HOUR, "east": 10 * HOUR}}
    clock.advance(25 * HOUR)  # north's deadline passed an hour ago: the bank runs
    assert sweep(app) == 0 and log_of(ann, game_id) == []
    assert game_of(ann, game_id)["time_bank"]["left"]["north"] == 9 * HOUR
    clock.advance(HOUR)
    assert ann.play(game_id, "north", "hold").status_code == 201  # 2 hours of bank spent
    assert game_of(ann, game_id)["time_bank"]["left"] == {"north": 8 * HOUR,
                                                          "east": 10 * HOUR}
    assert bob.play(game_id, "east", "hold").status_code == 201
    assert sweep(app) == 0  # the spell is charged; nothing is late
    assert game_of(ann, game_id)["time_bank"]["left"]["north"] == 8 * HOUR
    page = ann.get(f"/g/{game_id}", signed=False).get_data(as_text=True)
    assert "Time bank left (10h per seat" in page and "north</span> 8h 00m" in page
    clock.advance(24 * HOUR + 1)  # late again: the 8 hours left run
    assert sweep(app) == 0
    clock.advance(8 * HOUR)  # and run out: the timeout move is played now
    assert sweep(app) == 1
    last = log_of(ann, game_id)[-1]
    assert last["seat"] == "north" and last["forced"]
    assert game_of(ann, game_id)["time_bank"]["left"]["north"] == 0
    profile = ann.get("/api/players/ann", signed=False).get_json()
    assert profile["record"]["missed_deadlines"] == 1
    assert bob.get("/api/players/bob", signed=False).get_json()["record"][
        "missed_deadlines"] == 0
    # the player was told each time (the notices of a player without mail are logged)
    assert caplog.text.count("north now spends from it: 10h 00m left") == 1, caplog.text
    assert caplog.text.count("north now spends from it: 8h 00m left") == 1, caplog.text


@pytest.mark.parametrize("bank, move_hours, code", [
    (-1, 24, "bad_option"), (721, 24, "bad_option"), ("x", 24, "bad_option"),
    (True, 24, "bad_option"), (5, None, "bad_option")])
def test_a_bad_time_bank_is_refused(make_player, app, bank, move_hours, code):
    ann = make_player("ann")
    body = {"type": "pig", "seats": 2, "options": {"target": 30, "time_bank": bank}}
    if move_hours:
        body["move_hours"] = move_hours
    r = ann.post("/api/games", body)
    assert 400 <= r.status_code < 500 and r.get_json()["error"]["code"] == code, r.get_json()


def test_a_game_without_a_bank_shows_none(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "time_bank": 0}, move_hours=24)
    game = game_of(ann, game_id)
    assert game["time_bank"] is None and "time_bank" not in game["options"]


def test_the_record_counts_finished_games_and_wins(make_player, app):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 1})
    assert ann.play(game_id, "north", "roll").status_code == 201
    while game_of(ann, game_id)["status"] != "over":
        game = game_of(ann, game_id)
        seat = game["to_act"][0]
        (ann if seat == "north" else bob).play(game_id, seat, "hold" if log_of(
            ann, game_id)[-1]["move"] == "roll" and log_of(ann, game_id)[-1]["seat"] == seat
            else "roll")
    winners = game_of(ann, game_id)["result"]["winners"]
    for who, seat in ((ann, "north"), (bob, "east")):
        record = who.get(f"/api/players/{who.name}", signed=False).get_json()["record"]
        assert record == {"finished": 1, "wins": int(seat in winners), "resignations": 0,
                          "aborts": 0, "missed_deadlines": 0}


def test_every_form_of_result_is_read():
    assert how_it_ended({"winners": ["north"]}, "north") == ("finished", True, False)
    assert how_it_ended(None, "north") == ("finished", False, False)
    assert how_it_ended({"winners": ["east"], "reason": "resigned", "resigned": ["north"]},
                        "north") == ("finished", False, True)
    assert how_it_ended({"winners": ["east"], "reason": "resigned", "resigned": "north"},
                        "east") == ("finished", True, False)
    assert how_it_ended({"winners": [], "reason": "resignation", "seat": "north"},
                        "north")[2] is True
    assert how_it_ended({"winners": [], "reason": "aborted"}, "north")[0] == "aborted"
    assert how_it_ended({"winners": [], "aborted": True}, "east")[0] == "aborted"
    # the table's decisions (shared/table.py) as they end a game
    assert how_it_ended({"winners": ["east"], "reason": "north resigned: east wins",
                         "table": "resign", "resigned": ["north"]}, "north") == (
        "finished", False, True)
    assert how_it_ended({"winners": ["east"], "reason": "7 points; north resigned",
                         "resigned": ["north"]}, "east") == ("finished", True, False)
    assert how_it_ended({"winners": [], "reason": "aborted by north before every seat had "
                         "made 2 moves: unrated", "table": "abort", "rated": False,
                         "by": "north"}, "east")[0] == "aborted"
    assert how_it_ended({"winners": [], "reason": "drawn by agreement"}, "east") == (
        "finished", False, False)
    # Title of Liberty's concession names the seat in its text
    assert how_it_ended({"winners": [], "reason": "nephi conceded (or the wall-clock "
                         "deadline passed)"}, "nephi")[2] is True
    assert how_it_ended({"winners": [], "reason": "nephi conceded"}, "moroni")[2] is False
    assert how_it_ended({"winners": 3, "reason": 7, "resigned": {"x": 1}}, "north") == (
        "finished", False, False)


def test_an_outage_gives_back_a_running_spell_of_the_bank(make_player, app, clock):
    """The outage grace moves a spending seat's deadline, and its spell with it: the time
    the service was down is not charged to the bank."""
    from server.workers import notify
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "time_bank": 10}, move_hours=24)
    clock.advance(25 * HOUR)
    assert sweep(app) == 0  # the spell runs: an hour spent
    with app.app_context():
        notify.beat()
    clock.advance(48 * HOUR)  # the worker is down two days: the banked deadline passes
    with app.app_context():
        counts = notify._passes()()
    assert counts["forced"] == 0 and log_of(ann, game_id) == []
    assert game_of(ann, game_id)["time_bank"]["left"]["north"] == 9 * HOUR
    clock.advance(9 * HOUR)
    assert sweep(app) == 1  # then the bank runs out as it would have


def test_a_vacation_pauses_a_running_spell_of_the_bank(make_player, app, clock):
    ann, bob = make_player("ann"), make_player("bob")
    game_id = two_seat_game(ann, bob, options={"target": 30, "time_bank": 10}, move_hours=24)
    clock.advance(25 * HOUR)
    assert sweep(app) == 0  # the spell runs: an hour spent
    assert ann.post("/api/players/me/vacation", {"days": 2}).status_code == 200
    clock.advance(48 * HOUR)
    assert sweep(app) == 0 and log_of(ann, game_id) == []
    assert game_of(ann, game_id)["time_bank"]["left"]["north"] == 9 * HOUR
