"""Weekends off: a player who asks for them has deadlines that count no hour of a Saturday or
a Sunday in their own time zone (summer time included)."""

import doctest
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from server.game import duties
from server.game.duties import Clock, deadline_for
from tests.helpers.mail import set_clock_utc

PARIS = ZoneInfo("Europe/Paris")


def test_a_deadline_skips_the_weekend_in_the_players_own_zone():
    # Friday 20:00 in Paris, 24 hours: 4 hours on Friday, then Monday 00:00 to 20:00; summer
    # time began that Sunday (28 March 2027), so Monday 20:00 is 18:00 UTC
    start = datetime(2027, 3, 26, 20, tzinfo=PARIS).astimezone(timezone.utc)
    due = deadline_for(24, Clock(weekends_off=True, tz="Europe/Paris"), start)
    assert due == datetime(2027, 3, 29, 20, tzinfo=PARIS)
    assert due.utcoffset() == timedelta(0)
    # the same start without weekends off: 24 hours of elapsed time
    assert deadline_for(24, Clock(tz="Europe/Paris"), start) == start + timedelta(hours=24)
    # a deadline that begins on a Saturday starts counting on Monday
    sat = datetime(2027, 1, 16, 9, tzinfo=PARIS).astimezone(timezone.utc)
    assert deadline_for(48, Clock(weekends_off=True, tz="Europe/Paris"), sat) == \
        datetime(2027, 1, 20, 0, tzinfo=PARIS)
    # over two weekends: 120 hours from a Thursday noon
    thu = datetime(2027, 1, 14, 12, tzinfo=timezone.utc)
    assert deadline_for(120, Clock(weekends_off=True), thu) == \
        datetime(2027, 1, 21, 12, tzinfo=timezone.utc)


def test_a_vacation_and_weekends_off_together():
    start = datetime(2027, 1, 13, 12, tzinfo=timezone.utc)  # a Wednesday
    back = datetime(2027, 1, 15, 12, tzinfo=timezone.utc)   # back on Friday noon
    due = deadline_for(24, Clock(vacation_until=back, weekends_off=True), start)
    assert due == datetime(2027, 1, 18, 12, tzinfo=timezone.utc)
    assert deadline_for(None, Clock(weekends_off=True), start) is None
    assert deadline_for(24, Clock(weekends_off=True, tz="Not/AZone"), start) == \
        start + timedelta(hours=24)  # an unreadable zone counts as UTC


def test_the_setting_is_read_back_and_moves_a_new_deadline(app, make_player, clock):
    set_clock_utc(clock, 2027, 1, 15, 12)  # a Friday noon, UTC
    ann, bob = make_player("ann"), make_player("bob")
    r = ann.request("PATCH", "/api/players/me", {"weekends_off": True, "tz": "UTC"})
    assert r.status_code == 200 and r.get_json()["weekends_off"] is True
    assert ann.get("/api/players/me").get_json()["weekends_off"] is True
    assert ann.request("PATCH", "/api/players/me", {"weekends_off": "yes"}).status_code == 400
    game_id = ann.post("/api/games", {"type": "pig", "seats": 2, "move_hours": 24}) \
        .get_json()["id"]
    bob.post(f"/api/games/{game_id}/join", {})
    game = ann.get(f"/api/games/{game_id}").get_json()
    due = game["deadlines"]["north"]
    assert datetime.fromisoformat(due) == datetime(2027, 1, 18, 12, tzinfo=timezone.utc)


def test_the_docstring_example_holds():
    assert doctest.testmod(duties).failed == 0
